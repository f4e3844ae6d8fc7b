import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { Cluster, KubeObject, PropagationPolicy, ReplicaSchedulingStrategy } from "../../shared/api/types.ts";
import type { KindInterpreter } from "../../shared/interpreter/interpreter.ts";
import { schedulable, scheduleTemplate } from "./schedule.ts";

const cluster = (name: string, opts: { ready?: boolean; noExecute?: boolean; cpu?: string; usedCpu?: string; labels?: Record<string, string> } = {}): Cluster => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "Cluster",
  metadata: { name, labels: opts.labels ?? {} },
  spec: opts.noExecute ? { taints: [{ key: "maintenance", effect: "NoExecute" }] } : {},
  status: {
    conditions: [{ type: "Ready", status: opts.ready === false ? "False" : "True", reason: "", message: "", lastTransitionTime: "" }],
    ...(opts.cpu ? { resourceSummary: { allocatable: { cpu: opts.cpu, pods: "110" }, allocated: { cpu: opts.usedCpu ?? "0", pods: "0" } } } : {}),
  },
});

const deployment = (replicas: number, cpu?: string): KubeObject => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: "default" },
  spec: { replicas, template: { spec: { containers: [{ name: "c", ...(cpu ? { resources: { requests: { cpu } } } : {}) }] } } },
});

const policy = (replicaScheduling?: ReplicaSchedulingStrategy, clusterNames?: string[]): PropagationPolicy => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "PropagationPolicy",
  metadata: { name: "p", namespace: "default" },
  spec: {
    resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment" }],
    placement: { ...(clusterNames ? { clusterAffinity: { clusterNames } } : {}), ...(replicaScheduling ? { replicaScheduling } : {}) },
  },
});

const weighted = (list: { name: string; weight: number; min?: number; max?: number }[]): ReplicaSchedulingStrategy => ({
  replicaSchedulingType: "Divided",
  replicaDivisionPreference: "Weighted",
  weightPreference: {
    staticWeightList: list.map((e) => ({ targetCluster: { clusterNames: [e.name] }, weight: e.weight, ...(e.min !== undefined ? { minReplicas: e.min } : {}), ...(e.max !== undefined ? { maxReplicas: e.max } : {}) })),
  },
});

const three = [cluster("member1"), cluster("member2"), cluster("member3")];
const show = (targets: { name: string; replicas?: number }[]) => targets.map((t) => `${t.name}=${t.replicas ?? "-"}`).join(" ");

describe("scheduleTemplate", () => {
  const cases: { name: string; template: KubeObject; policy: PropagationPolicy; clusters: Cluster[]; want: string; unplaced?: number }[] = [
    { name: "Duplicated by default: every selected cluster gets the template's replicas", template: deployment(3), policy: policy(), clusters: three, want: "member1=3 member2=3 member3=3" },
    { name: "Duplicated keeps a not-ready cluster (no churn on a blip)", template: deployment(2), policy: policy(), clusters: [cluster("member1"), cluster("member2", { ready: false })], want: "member1=2 member2=2" },
    { name: "DESIGN: 9 replicas, weights 1 and 2, no catch-all", template: deployment(9), policy: policy(weighted([{ name: "member1", weight: 1 }, { name: "member2", weight: 2 }])), clusters: three, want: "member1=3 member2=6" },
    { name: "Divided skips a not-ready cluster: its share moves", template: deployment(9), policy: policy(weighted([{ name: "member1", weight: 1 }, { name: "member2", weight: 2 }])), clusters: [cluster("member1"), cluster("member2", { ready: false }), cluster("member3")], want: "member1=9" },
    { name: "Divided skips a NoExecute-tainted cluster", template: deployment(4), policy: policy({ replicaSchedulingType: "Divided" }), clusters: [cluster("member1"), cluster("member2", { noExecute: true })], want: "member1=4" },
    { name: "Divided with min and max: minimums first, the rest by weight on top, ties by name", template: deployment(10), policy: policy(weighted([{ name: "member1", weight: 1, max: 2 }, { name: "member2", weight: 1, min: 5 }, { name: "member3", weight: 1 }])), clusters: three, want: "member1=2 member2=7 member3=1" },
    { name: "Divided within the selected clusters only", template: deployment(6), policy: policy({ replicaSchedulingType: "Divided" }, ["member2", "member3"]), clusters: three, want: "member2=3 member3=3" },
    { name: "a kind without replicas is placed whole", template: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "default" } }, policy: policy({ replicaSchedulingType: "Divided" }), clusters: three, want: "member1=- member2=- member3=-" },
    { name: "dynamic weights follow free capacity", template: deployment(6, "1"), policy: policy({ replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted", weightPreference: { dynamicWeight: "AvailableReplicas" } }), clusters: [cluster("member1", { cpu: "8", usedCpu: "4" }), cluster("member2", { cpu: "8" })], want: "member1=2 member2=4" },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const s = scheduleTemplate(c.template, c.policy, c.clusters);
      assert.equal(show(s.targets), c.want);
      assert.equal(s.unplaced, c.unplaced ?? 0);
      assert.equal(show(scheduleTemplate(c.template, c.policy, [...c.clusters].reverse()).targets), c.want, "input order does not matter");
    });
  }

  it("is stable: rescheduling with the previous answer changes nothing", () => {
    const p = policy({ replicaSchedulingType: "Divided" });
    const first = scheduleTemplate(deployment(5), p, three);
    assert.deepEqual(scheduleTemplate(deployment(5), p, three, first.targets).targets, first.targets);
  });
});

describe("taints and tolerations", () => {
  const tainted = (name: string, effect: "NoSchedule" | "NoExecute", key = "maintenance", value?: string): Cluster => ({
    ...cluster(name),
    spec: { taints: [{ key, effect, ...(value ? { value } : {}) }] },
  });
  const withTolerations = (tolerations: object[]): PropagationPolicy => ({ ...policy(), spec: { ...policy().spec, placement: { clusterTolerations: tolerations as never } } });
  const cases: { name: string; clusters: Cluster[]; policy: PropagationPolicy; previous?: { name: string; replicas?: number }[]; want: string }[] = [
    { name: "NoExecute evicts a Duplicated placement", clusters: [cluster("a"), tainted("b", "NoExecute")], policy: policy(), want: "a=2" },
    { name: "NoSchedule admits nothing new", clusters: [cluster("a"), tainted("b", "NoSchedule")], policy: policy(), want: "a=2" },
    { name: "NoSchedule keeps what is already there", clusters: [cluster("a"), tainted("b", "NoSchedule")], policy: policy(), previous: [{ name: "b", replicas: 2 }], want: "a=2 b=2" },
    { name: "Exists on the key tolerates", clusters: [tainted("b", "NoExecute")], policy: withTolerations([{ key: "maintenance", operator: "Exists" }]), want: "b=2" },
    { name: "Equal needs the value", clusters: [tainted("b", "NoExecute", "zone", "x")], policy: withTolerations([{ key: "zone", operator: "Equal", value: "y" }]), want: "" },
    { name: "empty key with Exists tolerates everything", clusters: [tainted("b", "NoSchedule", "anything")], policy: withTolerations([{ operator: "Exists" }]), want: "b=2" },
    { name: "a toleration for another effect does not count", clusters: [tainted("b", "NoExecute")], policy: withTolerations([{ key: "maintenance", operator: "Exists", effect: "NoSchedule" }]), want: "" },
  ];
  for (const c of cases) {
    it(c.name, () => assert.equal(show(scheduleTemplate(deployment(2), c.policy, c.clusters, c.previous).targets), c.want));
  }
});

describe("schedulable", () => {
  it("treats a not-ready or NoExecute-tainted cluster as unschedulable", () => {
    assert.deepEqual([cluster("a"), cluster("b", { ready: false }), cluster("c", { noExecute: true })].map((c) => schedulable(c)), [true, false, false]);
  });
});

describe("clusterAffinities: ordered fallback groups", () => {
  const grouped = (replicaScheduling?: ReplicaSchedulingStrategy, spreadConstraints?: object[]): PropagationPolicy => ({
    ...policy(),
    spec: {
      ...policy().spec,
      placement: {
        clusterAffinities: [
          { affinityName: "primary", clusterNames: ["member1", "member2"] },
          { affinityName: "backup", clusterNames: ["member3"] },
        ],
        ...(replicaScheduling ? { replicaScheduling } : {}),
        ...(spreadConstraints ? { spreadConstraints: spreadConstraints as never } : {}),
      },
    },
  });
  const divided: ReplicaSchedulingStrategy = { replicaSchedulingType: "Divided" };
  const cases: { name: string; policy: PropagationPolicy; clusters: Cluster[]; want: string; group: string; unplaced?: number; error?: RegExp }[] = [
    { name: "the first group that fits is used", policy: grouped(), clusters: three, want: "member1=4 member2=4", group: "primary" },
    { name: "Duplicated: a group with no Ready cluster falls back", policy: grouped(), clusters: [cluster("member1", { ready: false }), cluster("member2", { ready: false }), cluster("member3")], want: "member3=4", group: "backup" },
    { name: "Duplicated: one Ready cluster keeps the group (the other is held through a blip)", policy: grouped(), clusters: [cluster("member1", { ready: false }), cluster("member2"), cluster("member3")], want: "member1=4 member2=4", group: "primary" },
    { name: "Divided: replicas go to the backup when the primary is lost", policy: grouped(divided), clusters: [cluster("member1", { ready: false }), cluster("member2", { noExecute: true }), cluster("member3")], want: "member3=4", group: "backup" },
    { name: "Divided: the primary again once it recovers", policy: grouped(divided), clusters: three, want: "member1=2 member2=2", group: "primary" },
    { name: "a group whose clusters do not exist is skipped", policy: grouped(), clusters: [cluster("member3")], want: "member3=4", group: "backup" },
    { name: "spread minGroups unmet in the primary (2 clusters) moves on, and the backup fails too: the closest is reported", policy: grouped(undefined, [{ spreadByField: "cluster", minGroups: 3 }]), clusters: three, want: "", group: "primary", unplaced: 4, error: /minGroups is 3/ },
    { name: "no group fits: the first is kept, with why", policy: grouped(), clusters: [cluster("member1", { ready: false }), cluster("member3", { ready: false })], want: "member1=4", group: "primary" },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const s = scheduleTemplate(deployment(4), c.policy, c.clusters);
      assert.equal(show(s.targets), c.want);
      assert.equal(s.affinityName, c.group);
      assert.equal(s.unplaced, c.unplaced ?? 0);
      if (c.error) assert.match(s.error ?? "", c.error);
      else assert.equal(s.error, undefined);
    });
  }
});

describe("spread constraints and errors in the schedule", () => {
  const regional = (name: string, region: string): Cluster => ({ ...cluster(name), spec: { region } });
  const spread = (replicaScheduling: ReplicaSchedulingStrategy | undefined, spreadConstraints: object[]): PropagationPolicy => ({
    ...policy(),
    spec: { ...policy().spec, placement: { spreadConstraints: spreadConstraints as never, ...(replicaScheduling ? { replicaScheduling } : {}) } },
  });
  const fleet = [regional("eu-1", "eu"), regional("eu-2", "eu"), regional("us-1", "us"), regional("ap-1", "ap")];
  it("Duplicated: maxGroups of clusters bounds the targets, spread over regions", () => {
    const s = scheduleTemplate(deployment(3), spread(undefined, [{ spreadByField: "region", minGroups: 2 }, { spreadByField: "cluster", maxGroups: 2 }]), fleet);
    assert.equal(s.targets.length, 2);
    assert.equal(new Set(s.targets.map((t) => t.name.slice(0, 2))).size, 2, "two regions");
  });
  it("Divided: replicas are divided over the chosen region only", () => {
    const s = scheduleTemplate(deployment(4), spread({ replicaSchedulingType: "Divided" }, [{ spreadByField: "region", maxGroups: 1 }]), fleet);
    assert.equal(show(s.targets), "eu-1=2 eu-2=2");
  });
  it("keeps the region it already uses when another grows", () => {
    const s = scheduleTemplate(deployment(4), spread({ replicaSchedulingType: "Divided" }, [{ spreadByField: "region", maxGroups: 1 }]), fleet, [{ name: "us-1", replicas: 4 }]);
    assert.equal(show(s.targets), "us-1=4");
  });
  it("an unmet minGroups is an error, not a silent partial placement", () => {
    const s = scheduleTemplate(deployment(4), spread(undefined, [{ spreadByField: "region", minGroups: 4 }]), fleet);
    assert.equal(s.targets.length, 0);
    assert.match(s.error ?? "", /3 regions available.*minGroups is 4/);
  });
  it("a malformed division (negative weight) is an error on the schedule", () => {
    const s = scheduleTemplate(deployment(4), policy(weighted([{ name: "member1", weight: -1 }])), three);
    assert.match(s.error ?? "", /weight/);
  });
  it("no cluster fits: a message saying why", () => {
    const s = scheduleTemplate(deployment(4), policy({ replicaSchedulingType: "Divided" }), [cluster("member1", { ready: false })]);
    assert.equal(s.targets.length, 0);
    assert.equal(s.unplaced, 4);
    assert.equal(s.message, "1 cluster selected, none Ready");
  });
});

describe("scheduleTemplate: per-replica capacity from the interpreter's requirements", () => {
  const dynamic = policy({ replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted", weightPreference: { dynamicWeight: "AvailableReplicas" } });
  const small = [cluster("member1", { cpu: "8" }), cluster("member2", { cpu: "16" })];
  const crd: KubeObject = { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w", namespace: "default" }, spec: {} };
  it("a CRD whose GetReplicas gives a resourceRequest: 6 replicas of 4 CPU over 8 and 16 free are 2 + 4", () => {
    const ric: KindInterpreter = { getReplicas: () => ({ replicas: 6, requires: { resourceRequest: { cpu: "4" } } }) };
    assert.equal(show(scheduleTemplate(crd, dynamic, small, [], ric).targets), "member1=2 member2=4");
  });
  it("without a resourceRequest only pods count (110 each): 3 + 3", () => {
    const ric: KindInterpreter = { getReplicas: () => ({ replicas: 6 }) };
    assert.equal(show(scheduleTemplate(crd, dynamic, small, [], ric).targets), "member1=3 member2=3");
  });
  it("a request no cluster can hold places what fits and says the rest", () => {
    const ric: KindInterpreter = { getReplicas: () => ({ replicas: 6, requires: { resourceRequest: { cpu: "6" } } }) };
    const s = scheduleTemplate(crd, dynamic, small, [], ric);
    assert.equal(show(s.targets), "member1=1 member2=2");
    assert.equal(s.unplaced, 3);
  });
});

describe("scheduleTemplate: caps of clusters replicas moved away from (unschedulable-moves.ts)", () => {
  const dynamic = policy({ replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted", weightPreference: { dynamicWeight: "AvailableReplicas" } });
  const aggregated = policy({ replicaSchedulingType: "Divided", replicaDivisionPreference: "Aggregated" });
  // member2's summary says it holds 3 of 1 CPU (its pods fit no node): 4 + 3 + 3 held would be its share.
  const clusters = [cluster("member1", { cpu: "4", usedCpu: "3" }), cluster("member2", { cpu: "3", usedCpu: "2" })];
  const previous = [
    { name: "member1", replicas: 3 },
    { name: "member2", replicas: 3 },
  ];
  it("without a cap the held replicas stay where they are", () => {
    assert.equal(show(scheduleTemplate(deployment(6, "1"), dynamic, clusters, previous).targets), "member1=3 member2=3");
  });
  it("a cap moves the rest to the cluster with room", () => {
    assert.equal(show(scheduleTemplate(deployment(6, "1"), dynamic, clusters, previous, undefined, new Map([["member2", 2]])).targets), "member1=4 member2=2");
  });
  it("a cap of 0 takes the cluster out of the division", () => {
    const s = scheduleTemplate(deployment(4, "1"), dynamic, clusters, previous, undefined, new Map([["member2", 0]]));
    assert.equal(show(s.targets), "member1=4");
  });
  it("Aggregated honours the cap too", () => {
    assert.equal(show(scheduleTemplate(deployment(6, "1"), aggregated, clusters, previous, undefined, new Map([["member2", 2]])).targets), "member1=4 member2=2");
  });
  it("no room for what the cap leaves: replicas unplaced (the move is then dropped)", () => {
    const s = scheduleTemplate(deployment(6, "1"), dynamic, [cluster("member1", { cpu: "3", usedCpu: "3" }), clusters[1] as Cluster], previous, undefined, new Map([["member2", 2]]));
    assert.equal(show(s.targets), "member1=3 member2=2");
    assert.equal(s.unplaced, 1);
  });
});

describe("scheduleTemplate: static weights with rebalance: true honour caps (KubeFed's RSP)", () => {
  const previous = [
    { name: "member1", replicas: 3 },
    { name: "member2", replicas: 3 },
  ];
  const two = [cluster("member1"), cluster("member2")];
  it("equal weights: the capped cluster's share goes to the other", () => {
    const p = policy({ replicaSchedulingType: "Divided", rebalance: true });
    assert.equal(show(scheduleTemplate(deployment(6), p, two, previous, undefined, new Map([["member2", 2]])).targets), "member1=4 member2=2");
  });
  it("a cap wins over a minReplicas", () => {
    const p = policy({ ...weighted([{ name: "member1", weight: 1 }, { name: "member2", weight: 1, min: 3 }]), rebalance: true });
    assert.equal(show(scheduleTemplate(deployment(6), p, two, previous, undefined, new Map([["member2", 1]])).targets), "member1=5 member2=1");
  });
});

describe("scheduleTemplate: a division by room keeps a whole last assignment (room figures lag and flap)", () => {
  const dynamic = policy({ replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted", weightPreference: { dynamicWeight: "AvailableReplicas" } });
  const aggregated = policy({ replicaSchedulingType: "Divided", replicaDivisionPreference: "Aggregated" });
  // member2's summary has not counted its pods yet: it claims 10 more.
  const lagging = [cluster("member1", { cpu: "8", usedCpu: "3" }), cluster("member2", { cpu: "10", usedCpu: "0" })];
  const previous = [
    { name: "member1", replicas: 3 },
    { name: "member2", replicas: 3 },
  ];
  it("the same clusters and replicas: kept, whatever the figures say now", () => {
    assert.equal(show(scheduleTemplate(deployment(6, "1"), dynamic, lagging, previous).targets), "member1=3 member2=3");
  });
  it("without a last assignment the figures divide (member2 claims more room)", () => {
    assert.equal(show(scheduleTemplate(deployment(6, "1"), dynamic, lagging).targets), "member1=2 member2=4");
  });
  it("a scale-up keeps what runs and divides only the new replicas by free room (5 and 10 free: 1 + 1, the tie to the first)", () => {
    assert.equal(show(scheduleTemplate(deployment(8, "1"), dynamic, lagging, previous).targets), "member1=4 member2=4");
  });
  it("a scale-down takes replicas off in proportion to what each runs", () => {
    assert.equal(show(scheduleTemplate(deployment(4, "1"), dynamic, lagging, [{ name: "member1", replicas: 6 }, { name: "member2", replicas: 2 }]).targets), "member1=3 member2=1");
  });
  it("a newly chosen cluster: divided again, so it gets its share", () => {
    const s = scheduleTemplate(deployment(6, "1"), dynamic, [...lagging, cluster("member3", { cpu: "8" })], previous);
    assert.ok(s.targets.some((t) => t.name === "member3"), show(s.targets));
  });
  it("a cluster capped below what it has: only the replicas over the cap move, into the others' free room", () => {
    assert.equal(show(scheduleTemplate(deployment(6, "1"), dynamic, lagging, previous, undefined, new Map([["member1", 2]])).targets), "member1=2 member2=4");
  });
  it("capped, and no other cluster has free room: the moving replicas are unplaced, the rest stay", () => {
    const full = [cluster("member1", { cpu: "8", usedCpu: "3" }), cluster("member2", { cpu: "3", usedCpu: "3" })];
    const s = scheduleTemplate(deployment(6, "1"), dynamic, full, previous, undefined, new Map([["member1", 2]]));
    assert.equal(show(s.targets), "member1=2 member2=3");
    assert.equal(s.unplaced, 1);
    assert.match(s.message ?? "", /no other cluster has room/);
  });
  it("Aggregated keeps its cluster while it holds them all, though another now claims more room", () => {
    assert.equal(show(scheduleTemplate(deployment(3, "1"), aggregated, lagging, [{ name: "member1", replicas: 3 }]).targets), "member1=3");
  });
  // Issue 37, item 8: divided afresh, 4 replicas went whole to member2 (most room), and member1's
  // running copy was removed at once.
  it("Aggregated scale-up: the cluster it uses takes the new replicas first, though another claims more room", () => {
    assert.equal(show(scheduleTemplate(deployment(4, "1"), aggregated, lagging, [{ name: "member1", replicas: 3 }]).targets), "member1=4");
  });
  it("Aggregated scale-up past the room of the cluster it uses: the rest go to the next by room, nothing moves", () => {
    assert.equal(show(scheduleTemplate(deployment(12, "1"), aggregated, lagging, [{ name: "member1", replicas: 3 }]).targets), "member1=8 member2=4");
  });
  it("Aggregated scale-up without room reports: the new replicas join the cluster that runs the most", () => {
    const unreported = [cluster("member1"), cluster("member2")];
    assert.equal(show(scheduleTemplate(deployment(9, "1"), aggregated, unreported, [{ name: "member1", replicas: 2 }, { name: "member2", replicas: 5 }]).targets), "member1=2 member2=7");
  });
  it("Aggregated scale-up with no room anywhere: the new replicas are unplaced, the running ones stay", () => {
    const full = [cluster("member1", { cpu: "3", usedCpu: "3" }), cluster("member2", { cpu: "2", usedCpu: "2" })];
    const s = scheduleTemplate(deployment(5, "1"), aggregated, full, [{ name: "member1", replicas: 3 }]);
    assert.equal(show(s.targets), "member1=3");
    assert.equal(s.unplaced, 2);
    assert.match(s.message ?? "", /2 of 5 replicas unplaced/);
  });
  it("a scale-up gives a cluster capped by a move off Unschedulable pods no new replicas (dynamic weights and Aggregated, with and without room reports)", () => {
    const caps = new Map([["member1", 3]]);
    const previous = [{ name: "member1", replicas: 3 }, { name: "member2", replicas: 1 }];
    assert.equal(show(scheduleTemplate(deployment(10, "1"), aggregated, [cluster("member1"), cluster("member2")], previous, undefined, caps).targets), "member1=3 member2=7");
    assert.equal(show(scheduleTemplate(deployment(8, "1"), dynamic, lagging, previous, undefined, caps).targets), "member1=3 member2=5");
    assert.equal(show(scheduleTemplate(deployment(8, "1"), dynamic, [cluster("member1"), cluster("member2")], previous, undefined, caps).targets), "member1=3 member2=5");
  });
  it("Aggregated scale-down: the cluster with the most keeps its replicas, the others give theirs up first", () => {
    assert.equal(show(scheduleTemplate(deployment(5, "1"), aggregated, lagging, [{ name: "member1", replicas: 2 }, { name: "member2", replicas: 4 }]).targets), "member1=1 member2=4");
  });
});

describe("scheduleTemplate: a scale change under a division by room never moves a running replica (property)", () => {
  const strategies: [string, ReplicaSchedulingStrategy][] = [
    ["Aggregated", { replicaSchedulingType: "Divided", replicaDivisionPreference: "Aggregated" }],
    ["dynamic weights", { replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted", weightPreference: { dynamicWeight: "AvailableReplicas" } }],
  ];
  for (const [name, strategy] of strategies) {
    it(`${name}: a scale-up takes no replica from a cluster, a scale-down gives none to one`, () => {
      const members = ["member1", "member2", "member3"];
      fc.assert(
        fc.property(
          fc.array(fc.record({ cpu: fc.integer({ min: 0, max: 40 }), used: fc.integer({ min: 0, max: 40 }), reports: fc.boolean() }), { minLength: 3, maxLength: 3 }),
          fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 3, maxLength: 3 }),
          fc.integer({ min: 1, max: 60 }),
          (rooms, had, replicas) => {
            fc.pre(had.some((n) => n > 0));
            const clusters = members.map((m, i) => {
              const r = rooms[i] as { cpu: number; used: number; reports: boolean };
              return r.reports ? cluster(m, { cpu: String(Math.max(r.cpu, r.used)), usedCpu: String(r.used) }) : cluster(m);
            });
            const previous = members.map((m, i) => ({ name: m, replicas: had[i] as number })).filter((t) => t.replicas > 0);
            const total = previous.reduce((s, t) => s + t.replicas, 0);
            // The same replicas: stableDivision's other rules (a newly chosen cluster, caps), tested above.
            fc.pre(replicas !== total);
            const s = scheduleTemplate(deployment(replicas, "1"), policy(strategy), clusters, previous);
            const now = new Map(s.targets.map((t) => [t.name, t.replicas ?? 0]));
            assert.equal(s.targets.reduce((n, t) => n + (t.replicas ?? 0), 0) + s.unplaced, replicas, show(s.targets));
            for (const t of previous) {
              const after = now.get(t.name) ?? 0;
              if (replicas > total) assert.ok(after >= t.replicas, `${t.name} ${t.replicas} -> ${after} on a scale-up to ${replicas}: ${show(s.targets)}`);
            }
            if (replicas < total) {
              for (const [m, n] of now) assert.ok(n <= (previous.find((t) => t.name === m)?.replicas ?? 0), `${m} gained on a scale-down to ${replicas}: ${show(s.targets)}`);
              assert.equal(s.unplaced, 0);
            }
          },
        ),
        { numRuns: 300 },
      );
    });
  }
});

describe("scheduleTemplate: overflowAffinities (Karmada v1.19) widen a group tier by tier", () => {
  // member1 (primary) holds 4 one-CPU replicas, member2 (first overflow) 4 more, member3 (second) 8.
  const fleet = [cluster("member1", { cpu: "4" }), cluster("member2", { cpu: "4" }), cluster("member3", { cpu: "8" }), cluster("member4", { cpu: "100" })];
  const overflow = (division: ReplicaSchedulingStrategy): PropagationPolicy => ({
    ...policy(division),
    spec: {
      resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment" }],
      placement: {
        clusterAffinities: [{ affinityName: "home", clusterNames: ["member1"], overflowAffinities: [{ affinityName: "near", clusterNames: ["member2"] }, { affinityName: "far", clusterNames: ["member3", "member2"] }] }],
        replicaScheduling: division,
      },
    },
  });
  const aggregated = overflow({ replicaSchedulingType: "Divided", replicaDivisionPreference: "Aggregated" });
  const dynamic = overflow({ replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted", weightPreference: { dynamicWeight: "AvailableReplicas" } });
  const cases: { replicas: number; policy: PropagationPolicy; want: string; unplaced?: number; what: string }[] = [
    { what: "what the primary group holds stays there", replicas: 3, policy: aggregated, want: "member1=3" },
    { what: "one tier more when the primary is full", replicas: 6, policy: aggregated, want: "member1=4 member2=2" },
    { what: "every tier when the first overflow cannot hold them either; Aggregated then uses as few clusters as it can", replicas: 12, policy: aggregated, want: "member1=4 member3=8" },
    { what: "more than every tier holds: unplaced, never a cluster outside the group (member4)", replicas: 20, policy: aggregated, want: "member1=4 member2=4 member3=8", unplaced: 4 },
    { what: "dynamic weights divide within the smallest widening that holds them", replicas: 6, policy: dynamic, want: "member1=3 member2=3" },
  ];
  for (const c of cases) {
    it(`${c.replicas} replicas: ${c.what}`, () => {
      const s = scheduleTemplate(deployment(c.replicas, "1"), c.policy, fleet);
      assert.equal(show(s.targets), c.want);
      assert.equal(s.unplaced, c.unplaced ?? 0);
      assert.equal(s.affinityName, "home");
    });
  }
  it("a scale-down contracts the group again: the overflow tier is left", () => {
    const s = scheduleTemplate(deployment(3, "1"), aggregated, fleet, [
      { name: "member1", replicas: 4 },
      { name: "member2", replicas: 2 },
    ]);
    assert.equal(show(s.targets), "member1=3");
  });
});

describe("scheduleTemplate: an overflow tier selects as any cluster affinity does", () => {
  const region = (name: string, r: string, cpu: string, labels: Record<string, string> = {}): Cluster => ({ ...cluster(name, { cpu, labels }), spec: { region: r } });
  const fleet = [region("home", "eu", "2"), region("eu-b", "eu", "4", { tier: "burst" }), region("eu-c", "eu", "4", { tier: "burst", pool: "spot" }), region("us-a", "us", "4", { tier: "burst" })];
  const tier = {
    affinityName: "burst",
    labelSelector: { matchLabels: { tier: "burst" }, matchExpressions: [{ key: "pool", operator: "NotIn" as const, values: ["gpu"] }] },
    fieldSelector: { matchExpressions: [{ key: "region" as const, operator: "In" as const, values: ["eu"] }] },
    exclude: ["eu-c"],
  };
  it("labelSelector, fieldSelector and exclude of the tier all hold", () => {
    const p: PropagationPolicy = {
      ...policy(),
      spec: {
        resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment" }],
        placement: { clusterAffinities: [{ affinityName: "home", clusterNames: ["home"], overflowAffinities: [tier] }], replicaScheduling: { replicaSchedulingType: "Divided", replicaDivisionPreference: "Aggregated" } },
      },
    };
    assert.equal(show(scheduleTemplate(deployment(5, "1"), p, fleet).targets), "eu-b=4 home=1");
  });
});
