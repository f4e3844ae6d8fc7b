// Application and cluster failover through a template's whole placement (issue 26).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AggregatedStatusItem, Cluster, FailoverBehavior, KubeObject, Placement, PropagationPolicy, ResourceBinding } from "../../shared/api/types.ts";
import { NATIVE_INTERPRETERS } from "../../shared/interpreter/registry.ts";
import { preservedLabelsFor } from "../rendering/preserved-labels.ts";
import { type PlacementInput, placeTemplate } from "./template-placement.ts";

const T0 = Date.parse("2026-11-25T10:00:00Z");
const cluster = (name: string, ready = true): Cluster => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "Cluster",
  metadata: { name },
  spec: {},
  status: {
    conditions: [{ type: "Ready", status: ready ? "True" : "False", reason: "", message: "", lastTransitionTime: "2026-01-01T00:00:00Z" }],
    resourceSummary: { allocatable: { cpu: "8", memory: "16Gi", pods: "110" }, allocated: { cpu: "0", memory: "0", pods: "0" } },
  },
});
const web: KubeObject = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: "ns", uid: "u1" }, spec: { replicas: 2 } };
const both = { clusterAffinity: { clusterNames: ["m1", "m2"] } };
const aggregated: Placement = { ...both, replicaScheduling: { replicaSchedulingType: "Divided", replicaDivisionPreference: "Aggregated" } };
const weighted: Placement = { ...both, replicaScheduling: { replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted", weightPreference: { staticWeightList: [{ targetCluster: {}, weight: 1 }] } } };
const policyOf = (placement: Placement, failover: FailoverBehavior): PropagationPolicy => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "PropagationPolicy",
  metadata: { name: "p", namespace: "ns" },
  spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment" }], placement, failover },
});
const unhealthy = (clusterName: string, status: Record<string, unknown> = { replicas: 2 }): AggregatedStatusItem => ({ clusterName, applied: true, health: "Unhealthy", status });
const healthy = (clusterName: string, availableReplicas: number): AggregatedStatusItem => ({ clusterName, applied: true, health: "Healthy", status: { availableReplicas } });

function place(policy: PropagationPolicy, existing: ResourceBinding | undefined, over: Partial<PlacementInput> = {}) {
  const placed = placeTemplate({ template: web, policy, existing, live: [cluster("m1"), cluster("m2")], requireAcceptance: false, now: T0, evictionPeriodMs: 300_000, requiredBy: [], interpreter: NATIVE_INTERPRETERS.for(web), ...over });
  assert.ok("desired" in placed);
  return placed;
}
/** The binding as it is written, with the agents' reports. */
const withStatus = (b: ResourceBinding, aggregatedStatus: AggregatedStatusItem[]): ResourceBinding => ({ ...b, status: { aggregatedStatus } });
const names = (b: ResourceBinding) => b.spec.clusters.map((c) => `${c.name}=${c.replicas ?? "-"}`).join(" ");
const tasks = (b: ResourceBinding) => (b.spec.gracefulEvictionTasks ?? []).map((t) => `${t.fromCluster}:${t.reason}:${t.purgeMode ?? "-"}`).join(" ");

describe("application failover in a template's placement", () => {
  const app = (purgeMode: "Directly" | "Gracefully" | "Never"): FailoverBehavior => ({ application: { decisionConditions: { tolerationSeconds: 60 }, purgeMode, statePreservation: { rules: [{ aliasLabelName: "example.com/replicas", jsonPath: "{.replicas}" }] } } });
  /** Runs in m1 (Aggregated), reported Unhealthy there. */
  const inM1 = (policy: PropagationPolicy, status: AggregatedStatusItem[] = [unhealthy("m1")]) => withStatus(place(policy, undefined, { live: [cluster("m1")] }).desired, status);

  it("Unhealthy for less than tolerationSeconds: stays, the clock is kept and the binding looked at when it runs out", () => {
    const policy = policyOf(aggregated, app("Directly"));
    const placed = place(policy, inM1(policy), { unhealthySince: { m1: T0 - 20_000 } });
    assert.equal(names(placed.desired), "m1=2");
    assert.deepEqual(placed.unhealthySince, { m1: T0 - 20_000 });
    assert.equal(placed.recheckAfterMs, 40_000);
  });

  it("Directly: m1's copy goes first, m2 gets the workload once m1 confirmed the removal, with the state m1 reported", () => {
    const policy = policyOf(aggregated, app("Directly"));
    const first = place(policy, inM1(policy), { unhealthySince: { m1: T0 - 60_000 } });
    assert.equal(names(first.desired), "", "no two copies at once: m2 waits");
    assert.equal(tasks(first.desired), "m1:ApplicationFailure:Directly");
    assert.match(first.outcome?.unschedulable ?? "", /waiting for m1 to remove the copy it had \(purgeMode Directly\)/);
    assert.equal(first.recheckAfterMs, 5_000);
    const still = place(policy, withStatus(first.desired, [{ clusterName: "m1", applied: false, reason: "WaitingForRemoval" }]), { now: T0 + 1000 });
    assert.equal(names(still.desired), "");
    // m1's agent confirmed: its entry is gone.
    const placed = place(policy, withStatus(first.desired, []), { now: T0 + 2000 });
    assert.equal(names(placed.desired), "m2=2");
    assert.equal(placed.outcome?.unschedulable, undefined);
    assert.equal(tasks(placed.desired), "m1:ApplicationFailure:Directly");
    assert.deepEqual(placed.desired.spec.gracefulEvictionTasks?.[0]?.preservedLabelState, { "example.com/replicas": "2" });
    const labels = preservedLabelsFor(placed.desired.spec);
    assert.deepEqual(labels("m2"), { "example.com/replicas": "2" });
    assert.equal(labels("m1"), undefined);
  });

  it("Directly: while the task lasts m1 stays out of the schedule; once m2 is Healthy the task ends", () => {
    const policy = policyOf(aggregated, app("Directly"));
    const removed = place(policy, inM1(policy), { unhealthySince: { m1: T0 - 60_000 } }).desired;
    const moved = place(policy, withStatus(removed, []), { now: T0 + 1000 }).desired;
    const waiting = place(policy, withStatus(moved, [{ ...healthy("m2", 0), health: "Progressing" }]), { now: T0 + 10_000 }).desired;
    assert.equal(names(waiting), "m2=2");
    assert.equal(tasks(waiting), "m1:ApplicationFailure:Directly");
    const done = place(policy, withStatus(waiting, [healthy("m2", 2)]), { now: T0 + 20_000 }).desired;
    assert.equal(names(done), "m2=2", "Aggregated keeps it where it runs now");
    assert.equal(tasks(done), "");
  });

  it("Gracefully: m1 keeps its copy until m2's is Healthy", () => {
    const policy = policyOf(aggregated, app("Gracefully"));
    const moved = place(policy, inM1(policy), { unhealthySince: { m1: T0 - 60_000 } }).desired;
    assert.equal(names(moved), "m1=2 m2=2");
    assert.equal(tasks(moved), "m1:ApplicationFailure:Gracefully");
    assert.equal(moved.spec.gracefulEvictionTasks?.[0]?.gracePeriodSeconds, 600);
    assert.equal(preservedLabelsFor(moved.spec)("m2"), undefined, "as Karmada: state is injected only with Directly");
    const done = place(policy, withStatus(moved, [unhealthy("m1"), healthy("m2", 2)]), { now: T0 + 30_000 }).desired;
    assert.equal(names(done), "m2=2");
    assert.equal(tasks(done), "");
  });

  it("Never: m1 keeps its copy after m2's is Healthy, until a person changes the policy's purge mode", () => {
    const policy = policyOf(aggregated, app("Never"));
    const moved = place(policy, inM1(policy), { unhealthySince: { m1: T0 - 60_000 } }).desired;
    const later = place(policy, withStatus(moved, [unhealthy("m1"), healthy("m2", 2)]), { now: T0 + 86_400_000 }).desired;
    assert.equal(names(later), "m1=2 m2=2");
    assert.equal(tasks(later), "m1:ApplicationFailure:Never");
    const after = place(policyOf(aggregated, app("Gracefully")), withStatus(later, [unhealthy("m1"), healthy("m2", 2)]), { now: T0 + 86_500_000 }).desired;
    assert.equal(names(after), "m2=2");
    assert.equal(tasks(after), "");
  });

  it("Duplicated: the others already run it, so a Gracefully task ends at once and the cluster is chosen again (its copy made anew)", () => {
    const policy = policyOf(both, app("Gracefully"));
    const running = withStatus(place(policy, undefined).desired, [unhealthy("m1"), healthy("m2", 2)]);
    const moved = place(policy, running, { unhealthySince: { m1: T0 - 60_000 } }).desired;
    assert.equal(names(moved), "m2=2");
    assert.equal(tasks(moved), "");
    assert.equal(names(place(policy, withStatus(moved, [healthy("m2", 2)]), { now: T0 + 1000 }).desired), "m1=2 m2=2");
  });

  it("Duplicated with Never: the failing copy stays in place and out of the schedule", () => {
    const policy = policyOf(both, app("Never"));
    const running = withStatus(place(policy, undefined).desired, [unhealthy("m1"), healthy("m2", 2)]);
    const moved = place(policy, running, { unhealthySince: { m1: T0 - 60_000 } }).desired;
    assert.equal(names(moved), "m1=2 m2=2");
    assert.equal(tasks(moved), "m1:ApplicationFailure:Never");
  });

  it("no other cluster takes it: it stays where it is, and the binding says why", () => {
    const policy = policyOf({ clusterAffinity: { clusterNames: ["m1"] } }, app("Directly"));
    const placed = place(policy, inM1(policy), { unhealthySince: { m1: T0 - 600_000 } });
    assert.equal(names(placed.desired), "m1=2");
    assert.equal(tasks(placed.desired), "");
    assert.match(placed.outcome?.unschedulable ?? "", /Unhealthy in m1 past tolerationSeconds, but no other cluster takes it/);
    assert.deepEqual(placed.unhealthySince, { m1: T0 - 600_000 }, "it moves as soon as another cluster can take it");
  });

  it("without spec.failover.application an Unhealthy copy stays", () => {
    const policy = policyOf(aggregated, {});
    const placed = place(policy, inM1(policy), { unhealthySince: { m1: T0 - 600_000 } });
    assert.equal(names(placed.desired), "m1=2");
    assert.equal(placed.unhealthySince, undefined);
  });

  it("the binding carries the policy's failover (Karmada's binding does)", () => {
    const policy = policyOf(aggregated, app("Never"));
    assert.deepEqual(place(policy, undefined).desired.spec.failover, policy.spec.failover);
  });
});

describe("cluster failover purge modes (a not-Ready cluster's Divided share)", () => {
  const lost = (failover: FailoverBehavior) => {
    const policy = policyOf(weighted, failover);
    const before = withStatus(place(policy, undefined).desired, [{ ...healthy("m1", 1), status: { availableReplicas: 1, replicas: 1 } }, healthy("m2", 1)]);
    return place(policy, before, { live: [cluster("m1", false), cluster("m2")] }).desired;
  };
  it("Gracefully (default): m1 keeps its copy while m2 takes the share", () => {
    const b = lost({});
    assert.equal(names(b), "m1=1 m2=2");
    assert.equal(tasks(b), "m1:ClusterNotReady:-");
  });
  it("Directly: m1 keeps nothing; its task carries the state for m2", () => {
    const b = lost({ cluster: { purgeMode: "Directly", statePreservation: { rules: [{ aliasLabelName: "replicas", jsonPath: "{.replicas}" }] } } });
    assert.equal(names(b), "m2=2");
    assert.equal(tasks(b), "m1:ClusterNotReady:Directly");
    assert.deepEqual(b.spec.gracefulEvictionTasks?.[0]?.preservedLabelState, { replicas: "1" });
    assert.deepEqual(preservedLabelsFor(b.spec)("m2"), undefined, "m2 ran it before the failover: no labels");
  });
  it("Never: m1 keeps its copy, and the task suppresses its deletion", () => {
    const b = lost({ cluster: { purgeMode: "Never" } });
    assert.equal(names(b), "m1=1 m2=2");
    assert.equal(b.spec.gracefulEvictionTasks?.[0]?.suppressDeletion, true);
  });
  it("Never, then the policy says Gracefully: the task follows it and lets the copy go once the replacement ran its period", () => {
    const kept = lost({ cluster: { purgeMode: "Never" } });
    const policy = policyOf(weighted, { cluster: { purgeMode: "Gracefully" } });
    const live = [cluster("m1", false), cluster("m2")];
    const first = place(policy, withStatus(kept, [healthy("m2", 2)]), { live, now: T0 + 400_000 });
    assert.equal(tasks(first.desired), "m1:ClusterNotReady:Gracefully");
    assert.equal(first.desired.spec.gracefulEvictionTasks?.[0]?.suppressDeletion, undefined);
    const done = place(policy, withStatus(first.desired, [healthy("m2", 2)]), { live, now: T0 + 800_000, ...(first.availableSince ? { availableSince: first.availableSince } : {}) }).desired;
    assert.equal(names(done), "m2=2");
    assert.equal(tasks(done), "");
  });
});
