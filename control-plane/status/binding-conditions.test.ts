import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AggregatedStatusItem, Condition } from "../../shared/api/types.ts";
import { bindingConditions, conditionsEqual } from "./binding-conditions.ts";
import type { BindingConditionsInput } from "./binding-conditions.ts";

const T0 = "2025-01-01T00:00:00Z";
const T1 = "2025-01-01T00:05:00Z";

const ok = (cluster: string, hash = `h-${cluster}`): AggregatedStatusItem => ({
  clusterName: cluster,
  applied: true,
  health: "Healthy",
  reason: "",
  observedHash: hash,
});
const hashes = (...clusters: string[]) => Object.fromEntries(clusters.map((c) => [c, `h-${c}`]));

type Brief = [status: Condition["status"], reason: string, message: string];
interface Case {
  name: string;
  input: Omit<BindingConditionsInput, "now">;
  scheduled: Brief;
  fullyApplied: Brief;
  propagation: Brief;
}

const cases: Case[] = [
  {
    name: "every target applied at the current hash",
    input: { clusters: ["member1", "member2"], aggregated: [ok("member2"), ok("member1")], expectedHash: hashes("member1", "member2") },
    scheduled: ["True", "Scheduled", "scheduled to 2 clusters"],
    fullyApplied: ["True", "FullyApplied", "applied on 2 clusters"],
    propagation: ["True", "Propagated", "propagated to 2 clusters"],
  },
  {
    name: "an unhealthy but applied cluster still counts as propagated",
    input: {
      clusters: ["member1"],
      aggregated: [{ ...ok("member1"), health: "Unhealthy" }],
      expectedHash: hashes("member1"),
    },
    scheduled: ["True", "Scheduled", "scheduled to 1 cluster"],
    fullyApplied: ["True", "FullyApplied", "applied on 1 cluster"],
    propagation: ["True", "Propagated", "propagated to 1 cluster"],
  },
  {
    name: "a cluster whose agent has not reported yet",
    input: { clusters: ["member1", "member2"], aggregated: [ok("member1")], expectedHash: hashes("member1", "member2") },
    scheduled: ["True", "Scheduled", "scheduled to 2 clusters"],
    fullyApplied: ["False", "NotFullyApplied", "not yet applied on member2"],
    propagation: ["False", "CheckClusters", "member2: waiting for the agent"],
  },
  {
    name: "a cluster reporting an older hash",
    input: {
      clusters: ["member1", "member2"],
      aggregated: [ok("member1"), ok("member2", "h-old")],
      expectedHash: hashes("member1", "member2"),
    },
    scheduled: ["True", "Scheduled", "scheduled to 2 clusters"],
    fullyApplied: ["False", "NotFullyApplied", "not yet applied on member2"],
    propagation: ["False", "CheckClusters", "member2: applied an older version"],
  },
  {
    name: "status words with their messages, clusters in name order",
    input: {
      clusters: ["member3", "member1", "member2"],
      aggregated: [
        { clusterName: "member3", applied: false, reason: "AlreadyExists", message: "Deployment default/web exists", observedHash: "h-member3" },
        ok("member1"),
        { clusterName: "member2", applied: false, reason: "ManagedLabelFalse", observedHash: "h-member2" },
      ],
      expectedHash: hashes("member1", "member2", "member3"),
    },
    scheduled: ["True", "Scheduled", "scheduled to 3 clusters"],
    fullyApplied: ["False", "NotFullyApplied", "not yet applied on member2, member3"],
    propagation: [
      "False",
      "CheckClusters",
      "member2: ManagedLabelFalse; member3: AlreadyExists Deployment default/web exists",
    ],
  },
  {
    name: "applied=true with a status word is not applied",
    input: {
      clusters: ["member1"],
      aggregated: [{ ...ok("member1"), reason: "UpdateFailed", message: "admission webhook denied" }],
      expectedHash: hashes("member1"),
    },
    scheduled: ["True", "Scheduled", "scheduled to 1 cluster"],
    fullyApplied: ["False", "NotFullyApplied", "not yet applied on member1"],
    propagation: ["False", "CheckClusters", "member1: UpdateFailed admission webhook denied"],
  },
  {
    name: "an item without a status word that is not applied yet",
    input: {
      clusters: ["member1"],
      aggregated: [{ clusterName: "member1", applied: false, observedHash: "h-member1" }],
      expectedHash: hashes("member1"),
    },
    scheduled: ["True", "Scheduled", "scheduled to 1 cluster"],
    fullyApplied: ["False", "NotFullyApplied", "not yet applied on member1"],
    propagation: ["False", "CheckClusters", "member1: not applied yet"],
  },
  {
    name: "a target the hub holds no hash for is not applied",
    input: { clusters: ["member1"], aggregated: [{ clusterName: "member1", applied: true }], expectedHash: {} },
    scheduled: ["True", "Scheduled", "scheduled to 1 cluster"],
    fullyApplied: ["False", "NotFullyApplied", "not yet applied on member1"],
    propagation: ["False", "CheckClusters", "member1: waiting for the hub to render its work"],
  },
  {
    name: "a former target waiting for removal keeps Propagation False",
    input: {
      clusters: ["member1"],
      aggregated: [
        ok("member1"),
        { clusterName: "member2", applied: true, reason: "WaitingForRemoval", message: "agent has not confirmed removal" },
      ],
      expectedHash: hashes("member1"),
    },
    scheduled: ["True", "Scheduled", "scheduled to 1 cluster"],
    fullyApplied: ["True", "FullyApplied", "applied on 1 cluster"],
    propagation: ["False", "CheckClusters", "member2: WaitingForRemoval agent has not confirmed removal"],
  },
  {
    name: "a former target with a stale item and no status word is ignored",
    input: { clusters: ["member1"], aggregated: [ok("member1"), ok("member2")], expectedHash: hashes("member1") },
    scheduled: ["True", "Scheduled", "scheduled to 1 cluster"],
    fullyApplied: ["True", "FullyApplied", "applied on 1 cluster"],
    propagation: ["True", "Propagated", "propagated to 1 cluster"],
  },
  {
    name: "template deleted: no targets, every cluster waiting for removal",
    input: {
      clusters: [],
      aggregated: [
        { clusterName: "member2", reason: "WaitingForRemoval" },
        { clusterName: "member1", reason: "WaitingForRemoval" },
      ],
      expectedHash: {},
    },
    scheduled: ["True", "Scheduled", "scheduled to 0 clusters"],
    fullyApplied: ["False", "NotFullyApplied", "no target clusters"],
    propagation: ["False", "CheckClusters", "member1: WaitingForRemoval; member2: WaitingForRemoval"],
  },
  {
    name: "no targets and nothing left anywhere",
    input: { clusters: [], aggregated: [], expectedHash: {} },
    scheduled: ["True", "Scheduled", "scheduled to 0 clusters"],
    fullyApplied: ["False", "NotFullyApplied", "no target clusters"],
    propagation: ["True", "Propagated", "propagated to 0 clusters"],
  },
  {
    name: "placement failed with no clusters",
    input: { clusters: [], aggregated: [], expectedHash: {}, scheduleError: "no cluster matches the affinity" },
    scheduled: ["False", "ComputePlacementFailed", "no cluster matches the affinity"],
    fullyApplied: ["False", "NotFullyApplied", "no target clusters"],
    propagation: ["False", "ComputePlacementFailed", "no cluster matches the affinity"],
  },
  {
    name: "a schedule past a FederatedResourceQuota: Karmada's QuotaExceeded; the clusters keep what they run",
    input: { clusters: ["member1"], aggregated: [ok("member1")], expectedHash: hashes("member1"), quotaExceeded: "FederatedResourceQuota(shop/team) exceeded for resource cpu: requested sum 4, limit 2" },
    scheduled: ["False", "QuotaExceeded", "FederatedResourceQuota(shop/team) exceeded for resource cpu: requested sum 4, limit 2; the binding keeps its last schedule (1 cluster)"],
    fullyApplied: ["True", "FullyApplied", "applied on 1 cluster"],
    propagation: ["True", "Propagated", "propagated to 1 cluster"],
  },
  {
    name: "no cluster fits: NoClusterFit with the scheduler's reason",
    input: { clusters: [], aggregated: [], expectedHash: {}, unschedulable: "2 clusters selected, none Ready" },
    scheduled: ["False", "NoClusterFit", "2 clusters selected, none Ready"],
    fullyApplied: ["False", "NotFullyApplied", "no target clusters"],
    propagation: ["True", "Propagated", "propagated to 0 clusters"],
  },
  {
    name: "some replicas unplaced: the placed ones still run",
    input: { clusters: ["member1"], aggregated: [ok("member1")], expectedHash: hashes("member1"), unschedulable: "2 of 9 replicas unplaced: every cluster is full" },
    scheduled: ["False", "ReplicasUnplaced", "2 of 9 replicas unplaced: every cluster is full (scheduled to 1 cluster)"],
    fullyApplied: ["True", "FullyApplied", "applied on 1 cluster"],
    propagation: ["True", "Propagated", "propagated to 1 cluster"],
  },
  {
    name: "a placement error wins over unplaced replicas",
    input: { clusters: [], aggregated: [], expectedHash: {}, scheduleError: "bad weights", unschedulable: "9 of 9 replicas unplaced" },
    scheduled: ["False", "ComputePlacementFailed", "bad weights"],
    fullyApplied: ["False", "NotFullyApplied", "no target clusters"],
    propagation: ["False", "ComputePlacementFailed", "bad weights"],
  },
  {
    name: "placement failed while earlier targets are still applied",
    input: {
      clusters: ["member1", "member2"],
      aggregated: [ok("member1")],
      expectedHash: hashes("member1", "member2"),
      scheduleError: "cluster member9 not found",
    },
    scheduled: ["False", "ComputePlacementFailed", "cluster member9 not found"],
    fullyApplied: ["False", "NotFullyApplied", "not yet applied on member2"],
    propagation: ["False", "ComputePlacementFailed", "cluster member9 not found; member2: waiting for the agent"],
  },
  {
    name: "duplicate target names count once",
    input: { clusters: ["member1", "member1"], aggregated: [ok("member1")], expectedHash: hashes("member1") },
    scheduled: ["True", "Scheduled", "scheduled to 1 cluster"],
    fullyApplied: ["True", "FullyApplied", "applied on 1 cluster"],
    propagation: ["True", "Propagated", "propagated to 1 cluster"],
  },
];

describe("bindingConditions", () => {
  for (const c of cases) {
    it(c.name, () => {
      const got = bindingConditions({ ...c.input, now: T0 });
      const want = (type: string, [status, reason, message]: Brief): Condition => ({
        type,
        status,
        reason,
        message,
        lastTransitionTime: T0,
      });
      assert.deepEqual(got, [
        want("Scheduled", c.scheduled),
        want("FullyApplied", c.fullyApplied),
        want("Propagation", c.propagation),
      ]);
    });
  }

  it("says ReplicasMoved while a move of replicas off Unschedulable pods is in force, and nothing otherwise", () => {
    const moved = "1 of 3 replicas moved from member2 …";
    const got = bindingConditions({ clusters: ["member1"], aggregated: [ok("member1")], expectedHash: hashes("member1"), moved, now: T0 });
    assert.deepEqual(got.at(-1), { type: "ReplicasMoved", status: "True", reason: "Unschedulable", message: moved, lastTransitionTime: T0 });
    assert.equal(bindingConditions({ clusters: ["member1"], aggregated: [ok("member1")], expectedHash: hashes("member1"), now: T0 }).length, 3);
  });

  it("says Scheduled=False with the hold's reason while the policy cannot take effect (issue 26)", () => {
    const held = { reason: "DependentOverridesMissing", message: "PropagationPolicy ns/p waits for its dependentOverrides: OverridePolicy a not found" };
    const [scheduled] = bindingConditions({ clusters: ["member1"], aggregated: [ok("member1")], expectedHash: hashes("member1"), held, now: T0 });
    assert.deepEqual(scheduled, { type: "Scheduled", status: "False", ...held, lastTransitionTime: T0 });
  });

  it("says PolicyFieldsSupported=False while the policy sets a field Flotilla does not act on, and nothing otherwise", () => {
    const unacted = "PropagationPolicy ns/p sets spec.schedulePriority, which Flotilla accepts but does not act on yet";
    const got = bindingConditions({ clusters: ["member1"], aggregated: [ok("member1")], expectedHash: hashes("member1"), unacted, now: T0 });
    assert.deepEqual(got.at(-1), { type: "PolicyFieldsSupported", status: "False", reason: "FieldsNotActedOn", message: unacted, lastTransitionTime: T0 });
    assert.equal(got[0]?.status, "True", "still scheduled");
  });

  it("lists at most 20 clusters in a message and counts the rest", () => {
    const clusters = Array.from({ length: 25 }, (_, i) => `m${String(i).padStart(2, "0")}`);
    const [, fully, prop] = bindingConditions({ clusters, aggregated: [], expectedHash: {}, now: T0 });
    assert.match(fully?.message ?? "", /^not yet applied on m00, m01, .*, m19, and 5 more$/);
    assert.match(prop?.message ?? "", /^m00: waiting for the agent; .*; m19: waiting for the agent; and 5 more$/);
  });
});

describe("bindingConditions lastTransitionTime", () => {
  const applied: Omit<BindingConditionsInput, "now" | "previous"> = {
    clusters: ["member1"],
    aggregated: [ok("member1")],
    expectedHash: hashes("member1"),
  };
  const pending: Omit<BindingConditionsInput, "now" | "previous"> = {
    clusters: ["member1", "member2"],
    aggregated: [ok("member1")],
    expectedHash: hashes("member1", "member2"),
  };
  const times = (cs: Condition[]) => Object.fromEntries(cs.map((c) => [c.type, c.lastTransitionTime]));

  const cases: {
    name: string;
    first: Omit<BindingConditionsInput, "now" | "previous">;
    second: Omit<BindingConditionsInput, "now" | "previous">;
    want: Record<string, string>;
  }[] = [
    {
      name: "unchanged input keeps every time",
      first: applied,
      second: applied,
      want: { Scheduled: T0, FullyApplied: T0, Propagation: T0 },
    },
    {
      name: "a status that flips takes the new time; one that holds keeps the old",
      first: applied,
      second: pending,
      want: { Scheduled: T0, FullyApplied: T1, Propagation: T1 },
    },
    {
      name: "a changed message with the same status keeps the old time",
      first: pending,
      second: { ...pending, aggregated: [ok("member1"), { clusterName: "member2", applied: false, reason: "CreationFailed" }] },
      want: { Scheduled: T0, FullyApplied: T0, Propagation: T0 },
    },
  ];

  for (const c of cases) {
    it(c.name, () => {
      const first = bindingConditions({ ...c.first, now: T0 });
      const second = bindingConditions({ ...c.second, previous: first, now: T1 });
      assert.deepEqual(times(second), c.want);
    });
  }

  it("rewriting identical conditions yields equal conditions", () => {
    const first = bindingConditions({ ...pending, now: T0 });
    const again = bindingConditions({ ...pending, previous: first, now: T1 });
    assert.deepEqual(again, first);
    assert.equal(conditionsEqual(first, again), true);
  });

  it("a rollout's state gives the Rollout condition: True only when Succeeded, the phase as reason", () => {
    const rollout = { revision: "b", stableRevision: "a", clusters: [{ name: "member1", revision: "b", phase: "Succeeded" as const, since: "2026-01-01T00:00:00Z" }, { name: "member2", revision: "a", phase: "Waiting" as const, since: "2026-01-01T00:00:00Z" }] };
    const waiting = bindingConditions({ clusters: ["member1"], aggregated: [], expectedHash: {}, now: "2026-01-01T00:00:00Z", rollout: { ...rollout, phase: "WaitingForApproval", message: "approve it" } }).find((c) => c.type === "Rollout");
    assert.equal(waiting?.status, "False");
    assert.equal(waiting?.reason, "WaitingForApproval");
    assert.equal(waiting?.message, "revision b: 1/2 clusters succeeded; approve it");
    const done = bindingConditions({ clusters: ["member1"], aggregated: [], expectedHash: {}, now: "2026-01-01T00:00:00Z", rollout: { ...rollout, phase: "Succeeded" } }).find((c) => c.type === "Rollout");
    assert.equal(done?.status, "True");
    assert.equal(bindingConditions({ clusters: ["member1"], aggregated: [], expectedHash: {}, now: "2026-01-01T00:00:00Z" }).find((c) => c.type === "Rollout"), undefined);
  });

  it("a previous condition of another type is ignored", () => {
    const other: Condition = { type: "Other", status: "True", reason: "X", message: "", lastTransitionTime: "2000-01-01T00:00:00Z" };
    const got = bindingConditions({ ...applied, previous: [other], now: T1 });
    assert.deepEqual(times(got), { Scheduled: T1, FullyApplied: T1, Propagation: T1 });
  });
});

describe("conditionsEqual", () => {
  const a: Condition = { type: "A", status: "True", reason: "R", message: "m", lastTransitionTime: T0 };
  const b: Condition = { type: "B", status: "False", reason: "S", message: "n", lastTransitionTime: T0 };
  const cases: { name: string; x: Condition[] | undefined; y: Condition[] | undefined; want: boolean }[] = [
    { name: "same list", x: [a, b], y: [{ ...a }, { ...b }], want: true },
    { name: "order does not matter", x: [a, b], y: [b, a], want: true },
    { name: "both empty or absent", x: undefined, y: [], want: true },
    { name: "one missing", x: [a, b], y: [a], want: false },
    { name: "status differs", x: [a], y: [{ ...a, status: "False" }], want: false },
    { name: "reason differs", x: [a], y: [{ ...a, reason: "Q" }], want: false },
    { name: "message differs", x: [a], y: [{ ...a, message: "other" }], want: false },
    { name: "time differs", x: [a], y: [{ ...a, lastTransitionTime: T1 }], want: false },
    { name: "observedGeneration differs", x: [a], y: [{ ...a, observedGeneration: 2 }], want: false },
    { name: "same types, different condition", x: [a], y: [{ ...b, type: "A" }], want: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(conditionsEqual(c.x, c.y), c.want);
      assert.equal(conditionsEqual(c.y, c.x), c.want, "symmetric");
    });
  }
});
