// Issue 26, application failover (spec.failover.application). A Deployment placed in one member
// (Aggregated) is made Unhealthy there by an override that asks for more CPU than any node has
// and a progress deadline of 1 s (its new pod stays Pending: ProgressDeadlineExceeded). After
// tolerationSeconds the binding records an ApplicationFailure task for that member, the workload
// moves to the other member, and:
// (a) purgeMode Directly: the old copy is removed before the new one is made, and the new copy
//     carries the label statePreservation read from the old member's status (Karmada's rules);
// (b) purgeMode Never: the old copy stays (same object) after the new one runs, the task says so
//     (suppressDeletion), and it goes only when a person changes the policy's purge mode.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, before, describe, it } from "node:test";
import { ensureBinaries } from "../env/binaries.ts";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { apply, type BindingJson, deploymentJson, eventually, getJson, kubectl, placementPolicyJson, sleep } from "./helpers.ts";

const NS = "appfail";
const TOLERATION_S = 5;
const STATE_LABEL = "failover.example.com/replicas";

interface Task {
  fromCluster: string;
  reason: string;
  purgeMode?: string;
  suppressDeletion?: boolean;
  preservedLabelState?: Record<string, string>;
  clustersBeforeFailover?: string[];
}
interface FailoverBinding extends BindingJson {
  spec: BindingJson["spec"] & { gracefulEvictionTasks?: Task[] };
}
interface WatchEvent {
  type: string;
  name: string;
  deleting: boolean;
  /** The object's labels as kubectl prints them. */
  labels: string;
  at: number;
}
interface DeploymentJson {
  metadata: { uid: string; labels?: Record<string, string> };
  status?: { availableReplicas?: number };
}

describe("application failover: a workload Unhealthy in a member moves to another", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let members: Cluster[];
  before(async () => {
    fleet = await startFleet({ members: 2 });
    members = fleet.members;
    // Heartbeats that a loaded machine delays must not turn a member NotReady here: a cluster
    // failover would move the workload too, without the application failover's state (test/env's
    // default threshold is 5 s).
    flotilla = await startFlotilla(fleet, { clusterFailureThreshold: "60s" });
    await kubectl(fleet.control, ["create", "namespace", NS]);
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  const member = (name: string) => members.find((m) => m.name === name) as Cluster;
  const binding = (name: string) => getJson<FailoverBinding>(fleet.control, ["rb", "-n", NS, `${name}-deployment`]);
  const copy = (m: Cluster, name: string) => getJson<DeploymentJson>(m, ["deploy", "-n", NS, name]);

  /** Places the Deployment with the policy's failover; returns the one member it runs in, once Available there. */
  async function placeOnce(name: string, failover: Record<string, unknown>): Promise<{ from: Cluster; to: Cluster; uid: string }> {
    await apply(fleet.control, deploymentJson(name, NS, 1, "busybox"));
    const policy = JSON.parse(placementPolicyJson(name, NS, ["member1", "member2"], { replicaScheduling: { replicaSchedulingType: "Divided", replicaDivisionPreference: "Aggregated" } })) as { spec: Record<string, unknown> };
    policy.spec.failover = failover;
    await apply(fleet.control, JSON.stringify(policy));
    const placed = await eventually(`${name} placed in one member`, () => binding(name), (b) => b.spec.clusters.length === 1);
    const from = member(placed.spec.clusters[0]?.name ?? "");
    const to = members.find((m) => m !== from) as Cluster;
    const running = await eventually(`${name} Available in ${from.name}`, () => copy(from, name), (d) => d.status?.availableReplicas === 1, 120_000);
    return { from, to, uid: running.metadata.uid };
  }

  /** Every Deployment event in a member's namespace, as it arrives. */
  async function watchDeployments(m: Cluster): Promise<{ events: WatchEvent[]; stop(): void }> {
    const bin = join(await ensureBinaries(), "kubectl");
    const template = '{.type}|{.object.metadata.name}|{.object.metadata.deletionTimestamp}|{.object.metadata.labels}{"\\n"}';
    const child = spawn(bin, ["--kubeconfig", m.kubeconfigPath, "get", "deploy", "-n", NS, "--watch", "--output-watch-events", "-o", `jsonpath=${template}`], { stdio: ["ignore", "pipe", "ignore"] });
    const events: WatchEvent[] = [];
    createInterface({ input: child.stdout }).on("line", (line) => {
      const [type = "", name = "", deleting = "", ...labels] = line.split("|");
      events.push({ type: type.trim(), name: name.trim(), deleting: deleting.trim() !== "", labels: labels.join("|"), at: Date.now() });
    });
    await sleep(1000); // the watch's initial list (empty) is in
    return { events, stop: () => child.kill() };
  }

  /** An override that leaves the copy in `from` Unhealthy: a pod no node can hold, and a progress deadline of 1 s. */
  async function breakIn(name: string, from: Cluster): Promise<void> {
    await apply(
      fleet.control,
      JSON.stringify({
        apiVersion: "flotilla.dev/v1alpha1",
        kind: "OverridePolicy",
        metadata: { name: `${name}-broken`, namespace: NS },
        spec: {
          resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name }],
          overrideRules: [
            {
              targetCluster: { clusterNames: [from.name] },
              overriders: {
                plaintext: [
                  { path: "/spec/progressDeadlineSeconds", operator: "add", value: 1 },
                  { path: "/spec/template/spec/containers/0/resources", operator: "add", value: { requests: { cpu: "1000" } } },
                ],
              },
            },
          ],
        },
      }),
    );
    await eventually(`${name} reported Unhealthy in ${from.name}`, () => binding(name), (b) => b.status?.aggregatedStatus?.some((i) => i.clusterName === from.name && i.health === "Unhealthy") === true, 120_000);
  }

  it("(a) purgeMode Directly: moves after tolerationSeconds, the old copy removed first, and the new copy carries the preserved state", async () => {
    const { from, to } = await placeOnce("web", {
      application: { decisionConditions: { tolerationSeconds: TOLERATION_S }, purgeMode: "Directly", statePreservation: { rules: [{ aliasLabelName: STATE_LABEL, jsonPath: "{.replicas}" }] } },
    });
    const [fromWatch, toWatch] = await Promise.all([watchDeployments(from), watchDeployments(to)]);
    await breakIn("web", from);
    const unhealthyAt = Date.now();
    // The label lasts as long as the task (until the new copy is Healthy), as Karmada's: watch for it.
    // The label lasts only as long as the task (until the new copy is Healthy, as Karmada's), which
    // the fake nodes make a matter of a second: each member's Deployment events are watched.
    await eventually(`web's copy in ${to.name}`, () => copy(to, "web"), (d) => d !== undefined, 120_000);
    // What moved it, for the assertions' messages (the task lasts only until the new copy is Healthy).
    const movedBy = JSON.stringify((await binding("web"))?.spec.gracefulEvictionTasks ?? []);
    await eventually(`web's copy in ${to.name} Available`, () => copy(to, "web"), (d) => d.status?.availableReplicas === 1, 120_000);
    await eventually(`web's copy in ${from.name} removed (Directly)`, () => copy(from, "web").then((d) => (d === undefined ? "gone" : undefined)), () => true, 120_000);
    await sleep(1000);
    const first = toWatch.events.find((e) => e.name === "web");
    assert.ok(first !== undefined && first.type === "ADDED", `the watch saw ${to.name}'s copy made: ${JSON.stringify(toWatch.events)}`);
    assert.ok(first.at - unhealthyAt >= (TOLERATION_S - 1) * 1000, "not before tolerationSeconds");
    assert.match(first.labels, /"failover\.example\.com\/replicas":"[1-9]\d*"/, `made with the replicas the old member's status reported as a label (the binding's tasks then: ${movedBy})`);
    const removal = fromWatch.events.find((e) => e.name === "web" && (e.type === "DELETED" || e.deleting));
    assert.ok(removal !== undefined && removal.at <= first.at, `Directly: ${from.name}'s copy went before ${to.name}'s was made: ${JSON.stringify(fromWatch.events)}`);
    fromWatch.stop();
    toWatch.stop();
    await eventually(`web Available in ${to.name}`, () => copy(to, "web"), (d) => d.status?.availableReplicas === 1, 120_000);
    const done = await eventually("the task ends once the new copy is Healthy", () => binding("web"), (b) => (b.spec.gracefulEvictionTasks ?? []).length === 0);
    assert.deepEqual(done.spec.clusters.map((c) => c.name), [to.name], "it stays where it moved");
  });

  it("(b) purgeMode Never: the old copy stays until a person releases it", async () => {
    const { from, to, uid } = await placeOnce("api", { application: { decisionConditions: { tolerationSeconds: TOLERATION_S }, purgeMode: "Never" } });
    await breakIn("api", from);
    const moved = await eventually(`an ApplicationFailure task for ${from.name}`, () => binding("api"), (b) => (b.spec.gracefulEvictionTasks ?? []).some((t) => t.fromCluster === from.name && t.reason === "ApplicationFailure"));
    const task = moved.spec.gracefulEvictionTasks?.find((t) => t.fromCluster === from.name);
    assert.equal(task?.purgeMode, "Never");
    assert.equal(task?.suppressDeletion, true);
    await eventually(`api Available in ${to.name}`, () => copy(to, "api"), (d) => d.status?.availableReplicas === 1, 120_000);
    // Well past the new copy's health and any recheck: the old copy is the same object still.
    await sleep(12_000);
    assert.equal((await copy(from, "api"))?.metadata.uid, uid, `${from.name} keeps its copy`);
    const held = await binding("api");
    assert.deepEqual(held?.spec.clusters.map((c) => c.name).sort(), [from.name, to.name].sort(), "the binding lists both");
    assert.equal(held?.spec.gracefulEvictionTasks?.[0]?.suppressDeletion, true, "the task says it is kept");

    // A person lets it go by changing the policy (the task's fields are the control plane's).
    const refused = await kubectl(fleet.control, ["patch", "rb", "-n", NS, "api-deployment", "--type=json", "-p", JSON.stringify([{ op: "replace", path: "/spec/gracefulEvictionTasks/0/suppressDeletion", value: false }])]).then(
      () => "",
      (err: unknown) => String((err as { stderr?: string }).stderr ?? err),
    );
    assert.match(refused, /suppressDeletion cannot be set to false: to let a kept copy go, set the policy's failover purgeMode/);
    await kubectl(fleet.control, ["patch", "pp", "-n", NS, "api", "--type=merge", "-p", JSON.stringify({ spec: { failover: { application: { purgeMode: "Gracefully" } } } })]);
    await eventually(`api's copy in ${from.name} removed once released`, () => copy(from, "api").then((d) => (d === undefined ? "gone" : undefined)), () => true, 120_000);
    const after = await eventually("no task left", () => binding("api"), (b) => (b.spec.gracefulEvictionTasks ?? []).length === 0);
    assert.deepEqual(after.spec.clusters.map((c) => c.name), [to.name]);
  });
});
