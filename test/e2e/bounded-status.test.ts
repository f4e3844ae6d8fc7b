// Issue 25 end to end: over --binding-status-entries target clusters a binding's status lists only
// the clusters that are not as desired, with every cluster counted in status.aggregatedSummary,
// while the template's .status (what `kubectl get` and `kubectl rollout status` read) and
// `flotillactl describe` still show every cluster. A cap of 1 makes 3 members exceed it.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { ensureBinaries } from "../env/binaries.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { apply, type BindingJson, condition, deploymentJson, eventually, getJson, kubectl, placementPolicyJson, runCommand, sleep } from "./helpers.ts";
import { ensureTestBundles } from "../env/test-bundles.ts";

const NS = "bounded";
const CTL = (await ensureTestBundles()).flotillactl;
const MEMBERS = ["member1", "member2", "member3"];

interface Summary {
  clusters: number;
  reported: number;
  applied: number;
  asDesired: number;
  omittedEntries: number;
  health?: Record<string, number>;
  reasons?: Record<string, number>;
  replicas?: number;
  readyReplicas?: number;
}
type SummarisedBinding = BindingJson & { status?: BindingJson["status"] & { aggregatedSummary?: Summary } };
interface Row {
  cluster: string;
  applied: boolean;
  reason: string;
}

describe("a binding's status over --binding-status-entries", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let control: Cluster;
  const binding = (name: string) => getJson<SummarisedBinding>(control, ["resourcebinding", "-n", NS, name]);
  const ctl = (args: string[]) => runCommand(process.execPath, [CTL, ...args], { env: { ...process.env, FLOTILLA_STATE_DIR: fleet.root } });
  const describeRows = async (args: string[]): Promise<{ rows: Row[]; stderr: string }> => {
    const r = await ctl(["describe", ...args, "-n", NS, "-o", "json"]);
    assert.equal(r.code, 0, r.stderr);
    return { rows: JSON.parse(r.stdout) as Row[], stderr: r.stderr };
  };

  before(async () => {
    fleet = await startFleet({ members: 3 });
    flotilla = await startFlotilla(fleet, { controlPlaneArgs: ["--binding-status-entries=1"] });
    control = fleet.control;
    await kubectl(control, ["create", "namespace", NS]);
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  it("every cluster as desired: no entries, the summary counts and sums all three; the template and describe show every cluster", async () => {
    await apply(control, deploymentJson("web", NS, 1));
    await apply(control, placementPolicyJson("web", NS, MEMBERS));
    const b = await eventually("binding summarised, every cluster as desired", () => binding("web-deployment"), (x) => x.status?.aggregatedSummary?.asDesired === 3 && x.status.aggregatedSummary.readyReplicas === 3);
    assert.deepEqual(b.status?.aggregatedStatus ?? [], [], "no entry of a cluster as desired");
    assert.deepEqual(
      { ...b.status?.aggregatedSummary },
      { clusters: 3, reported: 3, applied: 3, asDesired: 3, omittedEntries: 0, health: { Healthy: 3 }, replicas: 3, readyReplicas: 3, availableReplicas: 3, updatedReplicas: 3 },
    );
    assert.equal(condition(b, "FullyApplied")?.status, "True");
    // The template's .status sums every cluster (from memory), and kubectl rollout status reads it.
    const t = await eventually("template status = fleet sum", () => getJson<{ status?: { readyReplicas?: number } }>(control, ["deploy", "-n", NS, "web"]), (d) => d.status?.readyReplicas === 3);
    assert.equal(t.status?.readyReplicas, 3);
    const rollout = await runCommand(join(await ensureBinaries(), "kubectl"), ["--kubeconfig", control.kubeconfigPath, "rollout", "status", "deploy/web", "-n", NS, "--timeout=60s"], { timeoutMs: 90_000 });
    assert.equal(rollout.code, 0, rollout.stderr);
    // describe: every cluster, from the control plane's memory; then a page at a time.
    const all = await describeRows(["deployment/web"]);
    assert.deepEqual(all.rows.map((r) => [r.cluster, r.applied, r.reason]), MEMBERS.map((m) => [m, true, ""]));
    const first = await describeRows(["deployment/web", "--limit", "2"]);
    assert.deepEqual(first.rows.map((r) => r.cluster), ["member1", "member2"]);
    const token = /--continue (\S+)/.exec(first.stderr)?.[1];
    assert.ok(token !== undefined, first.stderr);
    const rest = await describeRows(["deployment/web", "--limit", "2", "--continue", token]);
    assert.deepEqual(rest.rows.map((r) => r.cluster), ["member3"]);
    assert.doesNotMatch(rest.stderr, /--continue/);
  });

  it("a cluster not as desired keeps its entry; the others are counted", async () => {
    const m3 = fleet.members[2] as Cluster;
    await kubectl(m3, ["create", "configmap", "taken", "-n", NS, "--from-literal=owner=member-admin"]);
    await apply(control, JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "taken", namespace: NS }, data: { owner: "flotilla" } }));
    await apply(
      control,
      JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name: "taken", namespace: NS }, spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "taken" }], placement: { clusterAffinity: { clusterNames: MEMBERS } } } }),
    );
    const b = await eventually("member3's AlreadyExists listed, the rest counted", () => binding("taken-configmap"), (x) => x.status?.aggregatedSummary?.reported === 3 && x.status.aggregatedStatus?.length === 1);
    assert.deepEqual(b.status?.aggregatedStatus?.map((i) => [i.clusterName, i.reason]), [["member3", "AlreadyExists"]]);
    assert.deepEqual([b.status?.aggregatedSummary?.asDesired, b.status?.aggregatedSummary?.reasons], [2, { AlreadyExists: 1 }]);
    const { rows } = await describeRows(["configmap/taken"]);
    assert.deepEqual(rows.map((r) => [r.cluster, r.reason]), [["member1", ""], ["member2", ""], ["member3", "AlreadyExists"]]);
  });

  it("a cluster still to confirm a removal keeps its entry over the cap, until its agent removes the object", async () => {
    const m1 = fleet.members[0] as Cluster;
    await flotilla.stopAgent("member1");
    await apply(control, placementPolicyJson("web", NS, ["member2", "member3"]));
    const b = await eventually("member1 WaitingForRemoval listed", () => binding("web-deployment"), (x) => x.status?.aggregatedStatus?.some((i) => i.clusterName === "member1" && i.reason === "WaitingForRemoval") === true && x.status.aggregatedSummary?.clusters === 2);
    assert.equal(b.status?.aggregatedSummary?.reasons?.WaitingForRemoval, 1);
    assert.ok(await getJson(m1, ["deploy", "-n", NS, "web"]), "member1 still has it while its agent is away");
    await flotilla.startAgent("member1");
    await eventually("member1's removal confirmed", () => binding("web-deployment"), (x) => !(x.status?.aggregatedStatus ?? []).some((i) => i.clusterName === "member1") && x.status?.aggregatedSummary?.asDesired === 2);
    assert.equal(await getJson(m1, ["deploy", "-n", NS, "web"]), undefined);
  });

  it("after a control-plane restart, a cluster the status left out and not heard again yet keeps being counted, and the template its sums", async () => {
    await flotilla.stopAgent("member3");
    await flotilla.stopControlPlane();
    await flotilla.startControlPlane();
    // member2 reports again at once; member3 is known nowhere until its agent is back (the startup grace holds).
    await eventually("the restarted control plane heard member2", () => describeRows(["deployment/web"]).catch(() => undefined), (d) => d.rows.some((r) => r.cluster === "member2" && r.applied));
    await sleep(5_000);
    const b = await binding("web-deployment");
    assert.deepEqual([b?.status?.aggregatedSummary?.reported, b?.status?.aggregatedSummary?.asDesired], [2, 2], "the summary held");
    assert.equal(condition(b as SummarisedBinding, "FullyApplied")?.status, "True");
    const t = await getJson<{ status?: { readyReplicas?: number } }>(control, ["deploy", "-n", NS, "web"]);
    assert.equal(t?.status?.readyReplicas, 2, "the template's sums held");
    await flotilla.startAgent("member3");
    await eventually("member3 heard again", () => describeRows(["deployment/web"]), (d) => d.rows.filter((r) => r.applied).length === 2);
  });
});

