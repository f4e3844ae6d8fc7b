import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type Cluster, type KubeObject, LABELS, type PropagationPolicy, type ResourceBinding } from "../../shared/api/types.ts";
import { InterpreterError, type KindInterpreter } from "../../shared/interpreter/interpreter.ts";
import { type PlacementInput, placeTemplate, QUOTA_RECHECK_MS, type QuotaGuard } from "./template-placement.ts";
import { NATIVE_INTERPRETERS } from "../../shared/interpreter/registry.ts";

const ready = (name: string): Cluster => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "Cluster",
  metadata: { name },
  spec: {},
  status: { conditions: [{ type: "Ready", status: "True", reason: "Ready", message: "", lastTransitionTime: "2026-01-01T00:00:00Z" }] },
});
const [member1, member2] = [ready("member1"), ready("member2")];
const widget: KubeObject = { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w", namespace: "ns", uid: "u1" }, spec: { size: 6 } };
const policy: PropagationPolicy = {
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "PropagationPolicy",
  metadata: { name: "p", namespace: "ns" },
  spec: {
    resourceSelectors: [{ apiVersion: "example.com/v1", kind: "Widget" }],
    placement: { clusterAffinity: { clusterNames: ["member1", "member2"] }, replicaScheduling: { replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted", weightPreference: { staticWeightList: [{ targetCluster: {}, weight: 1 }] } } },
  },
};
const place = (interpreter: KindInterpreter | undefined) =>
  placeTemplate({ template: widget, policy, existing: undefined, live: [member1, member2], requireAcceptance: false, now: 0, evictionPeriodMs: 0, requiredBy: [], interpreter });

describe("placeTemplate", () => {
  it("divides the replicas a customization's GetReplicas reads at a path of its own", () => {
    const placed = place({ getReplicas: (o) => ({ replicas: (o.spec as { size: number }).size }) });
    assert.ok("desired" in placed);
    assert.equal(placed.desired.spec.replicas, 6);
    assert.deepEqual(placed.desired.spec.clusters, [{ name: "member1", replicas: 3 }, { name: "member2", replicas: 3 }]);
  });

  it("a kind without replicas of any interpreter is placed whole", () => {
    const placed = place(undefined);
    assert.ok("desired" in placed);
    assert.deepEqual(placed.desired.spec.clusters, [{ name: "member1" }, { name: "member2" }]);
  });

  it("a script that fails is an answer: InterpreterFailed with the operation and message, and no binding", () => {
    const placed = place({
      getReplicas: () => {
        throw new InterpreterError("InterpretReplica", "luaScript:2: attempt to index a nil value (field 'spec')");
      },
    });
    assert.deepEqual(placed, { interpreterFailed: "InterpretReplica: luaScript:2: attempt to index a nil value (field 'spec')" });
  });

  it("any other error is a programming error and is thrown", () => {
    assert.throws(
      () =>
        place({
          getReplicas: () => {
            throw new TypeError("boom");
          },
        }),
      TypeError,
    );
  });

  it("records a multi-component workload's components on the binding and places the whole set on one cluster (Divided)", () => {
    const components = [
      { name: "jobmanager", replicas: 1, replicaRequirements: { resourceRequest: { cpu: "1" } } },
      { name: "taskmanager", replicas: 2, replicaRequirements: { resourceRequest: { cpu: "2" } } },
    ];
    const placed = place({ getComponents: () => components });
    assert.ok("desired" in placed);
    assert.deepEqual(placed.desired.spec.components, components);
    assert.deepEqual(placed.desired.spec.clusters, [{ name: "member1" }], "one cluster, no replica count to revise");
  });

  it("a GetComponents script that fails: InterpreterFailed naming InterpretComponent, and no binding (the current one stays)", () => {
    const failing: KindInterpreter = {
      getReplicas: (o) => ({ replicas: (o.spec as { size: number }).size }),
      getComponents: () => {
        throw new InterpreterError("InterpretComponent", "luaScript:3: attempt to index a nil value (field 'taskManager')");
      },
    };
    assert.deepEqual(place(failing), { interpreterFailed: "InterpretComponent: luaScript:3: attempt to index a nil value (field 'taskManager')" });
    const dependency = placeTemplate({ template: widget, policy: undefined, existing: undefined, live: [member1], requireAcceptance: false, now: 0, evictionPeriodMs: 0, requiredBy: [{ name: "parent", clusters: ["member1"] }], interpreter: failing });
    assert.ok("interpreterFailed" in dependency, "a dependency placed with its parents too");
  });
});

describe("placeTemplate, a fresh reschedule", () => {
  const T = "2026-11-24T10:00:00Z";
  const sized = (name: string, usedCpu: string): Cluster => ({ ...ready(name), status: { ...ready(name).status, resourceSummary: { allocatable: { cpu: "8", pods: "110" }, allocated: { cpu: usedCpu, pods: "0" } } } });
  const web: KubeObject = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: "ns", uid: "u2" }, spec: { replicas: 6, template: { spec: { containers: [{ name: "c", resources: { requests: { cpu: "1" } } }] } } } };
  // At most one cluster: it stays where it runs, unless a fresh reschedule picks again (by room, then name).
  const oneCluster: PropagationPolicy = {
    ...policy,
    spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment" }], placement: { replicaScheduling: { replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted", weightPreference: { dynamicWeight: "AvailableReplicas" } }, spreadConstraints: [{ spreadByField: "cluster", maxGroups: 1, minGroups: 1 }] } },
  };
  const live = [sized("member1", "0"), sized("member2", "6")];
  const first = placeTemplate({ template: web, policy: oneCluster, existing: undefined, live, requireAcceptance: false, now: 0, evictionPeriodMs: 0, requiredBy: [], interpreter: undefined });
  assert.ok("desired" in first);
  const onMember2 = { ...first.desired, spec: { ...first.desired.spec, clusters: [{ name: "member2", replicas: 6 }] } };
  const at = (existing: ResourceBinding, fresh: { freshTrigger?: string; served?: string }, now = 1000) =>
    placeTemplate({ template: web, policy: oneCluster, existing, live, requireAcceptance: false, now, evictionPeriodMs: 0, requiredBy: [], interpreter: undefined, ...fresh });

  it("without a trigger it stays where it runs", () => {
    const placed = at(onMember2, {});
    assert.ok("desired" in placed);
    assert.deepEqual(placed.desired.spec.clusters, [{ name: "member2", replicas: 6 }]);
    assert.equal(placed.desired.metadata.annotations, undefined);
  });

  it("with one it schedules afresh, holds the Ready cluster it leaves (add first), and records the trigger served in the same binding", () => {
    const placed = at(onMember2, { freshTrigger: T });
    assert.ok("desired" in placed);
    assert.deepEqual(placed.desired.spec.clusters, [{ name: "member1", replicas: 6 }, { name: "member2", replicas: 6 }]);
    assert.deepEqual(placed.desired.spec.gracefulEvictionTasks?.map((t) => [t.fromCluster, t.replicas, t.reason]), [["member2", 6, "FreshReschedule"]]);
    assert.deepEqual(placed.desired.metadata.annotations, { "flotilla.dev/reschedule-served": T });
    assert.equal(placed.served, T);
    assert.ok(placed.recheckAfterMs !== undefined, "looked at again while the copy is held");

    // The next (ordinary) schedule builds on the fresh one, not on the held copy, and carries what was served.
    const next = at(placed.desired, { served: T }, 2000);
    assert.ok("desired" in next);
    assert.deepEqual(next.desired.spec.clusters, placed.desired.spec.clusters);
    assert.deepEqual(next.desired.metadata.annotations, { "flotilla.dev/reschedule-served": T });
    // member1 runs its 6 Available: member2 lets go.
    const available = { ...placed.desired, status: { aggregatedStatus: [{ clusterName: "member1", applied: true, health: "Healthy" as const, status: { availableReplicas: 6 } }] } };
    const released = at(available, { served: T }, 3000);
    assert.ok("desired" in released);
    assert.deepEqual(released.desired.spec.clusters, [{ name: "member1", replicas: 6 }]);
    assert.equal(released.desired.spec.gracefulEvictionTasks, undefined);
  });
});

describe("placeTemplate: replicas whose pods stay Unschedulable move (unschedulable-moves.ts)", () => {
  const roomy = (c: Cluster, cpu: string, used: string): Cluster => ({ ...c, status: { ...c.status, resourceSummary: { allocatable: { cpu, pods: "110" }, allocated: { cpu: used, pods: "0" } } } });
  const clusters = [roomy(member1, "4", "3"), roomy(member2, "3", "2")];
  const web: KubeObject = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "ns", uid: "u2" },
    spec: { replicas: 6, template: { spec: { containers: [{ name: "c", resources: { requests: { cpu: "1" } } }] } } },
  };
  const dynamic: PropagationPolicy = { ...policy, spec: { ...policy.spec, resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment" }], placement: { clusterAffinity: { clusterNames: ["member1", "member2"] }, replicaScheduling: { replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted", weightPreference: { dynamicWeight: "AvailableReplicas" } } } } };
  const first = placeTemplate({ template: web, policy: dynamic, existing: undefined, live: clusters, requireAcceptance: false, now: 0, evictionPeriodMs: 0, requiredBy: [], interpreter: undefined });
  assert.ok("desired" in first);
  const T = Date.parse("2026-11-24T10:00:00Z");
  const withStatus = (items: object[]) => ({ ...first.desired, spec: { ...first.desired.spec, clusters: [{ name: "member1", replicas: 3 }, { name: "member2", replicas: 3 }] }, status: { aggregatedStatus: items } }) as typeof first.desired;
  const again = (existing: typeof first.desired, now: number) =>
    placeTemplate({ template: web, policy: dynamic, existing, live: clusters, requireAcceptance: false, now, evictionPeriodMs: 0, requiredBy: [], interpreter: undefined, unschedulableThresholdMs: 300_000 });

  it("past the threshold: the move is recorded, member1 gets the replica and member2 keeps 3 until it runs", () => {
    const existing = withStatus([
      { clusterName: "member1", applied: true, health: "Healthy", status: { availableReplicas: 3 } },
      { clusterName: "member2", applied: true, health: "Progressing", unschedulableReplicas: 1, unschedulableSince: new Date(T - 300_000).toISOString() },
    ]);
    const placed = again(existing, T);
    assert.ok("desired" in placed);
    assert.deepEqual(placed.desired.spec.clusters, [{ name: "member1", replicas: 4 }, { name: "member2", replicas: 3 }]);
    assert.deepEqual(placed.desired.spec.replicaMoves, [{ fromCluster: "member2", replicas: 1, had: 3, keep: 2, reason: "Unschedulable", creationTimestamp: new Date(T).toISOString(), freeAtMove: 1 }]);
    assert.equal(placed.recheckAfterMs, 300_000);
  });

  it("before the threshold nothing moves, and it looks again when the threshold is reached", () => {
    const existing = withStatus([{ clusterName: "member2", applied: true, unschedulableReplicas: 1, unschedulableSince: new Date(T - 100_000).toISOString() }]);
    const placed = again(existing, T);
    assert.ok("desired" in placed);
    assert.deepEqual(placed.desired.spec.clusters, [{ name: "member1", replicas: 3 }, { name: "member2", replicas: 3 }]);
    assert.equal(placed.desired.spec.replicaMoves, undefined);
    assert.equal(placed.recheckAfterMs, 200_000);
  });
});

/** placeTemplate over member1 and member2, now 0, no interpreter, with the rest given. */
const placeOnTwo = (input: Pick<PlacementInput, "template" | "policy" | "existing"> & Partial<PlacementInput>) =>
  placeTemplate({ live: [member1, member2], requireAcceptance: false, now: 0, evictionPeriodMs: 0, requiredBy: [], interpreter: undefined, ...input });

describe("placeTemplate: how the policy takes effect (issue 26)", () => {
  const existing: ResourceBinding = {
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "ResourceBinding",
    metadata: { name: "w-widget-0", namespace: "ns", labels: { "flotilla.dev/policy-name": "p", "flotilla.dev/policy-namespace": "ns" } },
    spec: { resource: { apiVersion: "example.com/v1", kind: "Widget", name: "w", namespace: "ns", uid: "u1" }, clusters: [{ name: "member1" }], placement: { clusterAffinity: { clusterNames: ["member1"] } }, conflictResolution: "Abort" },
  };
  const run = (spec: Partial<PropagationPolicy["spec"]>, opts: { existing?: ResourceBinding; template?: KubeObject; overrides?: string[] } = {}) =>
    placeOnTwo({
      template: opts.template ?? widget,
      policy: { ...policy, spec: { ...policy.spec, placement: { clusterAffinity: { clusterNames: ["member2"] } }, ...spec } },
      existing: opts.existing,
      overrideExists: (n) => (opts.overrides ?? []).includes(n),
    });

  it("a schedulerName Flotilla does not serve keeps the binding's clusters and says SchedulerNameNotServed", () => {
    const placed = run({ schedulerName: "volcano" }, { existing });
    assert.ok("desired" in placed);
    assert.deepEqual(placed.desired.spec.clusters, [{ name: "member1" }]);
    assert.deepEqual(placed.desired.spec.placement, existing.spec.placement);
    assert.equal(placed.outcome?.held?.reason, "SchedulerNameNotServed");
  });
  it("a new template under such a policy gets a binding with no clusters", () => {
    const placed = run({ schedulerName: "volcano" });
    assert.ok("desired" in placed);
    assert.deepEqual(placed.desired.spec.clusters, []);
  });
  it("dependentOverrides wait until the override policy exists, then the policy takes effect", () => {
    const waiting = run({ dependentOverrides: ["web-op"] }, { existing });
    assert.ok("desired" in waiting);
    assert.deepEqual(waiting.desired.spec.clusters, [{ name: "member1" }]);
    assert.equal(waiting.outcome?.held?.reason, "DependentOverridesMissing");
    const present = run({ dependentOverrides: ["web-op"] }, { existing, overrides: ["web-op"] });
    assert.ok("desired" in present);
    assert.deepEqual(present.desired.spec.clusters, [{ name: "member2" }]);
    assert.equal(present.outcome?.held, undefined);
  });
  it("Lazy: a policy change waits for the template's next change", () => {
    const first = run({ activationPreference: "Lazy" }, { existing: undefined });
    assert.ok("desired" in first);
    const stamp = first.desired.metadata.annotations?.["flotilla.dev/template-stamp"];
    assert.ok(stamp, "the binding records the template's stamp");
    const stampedExisting = { ...existing, metadata: { ...existing.metadata, annotations: { "flotilla.dev/template-stamp": stamp } } };
    const deferred = run({ activationPreference: "Lazy" }, { existing: stampedExisting });
    assert.ok("desired" in deferred);
    assert.deepEqual(deferred.desired.spec.clusters, [{ name: "member1" }], "the policy now says member2; the template did not change");
    assert.equal(deferred.desired.metadata.annotations?.["flotilla.dev/template-stamp"], stamp);
    const changed = run({ activationPreference: "Lazy" }, { existing: stampedExisting, template: { ...widget, spec: { size: 7 } } });
    assert.ok("desired" in changed);
    assert.deepEqual(changed.desired.spec.clusters, [{ name: "member2" }]);
    assert.notEqual(changed.desired.metadata.annotations?.["flotilla.dev/template-stamp"], stamp);
  });
  it("schedulePriority: the binding records the PriorityClass's value; a missing class holds the policy", () => {
    const schedulePriority = { priorityClassSource: "KubePriorityClass" as const, priorityClassName: "critical" };
    const withClass = placeOnTwo({ template: widget, policy: { ...policy, spec: { ...policy.spec, schedulePriority } }, existing: undefined, priorityValue: (n) => (n === "critical" ? 1000 : undefined) });
    assert.ok("desired" in withClass);
    assert.deepEqual(withClass.desired.spec.schedulePriority, { priority: 1000 });
    const missing = placeOnTwo({ template: widget, policy: { ...policy, spec: { ...policy.spec, schedulePriority } }, existing, priorityValue: () => undefined });
    assert.ok("desired" in missing);
    assert.equal(missing.outcome?.held?.reason, "PriorityClassNotFound");
    assert.deepEqual(missing.desired.spec.clusters, [{ name: "member1" }], "the binding keeps what it has");
  });
});

describe("placeTemplate: workloadAffinity (Karmada v1.19)", () => {
  const grouped = { ...widget, metadata: { ...widget.metadata, labels: { "app.group": "fe" } } };
  const run = (workloadAffinity: NonNullable<PropagationPolicy["spec"]["placement"]>["workloadAffinity"], peers: string[]) =>
    placeOnTwo({
      template: grouped,
      policy: { ...policy, spec: { ...policy.spec, placement: { clusterAffinity: { clusterNames: ["member1", "member2"] }, workloadAffinity } } },
      existing: undefined,
      groupPeers: (key, value) => new Set(key === "app.group" && value === "fe" ? peers : []),
    });
  it("affinity: only the clusters its group is on", () => {
    const placed = run({ affinity: { groupByLabelKey: "app.group" } }, ["member2"]);
    assert.ok("desired" in placed);
    assert.deepEqual(placed.desired.spec.clusters, [{ name: "member2" }]);
  });
  it("antiAffinity: not the clusters its group is on", () => {
    const placed = run({ antiAffinity: { groupByLabelKey: "app.group" } }, ["member2"]);
    assert.ok("desired" in placed);
    assert.deepEqual(placed.desired.spec.clusters, [{ name: "member1" }]);
    assert.equal(placed.outcome?.unacted, undefined, "acted on, so not reported");
  });
});

// Issue 26: a schedule the quota guard refuses is not written; the binding keeps its last clusters, says why, and is looked at again.
const web: KubeObject = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: "shop", uid: "u1" }, spec: { replicas: 2, template: { spec: { containers: [{ name: "c", image: "nginx" }] } } } };
const webPolicy: PropagationPolicy = {
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "PropagationPolicy",
  metadata: { name: "p", namespace: "shop" },
  spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment" }], placement: { clusterAffinity: { clusterNames: ["member1", "member2"] } } },
};
const placeWeb = (existing: ResourceBinding | undefined, guard: QuotaGuard, claimed = true) =>
  placeTemplate({ template: web, policy: claimed ? webPolicy : undefined, existing, live: [ready("member1"), ready("member2")], requireAcceptance: false, now: 0, evictionPeriodMs: 0, requiredBy: [], interpreter: NATIVE_INTERPRETERS.for(web), quotaGuard: guard });
const onMember1 = (): ResourceBinding => {
  const placed = placeWeb(undefined, () => undefined);
  assert.ok("desired" in placed);
  return { ...placed.desired, spec: { ...placed.desired.spec, clusters: [{ name: "member1", replicas: 2 }] } };
};

describe("placeTemplate with a quota guard", () => {
  it("a schedule the guard allows is written as scheduled", () => {
    const placed = placeWeb(onMember1(), () => undefined);
    assert.ok("desired" in placed);
    assert.deepEqual(placed.desired.spec.clusters.map((c) => c.name), ["member1", "member2"]);
    assert.equal(placed.outcome?.quotaExceeded, undefined);
  });
  it("a schedule past a quota keeps the clusters the binding has (nothing removed, nothing added), says why, and is looked at again", () => {
    let seen: [string[] | undefined, string[]] | undefined;
    const placed = placeWeb(onMember1(), (_t, existing, desired) => {
      seen = [existing?.spec.clusters.map((c) => c.name), desired.spec.clusters.map((c) => c.name)];
      return "FederatedResourceQuota(shop/team) exceeded for resource cpu";
    });
    assert.ok("desired" in placed);
    assert.deepEqual(seen, [["member1"], ["member1", "member2"]], "the guard judges the schedule against the binding as it is");
    assert.deepEqual(placed.desired.spec.clusters, [{ name: "member1", replicas: 2 }]);
    assert.equal(placed.outcome?.quotaExceeded, "FederatedResourceQuota(shop/team) exceeded for resource cpu");
    assert.equal(placed.recheckAfterMs, QUOTA_RECHECK_MS);
  });
  it("a new template past a quota is scheduled nowhere", () => {
    const placed = placeWeb(undefined, () => "exceeded");
    assert.ok("desired" in placed);
    assert.deepEqual(placed.desired.spec.clusters, []);
  });
  it("a dependency placed with its parents (no policy) is not the guard's: it follows them", () => {
    const placed = placeWeb(undefined, () => assert.fail("asked"), false);
    assert.ok("desired" in placed);
  });
});

// A binding written with no earlier one (a new template, or one deleted by hand or lost in a
// restore) while its placement cannot be decided says its clusters are unknown, so the hub reads
// no removal from them (hub/deletion-intent.ts); the first placement decided drops the word.
describe("placeTemplate: a placement not decided is marked unknown (flotilla.dev/placement-unknown)", () => {
  const unknownOf = (placed: ReturnType<typeof placeTemplate>) => {
    assert.ok("desired" in placed);
    return placed.desired.metadata.annotations?.[LABELS.placementUnknown];
  };
  const heldBy = (spec: Partial<PropagationPolicy["spec"]>): PropagationPolicy => ({ ...webPolicy, spec: { ...webPolicy.spec, ...spec } });
  const holds: { name: string; policy: PropagationPolicy; reason: string; lifted: Partial<PlacementInput> }[] = [
    { name: "a schedulerName Flotilla does not serve", policy: heldBy({ schedulerName: "volcano" }), reason: "SchedulerNameNotServed", lifted: { policy: webPolicy } },
    { name: "dependentOverrides missing", policy: heldBy({ dependentOverrides: ["web-op"] }), reason: "DependentOverridesMissing", lifted: { overrideExists: () => true } },
    { name: "a PriorityClass missing", policy: heldBy({ schedulePriority: { priorityClassSource: "KubePriorityClass", priorityClassName: "critical" } }), reason: "PriorityClassNotFound", lifted: { priorityValue: () => 1000 } },
  ];
  const placeHeld = (policy: PropagationPolicy, existing: ResourceBinding | undefined, extra: Partial<PlacementInput> = {}) =>
    placeTemplate({ template: web, policy, existing, live: [ready("member1"), ready("member2")], requireAcceptance: false, now: 0, evictionPeriodMs: 0, requiredBy: [], interpreter: NATIVE_INTERPRETERS.for(web), overrideExists: () => false, priorityValue: () => undefined, ...extra });
  for (const h of holds) {
    it(`held (${h.name}) with no earlier binding: no cluster, the hold's reason; kept while held; gone once placed`, () => {
      const made = placeHeld(h.policy, undefined);
      assert.equal(unknownOf(made), h.reason);
      assert.ok("desired" in made);
      assert.deepEqual(made.desired.spec.clusters, []);
      assert.equal(unknownOf(placeHeld(h.policy, made.desired)), h.reason, "still held: still unknown");
      const placed = placeHeld(h.policy, made.desired, h.lifted);
      assert.equal(unknownOf(placed), undefined, "decided");
      assert.ok("desired" in placed);
      assert.deepEqual(placed.desired.spec.clusters.map((c) => c.name), ["member1", "member2"]);
    });
  }
  it("held with an earlier binding: its clusters were decided, nothing is marked", () => {
    assert.equal(unknownOf(placeHeld(heldBy({ schedulerName: "volcano" }), onMember1())), undefined);
  });
  it("past a quota with no earlier binding: QuotaExceeded, kept while exceeded, gone once the guard allows", () => {
    const made = placeWeb(undefined, () => "exceeded");
    assert.equal(unknownOf(made), "QuotaExceeded");
    assert.ok("desired" in made);
    assert.equal(unknownOf(placeWeb(made.desired, () => "exceeded")), "QuotaExceeded");
    assert.equal(unknownOf(placeWeb(made.desired, () => undefined)), undefined);
  });
  it("a policy that cannot be scheduled (an error) keeps the clusters: undecided stays undecided, a new template is marked ScheduleFailed", () => {
    const impossible: PropagationPolicy = { ...webPolicy, spec: { ...webPolicy.spec, placement: { ...webPolicy.spec.placement, spreadConstraints: [{ spreadByField: "cluster", minGroups: 3, maxGroups: 3 }] } } };
    const place = (existing: ResourceBinding | undefined, guard: QuotaGuard) =>
      placeTemplate({ template: web, policy: impossible, existing, live: [ready("member1"), ready("member2")], requireAcceptance: false, now: 0, evictionPeriodMs: 0, requiredBy: [], interpreter: NATIVE_INTERPRETERS.for(web), quotaGuard: guard });
    const made = placeWeb(undefined, () => "exceeded");
    assert.ok("desired" in made);
    const failed = place(made.desired, () => undefined);
    assert.ok("desired" in failed);
    assert.deepEqual(failed.desired.spec.clusters, []);
    assert.equal(unknownOf(failed), "QuotaExceeded", "room in the quota, but no schedule: still undecided");
    assert.equal(unknownOf(place(undefined, () => undefined)), "ScheduleFailed");
    assert.equal(unknownOf(place(onMember1(), () => undefined)), undefined, "an earlier binding's clusters were decided");
  });
  it("past a quota with an earlier binding: the clusters it keeps were decided, nothing is marked", () => {
    assert.equal(unknownOf(placeWeb(onMember1(), () => "exceeded")), undefined);
  });
  it("no policy claims it while a workload requires it: the word stays with the clusters it keeps", () => {
    const made = placeWeb(undefined, () => "exceeded");
    assert.ok("desired" in made);
    const kept = placeTemplate({ template: web, policy: undefined, existing: made.desired, live: [ready("member1"), ready("member2")], requireAcceptance: false, now: 0, evictionPeriodMs: 0, requiredBy: [{ name: "app-deployment", clusters: ["member2"] }], interpreter: NATIVE_INTERPRETERS.for(web) });
    assert.equal(unknownOf(kept), "QuotaExceeded");
  });
});

describe("placeTemplate: a dependency whose policy let go of it (issue 37, found by the deletion model)", () => {
  const config: KubeObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "conf", namespace: "ns", uid: "u2" } };
  const [member3] = [ready("member3")];
  const byPolicy: ResourceBinding = {
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "ResourceBinding",
    metadata: { name: "conf-configmap", namespace: "ns", labels: { [LABELS.policyName]: "p", [LABELS.policyNamespace]: "ns" } },
    spec: {
      resource: { apiVersion: "v1", kind: "ConfigMap", namespace: "ns", name: "conf", uid: "u2" },
      clusters: [{ name: "member1" }, { name: "member2" }, { name: "member3" }],
      conflictResolution: "Abort",
      preserveResourcesOnDeletion: true,
      requiredBy: [{ name: "web-deployment", clusters: ["member1"] }],
    },
  };
  const placeConf = (existing: ResourceBinding | undefined, requiredBy: { name: string; clusters: string[] }[]) =>
    placeTemplate({ template: config, policy: undefined, existing, live: [member1, member2, member3], requireAcceptance: false, now: 0, evictionPeriodMs: 0, requiredBy, interpreter: undefined });

  const cases: { name: string; existing: ResourceBinding | undefined; requiredBy: { name: string; clusters: string[] }[]; clusters: string[]; policyLabel: string | undefined; unclaimed: boolean }[] = [
    {
      name: "a binding its policy made keeps its last placement and its policy's labels, and adds where the workload needs it",
      existing: byPolicy,
      requiredBy: [{ name: "web-deployment", clusters: ["member1"] }],
      clusters: ["member1", "member2", "member3"],
      policyLabel: "p",
      unclaimed: true,
    },
    {
      name: "the workload needs it somewhere new: added, nothing taken",
      existing: { ...byPolicy, spec: { ...byPolicy.spec, clusters: [{ name: "member2" }] } },
      requiredBy: [{ name: "web-deployment", clusters: ["member1"] }],
      clusters: ["member1", "member2"],
      policyLabel: "p",
      unclaimed: true,
    },
    {
      name: "a dependency's own binding (no policy ever placed it) follows its workloads",
      existing: { ...byPolicy, metadata: { ...byPolicy.metadata, labels: {} } },
      requiredBy: [{ name: "web-deployment", clusters: ["member1"] }],
      clusters: ["member1"],
      policyLabel: undefined,
      unclaimed: false,
    },
    { name: "a new dependency goes where its workloads are", existing: undefined, requiredBy: [{ name: "web-deployment", clusters: ["member3"] }], clusters: ["member3"], policyLabel: undefined, unclaimed: false },
  ];
  it("a fresh reschedule asked for meanwhile is recorded served by the same write (else the controller requeues it for ever)", () => {
    const placed = placeTemplate({ template: config, policy: undefined, existing: byPolicy, live: [member1, member2, member3], requireAcceptance: false, now: 0, evictionPeriodMs: 0, requiredBy: [{ name: "web-deployment", clusters: ["member1"] }], interpreter: undefined, freshTrigger: "2026-11-30T12:00:00Z" });
    assert.ok("desired" in placed);
    assert.equal(placed.desired.metadata.annotations?.[LABELS.rescheduleServed], "2026-11-30T12:00:00Z");
  });

  for (const c of cases) {
    it(c.name, () => {
      const placed = placeConf(c.existing, c.requiredBy);
      assert.ok("desired" in placed);
      assert.deepEqual(
        placed.desired.spec.clusters.map((t) => t.name),
        c.clusters,
      );
      assert.deepEqual(placed.desired.spec.requiredBy, c.requiredBy);
      assert.equal(placed.desired.metadata.labels?.[LABELS.policyName], c.policyLabel);
      assert.equal(placed.outcome?.unclaimed !== undefined, c.unclaimed);
      if (c.unclaimed) {
        assert.equal(placed.desired.spec.preserveResourcesOnDeletion, true, "the policy's fields stay on the binding");
        assert.match(placed.outcome?.unclaimed ?? "", /keeps its last placement \(member[0-9, member]+\) and follows the workloads that need it \(web-deployment\)/);
      }
    });
  }
});

describe("placeTemplate: what a workload refers to, while followed, is stamped on its binding (issue 37)", () => {
  const web: KubeObject = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: "ns", uid: "u3" }, spec: { replicas: 2 } };
  const withDeps = (propagateDeps: boolean): PropagationPolicy => ({
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "PropagationPolicy",
    metadata: { name: "p", namespace: "ns" },
    spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment" }], placement: { clusterAffinity: { clusterNames: ["member1"] } }, ...(propagateDeps ? { propagateDeps: true } : {}) },
  });
  const requires = ["core/v1/Secret/ns/token", "core/v1/ConfigMap/ns/conf"];
  const cases: { name: string; policy: PropagationPolicy; requires: string[]; want: string | undefined }[] = [
    { name: "under propagateDeps: the keys, sorted", policy: withDeps(true), requires, want: "core/v1/ConfigMap/ns/conf,core/v1/Secret/ns/token" },
    { name: "under propagateDeps, requiring nothing: none", policy: withDeps(true), requires: [], want: undefined },
    { name: "without propagateDeps, still referring to what it held: the keys too", policy: withDeps(false), requires, want: "core/v1/ConfigMap/ns/conf,core/v1/Secret/ns/token" },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const placed = placeTemplate({ template: web, policy: c.policy, existing: undefined, live: [member1], requireAcceptance: false, now: 0, evictionPeriodMs: 0, requiredBy: [], requires: c.requires, interpreter: undefined });
      assert.ok("desired" in placed);
      assert.equal(placed.desired.metadata.annotations?.[LABELS.requires], c.want);
    });
  }
});
