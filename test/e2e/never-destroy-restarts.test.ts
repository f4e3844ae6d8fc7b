// DESIGN §11 on real clusters: partitions, kills and restarts never delete or replace what runs in
// a member. A failed apply: never-destroy.test.ts.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { CoreV1Api } from "@kubernetes/client-node";
import { waitFor } from "../env/wait.ts";
import { workKeyLabelValue } from "../../shared/work-key.ts";
import { EVICTION_RECHECK_MS } from "../../control-plane/scheduling/graceful-eviction.ts";
import { apply, type BindingJson, deletions, deploymentJson, eventually, getJson, kubectl } from "./helpers.ts";

const NS = "keep";

interface DeploymentJson {
  metadata: { uid: string };
  spec: { replicas: number };
}

const deployment = (name: string, replicas: number, image = "nginx") => deploymentJson(name, NS, replicas, image);
/** Outlasts two of the scheduler's rechecks of a pending graceful eviction (5 s each): any eviction it would make is made by then. */
const TWO_EVICTION_RECHECKS_MS = 2 * EVICTION_RECHECK_MS + 2_000;

describe("never destroy what runs: partitions, kills and restarts", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let m1: Cluster;
  let m2: Cluster;
  before(async () => {
    fleet = await startFleet({ members: 2 });
    // The production default: a partition shorter than this never evicts a Divided copy. The hub
    // closes the stream of an agent that answers no ping for --grpc-keepalive-interval +
    // --grpc-keepalive-timeout: 3 s + 3 s here (30 s + 10 s in production), so a partitioned agent
    // comes back through a reconnect and resync, as after a long partition.
    flotilla = await startFlotilla(fleet, { gracefulEvictionPeriod: "10m", controlPlaneArgs: ["--grpc-keepalive-interval=3s", "--grpc-keepalive-timeout=3s"] });
    [m1, m2] = fleet.members as [Cluster, Cluster];
    await kubectl(fleet.control, ["create", "namespace", NS]);
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  const deploy = (m: Cluster, name: string) => getJson<DeploymentJson>(m, ["deploy", "-n", NS, name]);
  const binding = (name: string) => getJson<BindingJson>(fleet.control, ["rb", "-n", NS, `${name}-deployment`]);

  it("a Divided workload keeps every member's object through a partition of all agents, of one agent, and a control-plane kill -9 with a restart 20 s later", async () => {
    const divided = JSON.stringify({
      apiVersion: "flotilla.dev/v1alpha1",
      kind: "PropagationPolicy",
      metadata: { name: "shared", namespace: NS },
      spec: {
        resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "shared" }],
        placement: { clusterAffinity: { clusterNames: ["member1", "member2"] }, replicaScheduling: { replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted" } },
      },
    });
    const split = (b: BindingJson) => b.spec.clusters.map((c) => `${c.name}=${c.replicas}`).join(" ");
    await apply(fleet.control, deployment("shared", 4));
    await apply(fleet.control, divided);
    await eventually("2/2", () => binding("shared"), (b) => split(b) === "member1=2 member2=2");
    const uid1 = (await eventually("member1 runs 2", () => deploy(m1, "shared"), (d) => d.spec.replicas === 2)).metadata.uid;
    const uid2 = (await eventually("member2 runs 2", () => deploy(m2, "shared"), (d) => d.spec.replicas === 2)).metadata.uid;
    const sameObjects = async (when: string) => {
      assert.equal((await deploy(m1, "shared"))?.metadata.uid, uid1, `member1's object is the same ${when}`);
      assert.equal((await deploy(m2, "shared"))?.metadata.uid, uid2, `member2's object is the same ${when}`);
    };
    const agents = () => ["member1", "member2"].map((m) => flotilla.agents.get(m)?.process).filter((p) => p !== undefined);
    const streams = async () => (await flotilla.controlPlaneMetrics()).flotilla_connected_agents ?? 0;
    const ready = async (name: string) => (await getJson<{ status?: { conditions?: { type: string; status: string; lastTransitionTime: string }[] } }>(fleet.control, ["cluster", name]))?.status?.conditions?.find((c) => c.type === "Ready");

    // 1. Every agent partitioned: both clusters go NotReady, the hub closes both streams (keepalive),
    // and the binding keeps its placement.
    for (const p of agents()) p.pause();
    try {
      await eventually("both NotReady", async () => [await ready("member1"), await ready("member2")], (r) => r.every((c) => c?.status === "False"), 30_000);
      await eventually("the hub closed both agents' streams", streams, (n) => n === 0, 30_000);
      await new Promise((r) => setTimeout(r, TWO_EVICTION_RECHECKS_MS));
      // The agents stop a moment apart: the first cluster to go NotReady had its share added on
      // the other first. Once none is Ready, that last placement is kept: nobody loses a copy.
      const b = await binding("shared");
      const replicas = new Map((b?.spec.clusters ?? []).map((c) => [c.name, c.replicas ?? 0]));
      assert.ok((replicas.get("member1") ?? 0) >= 2 && (replicas.get("member2") ?? 0) >= 2, `no Ready cluster: both keep their copies (${b === undefined ? "no binding" : split(b)})`);
      const scheduled = b?.status?.conditions?.find((c) => c.type === "Scheduled");
      assert.equal(scheduled?.status, "False");
      assert.match(scheduled?.message ?? "", /none Ready; the clusters keep what they run/);
    } finally {
      for (const p of agents()) p.resume();
    }
    await eventually("both Ready again", async () => [await ready("member1"), await ready("member2")], (r) => r.every((c) => c?.status === "True"), 60_000);
    await eventually("2/2 without evictions", () => binding("shared"), (b) => split(b) === "member1=2 member2=2" && (b.spec as { gracefulEvictionTasks?: unknown[] }).gracefulEvictionTasks === undefined);
    await sameObjects("after all agents were partitioned");

    // 2. One agent partitioned: its share is added on member1 first; member2 keeps its copy.
    const member2 = flotilla.agents.get("member2")?.process;
    member2?.pause();
    try {
      const b = await eventually("member1 takes 4, member2 holds 2", () => binding("shared"), (x) => split(x) === "member1=4 member2=2", 30_000);
      assert.deepEqual((b.spec as { gracefulEvictionTasks?: { fromCluster: string }[] }).gracefulEvictionTasks?.map((t) => t.fromCluster), ["member2"]);
      await eventually("member1 runs 4", () => deploy(m1, "shared"), (d) => d.spec.replicas === 4);
      await eventually("the hub closed member2's stream", streams, (n) => n === 1, 30_000);
      await new Promise((r) => setTimeout(r, TWO_EVICTION_RECHECKS_MS));
      assert.equal(split((await binding("shared")) as BindingJson), "member1=4 member2=2", "member2 is still held: the eviction period is not over");
    } finally {
      member2?.resume();
    }
    await eventually("2/2 again", () => binding("shared"), (b) => split(b) === "member1=2 member2=2" && (b.spec as { gracefulEvictionTasks?: unknown[] }).gracefulEvictionTasks === undefined, 60_000);
    await eventually("member1 back to 2", () => deploy(m1, "shared"), (d) => d.spec.replicas === 2);
    await sameObjects("after one agent was partitioned");

    // 3. The control plane killed with -9, restarted 20 s later: no cluster turns NotReady, nothing moves.
    // 20 s is past the clusters' Leases (--cluster-lease-renew-interval 1 s + --cluster-failure-threshold
    // 5 s here): the restarted leader finds every lease expired. And the agents' reconnect backoff
    // (full jitter, doubling from 0.5 s to 30 s) has grown past the failure threshold by then:
    // only --cluster-startup-grace-period (its default, 5 s + 60 s here) keeps them Ready.
    const readyBefore = await Promise.all(["member1", "member2"].map(ready));
    await flotilla.controlPlane.kill();
    await new Promise((r) => setTimeout(r, 20_000));
    await sameObjects("while the control plane was down");
    await flotilla.startControlPlane();
    for (const m of ["member1", "member2"]) {
      await eventually(`${m}'s agent reconnected`, () => flotilla.agentMetrics(m), (x) => x.flotilla_agent_connected === 1, 60_000);
    }
    await eventually("heartbeats judged", async () => [await ready("member1"), await ready("member2")], (r) => r.every((c) => c?.status === "True"));
    const readyAfter = await Promise.all(["member1", "member2"].map(ready));
    assert.deepEqual(readyAfter.map((c) => c?.lastTransitionTime), readyBefore.map((c) => c?.lastTransitionTime), "neither cluster was marked NotReady across the restart");
    assert.equal(split((await binding("shared")) as BindingJson), "member1=2 member2=2");
    await sameObjects("after the control plane restarted");
  });

  it("an agent killed with -9 between an apply and its record leaves no orphan: the object goes when its template does", async () => {
    const core = m1.kubeConfig().makeApiClient(CoreV1Api);
    const cm = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "orphan", namespace: NS }, data: { a: "1" } });
    const cmPolicy = JSON.stringify({
      apiVersion: "flotilla.dev/v1alpha1",
      kind: "PropagationPolicy",
      metadata: { name: "orphan", namespace: NS },
      spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "orphan" }], placement: { clusterAffinity: { clusterNames: ["member1"] } } },
    });
    await apply(fleet.control, cm);
    await apply(fleet.control, cmPolicy);
    // Kill the agent the moment the object exists in member1: before the old code's delayed record.
    await waitFor(() => core.readNamespacedConfigMap({ name: "orphan", namespace: NS }).then(() => true, () => false), { what: "orphan in member1", timeoutMs: 30_000, intervalMs: 20 });
    await flotilla.agents.get("member1")?.process.kill();
    await kubectl(fleet.control, ["delete", "configmap", "-n", NS, "orphan", "--wait=false"]);
    await flotilla.startAgent("member1");
    await eventually("the object is deleted with its template", () => core.readNamespacedConfigMap({ name: "orphan", namespace: NS }).then(() => undefined, () => "gone"), () => true, 60_000);
    const metrics = await flotilla.agentMetrics("member1");
    assert.ok((metrics['flotilla_agent_deletes_total{reason="TemplateDeleted"}'] ?? 0) >= 1, `the deletion is counted with its reason: ${JSON.stringify(deletions(metrics))}`);
  });

  it("a restarted agent adopts labelled objects no record names, and deletes one only when the hub says its Work is not wanted", async () => {
    const core = m1.kubeConfig().makeApiClient(CoreV1Api);
    const labelledCm = (name: string, key: string) =>
      JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: NS, labels: { "flotilla.dev/work": workKeyLabelValue(key) }, annotations: { "flotilla.dev/work-key": key } }, data: { left: "behind" } });
    // A Work that is wanted (its template and policy exist), and one that is not (no template at all).
    await apply(fleet.control, JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "wanted", namespace: NS }, data: { a: "1" } }));
    await apply(fleet.control, JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name: "wanted", namespace: NS }, spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "wanted" }], placement: { clusterAffinity: { clusterNames: ["member1"] } } } }));
    await eventually("wanted in member1", () => getJson(m1, ["cm", "-n", NS, "wanted"]), () => true);
    await flotilla.stopAgent("member1");
    // What an agent that crashed before writing its record would have left.
    await apply(m1, labelledCm("stray", `core/v1/ConfigMap/${NS}/stray`));
    const wanted = await getJson<{ metadata: { uid: string } }>(m1, ["cm", "-n", NS, "wanted"]);
    await flotilla.startAgent("member1");
    await eventually("the stray object is deleted: its Work is not wanted", () => core.readNamespacedConfigMap({ name: "stray", namespace: NS }).then(() => undefined, () => "gone"), () => true, 60_000);
    const metrics = await flotilla.agentMetrics("member1");
    // Its template does not exist: the hub's reason is TemplateDeleted.
    assert.ok((metrics['flotilla_agent_deletes_total{reason="TemplateDeleted"}'] ?? 0) >= 1, `deleted for the hub's reason: ${JSON.stringify(deletions(metrics))}`);
    assert.equal((await getJson<{ metadata: { uid: string } }>(m1, ["cm", "-n", NS, "wanted"]))?.metadata.uid, wanted?.metadata.uid, "the wanted object is untouched");
  });

  it("a Work the hub keeps without sending (its render fails after a control-plane restart) stays when its object changes in the member", async () => {
    const cm = (name: string) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: NS }, data: { a: "1" } });
    for (const name of ["kept", "beside"]) {
      await apply(fleet.control, cm(name));
      await apply(fleet.control, JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name, namespace: NS }, spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name }], placement: { clusterAffinity: { clusterNames: ["member1"] } } } }));
      await eventually(`${name} in member1`, () => getJson(m1, ["cm", "-n", NS, name]), () => true);
    }
    const kept = await getJson<{ metadata: { uid: string } }>(m1, ["cm", "-n", NS, "kept"]);
    // An override that cannot apply: no Work renders for member1, the copy there stays as it was.
    await apply(fleet.control, JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "OverridePolicy", metadata: { name: "kept", namespace: NS }, spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "kept" }], overrideRules: [{ targetCluster: { clusterNames: ["member1"] }, overriders: { plaintext: [{ path: "/spec/nothing", operator: "remove" }] } }] } }));
    await eventually("kept says its overrides failed", () => getJson<BindingJson>(fleet.control, ["rb", "-n", NS, "kept-configmap"]), (b) => JSON.stringify(b.status ?? {}).includes("ApplyOverridesFailed"));
    // Both restart: the hub has no Work for kept (and no intent to delete it); the agent holds its record.
    await flotilla.stopAgent("member1");
    await flotilla.stopControlPlane();
    await flotilla.startControlPlane();
    await flotilla.startAgent("member1");
    await eventually("the agent synced", () => flotilla.agentMetrics("member1"), (m) => m.flotilla_agent_connected === 1 && (m.flotilla_agent_works ?? 0) >= 1);
    // beside's apply starts the agent's ConfigMap watch; a change to kept in the member wakes its Work.
    await kubectl(m1, ["label", "cm", "-n", NS, "kept", "touched=yes"]);
    await new Promise((r) => setTimeout(r, 5_000));
    assert.equal((await getJson<{ metadata: { uid: string } }>(m1, ["cm", "-n", NS, "kept"]))?.metadata.uid, kept?.metadata.uid, "kept still runs, the same object");
    assert.deepEqual(deletions(await flotilla.agentMetrics("member1")), {}, "the agent deleted nothing");
  });
});
