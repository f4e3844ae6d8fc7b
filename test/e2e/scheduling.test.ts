// Divided scheduling, failover and overrides on three real members, and a lost cluster judged
// NotReady within the failure threshold (this file runs alone: test/runner/suite-plan.ts).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { apply, type BindingJson, clusterItem, deploymentJson, eventually, getJson, kubectl } from "./helpers.ts";

interface DeploymentJson {
  spec: { replicas: number };
  status?: { readyReplicas?: number; availableReplicas?: number };
}

const NS = "sched";
const deployment = (name: string, replicas: number) => deploymentJson(name, NS, replicas);
/** The PropagationPolicy `name` for the Deployment `name`, with the placement given (none: every cluster, Duplicated). */
const policy = (name: string, placement?: object) =>
  JSON.stringify({
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "PropagationPolicy",
    metadata: { name, namespace: NS },
    spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name }], ...(placement === undefined ? {} : { placement }) },
  });
/** Weights by cluster name, or staticWeightList entries as they are. */
const dividedPolicy = (name: string, weights?: Record<string, number> | object[]) =>
  policy(name, {
    replicaScheduling: {
      replicaSchedulingType: "Divided",
      replicaDivisionPreference: "Weighted",
      ...(weights
        ? { weightPreference: { staticWeightList: Array.isArray(weights) ? weights : Object.entries(weights).map(([c, weight]) => ({ targetCluster: { clusterNames: [c] }, weight })) } }
        : {}),
    },
  });

describe("Divided scheduling, failover and overrides", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let members: Cluster[];
  const split = (b: BindingJson) => b.spec.clusters.map((c) => `${c.name}=${c.replicas}`).join(" ");
  before(async () => {
    fleet = await startFleet({ members: 3 });
    flotilla = await startFlotilla(fleet, { clusterFailureThreshold: "4s" });
    members = fleet.members;
    await kubectl(fleet.control, ["create", "namespace", NS]);
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  it("divides 9 replicas by weights 1 and 2 into 3 and 6, and the template sums them", async () => {
    await apply(fleet.control, deployment("split", 9));
    await apply(fleet.control, dividedPolicy("split", { member1: 1, member2: 2 }));
    const b = await eventually("binding", () => getJson<BindingJson>(fleet.control, ["rb", "-n", NS, "split-deployment"]), (x) => x.spec.clusters.length > 0);
    assert.equal(split(b), "member1=3 member2=6");
    const [m1, m2, m3] = members as [Cluster, Cluster, Cluster];
    await eventually("member1 runs 3", () => getJson<DeploymentJson>(m1, ["deploy", "-n", NS, "split"]), (d) => d.spec.replicas === 3 && d.status?.availableReplicas === 3);
    await eventually("member2 runs 6", () => getJson<DeploymentJson>(m2, ["deploy", "-n", NS, "split"]), (d) => d.spec.replicas === 6 && d.status?.availableReplicas === 6);
    assert.equal(await getJson(m3, ["deploy", "-n", NS, "split"]), undefined, "member3 has no entry, so nothing");
    await eventually("template shows 9", () => getJson<DeploymentJson>(fleet.control, ["deploy", "-n", NS, "split"]), (d) => d.status?.readyReplicas === 9);
  });

  it("applies per-cluster minimums and maximums: 10 replicas, member1 at most 2, member2 at least 5", async () => {
    await apply(fleet.control, deployment("bounded", 10));
    await apply(
      fleet.control,
      dividedPolicy("bounded", [
        { targetCluster: { clusterNames: ["member1"] }, weight: 1, maxReplicas: 2 },
        { targetCluster: { clusterNames: ["member2"] }, weight: 1, minReplicas: 5 },
        { targetCluster: {}, weight: 1 },
      ]),
    );
    const b = await eventually("binding", () => getJson<BindingJson>(fleet.control, ["rb", "-n", NS, "bounded-deployment"]), (x) => x.spec.clusters.length > 0);
    assert.equal(split(b), "member1=2 member2=7 member3=1");
    const [m1, m2, m3] = members as [Cluster, Cluster, Cluster];
    for (const [m, n] of [[m1, 2], [m2, 7], [m3, 1]] as const) {
      await eventually(`${m.name} runs ${n}`, () => getJson<DeploymentJson>(m, ["deploy", "-n", NS, "bounded"]), (d) => d.spec.replicas === n && d.status?.availableReplicas === n);
    }
    await eventually("template shows 10", () => getJson<DeploymentJson>(fleet.control, ["deploy", "-n", NS, "bounded"]), (d) => d.status?.readyReplicas === 10);
  });

  it("marks a cluster whose agent stops NotReady within the failure threshold, and Ready when it returns", async () => {
    // Duplicated on every member: the binding says which cluster is not ready, and the template stops counting it.
    await apply(fleet.control, deployment("web", 1));
    await apply(fleet.control, policy("web"));
    const web = () => getJson<DeploymentJson>(fleet.control, ["deploy", "-n", NS, "web"]);
    const binding = () => getJson<BindingJson>(fleet.control, ["rb", "-n", NS, "web-deployment"]);
    const ready = async (name: string) =>
      (await getJson<{ status?: { conditions?: { type: string; status: string; reason: string }[] } }>(fleet.control, ["cluster", name]))?.status?.conditions?.find((c) => c.type === "Ready");
    await eventually("template counts 3", web, (d) => d.status?.readyReplicas === 3);
    await flotilla.stopAgent("member2");
    const stoppedAt = Date.now();
    const notReady = await eventually("member2 NotReady", () => ready("member2"), (c) => c.status === "False", 30_000);
    const elapsed = Date.now() - stoppedAt;
    assert.equal(notReady.reason, "ClusterNotReachable");
    assert.ok(elapsed < 4_000 + 5_000, `NotReady after ${elapsed} ms (threshold 4 s)`);
    await eventually("web binding shows member2 ClusterNotReady", binding, (b) => clusterItem(b, "member2")?.reason === "ClusterNotReady");
    await eventually("template no longer counts member2", web, (d) => d.status?.readyReplicas === 2);
    await flotilla.startAgent("member2");
    await eventually("member2 Ready again", () => ready("member2"), (c) => c.status === "True", 30_000);
    await eventually("template counts member2 again", web, (d) => d.status?.readyReplicas === 3);
  });

  it("moves a lost cluster's share to the Ready ones (adding it there first: graceful eviction), and gives it back when the cluster returns", async () => {
    await apply(fleet.control, deployment("spread", 6));
    await apply(fleet.control, dividedPolicy("spread"));
    const binding = () => getJson<BindingJson>(fleet.control, ["rb", "-n", NS, "spread-deployment"]);
    await eventually("2/2/2", binding, (b) => split(b) === "member1=2 member2=2 member3=2");
    await eventually("template shows 6", () => getJson<DeploymentJson>(fleet.control, ["deploy", "-n", NS, "spread"]), (d) => d.status?.readyReplicas === 6);

    await flotilla.stopAgent("member3");
    const lostAt = Date.now();
    // The share is added on the Ready clusters first; member3 keeps its 2 while they come up.
    const adding = await eventually("3/3 added, member3 still holding 2", binding, (b) => split(b) === "member1=3 member2=3 member3=2", 30_000);
    const movedMs = Date.now() - lostAt;
    assert.ok(movedMs < 4_000 + 6_000, `share moved ${movedMs} ms after the agent stopped (threshold 4 s)`);
    assert.deepEqual((adding.spec as { gracefulEvictionTasks?: { fromCluster: string; replicas: number; reason: string }[] }).gracefulEvictionTasks?.map((t) => [t.fromCluster, t.replicas, t.reason]), [["member3", 2, "ClusterNotReady"]]);
    const [m1, m2] = members as [Cluster, Cluster];
    for (const m of [m1, m2]) await eventually(`${m.name} runs 3`, () => getJson<DeploymentJson>(m, ["deploy", "-n", NS, "spread"]), (d) => d.status?.availableReplicas === 3);
    // Once they run it Available and the eviction period (3 s in tests) has passed, member3 is let go.
    await eventually("3/3 without member3", binding, (b) => split(b) === "member1=3 member2=3" && (b.spec as { gracefulEvictionTasks?: unknown[] }).gracefulEvictionTasks === undefined, 30_000);
    await eventually("template counts 6, not member3's old 2 on top", () => getJson<DeploymentJson>(fleet.control, ["deploy", "-n", NS, "spread"]), (d) => d.status?.readyReplicas === 6);

    await flotilla.startAgent("member3");
    await eventually("2/2/2 again", binding, (b) => split(b) === "member1=2 member2=2 member3=2", 30_000);
    await eventually("member3 runs 2 again", () => getJson<DeploymentJson>(members[2] as Cluster, ["deploy", "-n", NS, "spread"]), (d) => d.status?.availableReplicas === 2);
    await eventually("template shows 6", () => getJson<DeploymentJson>(fleet.control, ["deploy", "-n", NS, "spread"]), (d) => d.status?.readyReplicas === 6);
  });
  it("overrides image, replicas and labels for one cluster, and reports a broken override for that cluster only", async () => {
    /** The OverridePolicy "custom": one rule, for member2 only. */
    const customOverride = (overriders: object) =>
      JSON.stringify({
        apiVersion: "flotilla.dev/v1alpha1",
        kind: "OverridePolicy",
        metadata: { name: "custom", namespace: NS },
        spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "custom" }], overrideRules: [{ targetCluster: { clusterNames: ["member2"] }, overriders }] },
      });
    await apply(fleet.control, deployment("custom", 2));
    await apply(fleet.control, policy("custom", { clusterAffinity: { clusterNames: ["member1", "member2"] } }));
    await apply(
      fleet.control,
      customOverride({
        imageOverrider: [{ component: "Registry", operator: "replace", value: "mirror.example.com" }],
        plaintext: [{ path: "/spec/replicas", operator: "replace", value: 4 }],
        labelsOverrider: [{ operator: "add", value: { tier: "edge" } }],
      }),
    );
    const [m1, m2] = members as [Cluster, Cluster];
    interface Full { metadata: { labels?: Record<string, string> }; spec: { replicas: number; template: { spec: { containers: { image: string }[] } } } }
    const d2 = await eventually("member2 overridden", () => getJson<Full>(m2, ["deploy", "-n", NS, "custom"]), (d) => d.spec.replicas === 4);
    assert.equal(d2.spec.template.spec.containers[0]?.image, "mirror.example.com/nginx");
    assert.equal(d2.metadata.labels?.tier, "edge");
    const d1 = await eventually("member1 as the template says", () => getJson<Full>(m1, ["deploy", "-n", NS, "custom"]), () => true);
    assert.equal(d1.spec.replicas, 2);
    assert.equal(d1.spec.template.spec.containers[0]?.image, "nginx");
    assert.equal(d1.metadata.labels?.tier, undefined);

    // A rule that cannot apply fails member2's Work only; member2 keeps what it had, member1 goes on.
    await apply(fleet.control, customOverride({ plaintext: [{ path: "/spec/nonexistent/field", operator: "remove" }] }));
    const b = await eventually("ApplyOverridesFailed on member2", () => getJson<BindingJson>(fleet.control, ["rb", "-n", NS, "custom-deployment"]), (x) => x.status?.aggregatedStatus?.find((i) => i.clusterName === "member2")?.reason === "ApplyOverridesFailed");
    assert.match(b.status?.aggregatedStatus?.find((i) => i.clusterName === "member2")?.message ?? "", /nonexistent/);
    assert.notEqual(b.status?.aggregatedStatus?.find((i) => i.clusterName === "member1")?.reason, "ApplyOverridesFailed");
    assert.equal((await getJson<Full>(m2, ["deploy", "-n", NS, "custom"]))?.spec.replicas, 4, "nothing applied is lost");
    await apply(fleet.control, deployment("custom", 5));
    await eventually("member1 still follows the template", () => getJson<Full>(m1, ["deploy", "-n", NS, "custom"]), (d) => d.spec.replicas === 5);
  });
  it("suspends dispatching to one cluster: it keeps what it has until the suspension is lifted", async () => {
    const pp = (suspension?: object) =>
      JSON.stringify({
        apiVersion: "flotilla.dev/v1alpha1",
        kind: "PropagationPolicy",
        metadata: { name: "paused", namespace: NS },
        spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "paused" }], placement: { clusterAffinity: { clusterNames: ["member1", "member2"] } }, ...(suspension ? { suspension } : {}) },
      });
    const [m1, m2] = members as [Cluster, Cluster];
    await apply(fleet.control, deployment("paused", 1));
    await apply(fleet.control, pp());
    for (const m of [m1, m2]) await eventually(`paused in ${m.name}`, () => getJson<DeploymentJson>(m, ["deploy", "-n", NS, "paused"]), (d) => d.spec.replicas === 1);
    await apply(fleet.control, pp({ dispatchingOnClusters: { clusterNames: ["member2"] } }));
    await eventually("binding carries the suspension", () => getJson<BindingJson & { spec: { suspension?: unknown } }>(fleet.control, ["rb", "-n", NS, "paused-deployment"]), (b) => b.spec.suspension !== undefined);
    const upsertsBefore = (await flotilla.agentMetrics("member2")).flotilla_agent_upserts_received_total;
    await apply(fleet.control, deployment("paused", 2));
    await eventually("member1 follows", () => getJson<DeploymentJson>(m1, ["deploy", "-n", NS, "paused"]), (d) => d.spec.replicas === 2);
    await eventually("the binding saw the change", () => getJson<BindingJson & { spec: { replicas?: number } }>(fleet.control, ["rb", "-n", NS, "paused-deployment"]), (b) => b.spec.replicas === 2);
    assert.equal((await getJson<DeploymentJson>(m2, ["deploy", "-n", NS, "paused"]))?.spec.replicas, 1, "member2 is suspended");
    assert.equal((await flotilla.agentMetrics("member2")).flotilla_agent_upserts_received_total, upsertsBefore, "nothing was sent to member2");
    await apply(fleet.control, pp());
    await eventually("member2 catches up when lifted", () => getJson<DeploymentJson>(m2, ["deploy", "-n", NS, "paused"]), (d) => d.spec.replicas === 2);
  });
});
