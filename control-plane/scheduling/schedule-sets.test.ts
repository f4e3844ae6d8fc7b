// Multi-component workloads (a customization's componentResource, Karmada's multi-template
// scheduling): placed as whole sets, never divided per replica; a cluster must hold one complete
// set.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster, KubeObject, PropagationPolicy, ReplicaSchedulingStrategy, SpreadConstraint, TargetCluster } from "../../shared/api/types.ts";
import type { Component, KindInterpreter } from "../../shared/interpreter/interpreter.ts";
import { scheduleTemplate } from "./schedule.ts";

const cluster = (name: string, opts: { cpu?: string; usedCpu?: string; ready?: boolean } = {}): Cluster => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "Cluster",
  metadata: { name },
  spec: {},
  status: {
    conditions: [{ type: "Ready", status: opts.ready === false ? "False" : "True", reason: "", message: "", lastTransitionTime: "" }],
    ...(opts.cpu ? { resourceSummary: { allocatable: { cpu: opts.cpu, memory: "256Gi", pods: "110" }, allocated: { cpu: opts.usedCpu ?? "0", pods: "0" } } } : {}),
  },
});

const flink: KubeObject = { apiVersion: "example.com/v1", kind: "FlinkLike", metadata: { name: "f", namespace: "default" }, spec: {} };
// One set: jobmanager 1 × 2 CPU + taskmanager 2 × 4 CPU = 10 CPU, 3 pods.
const components: Component[] = [
  { name: "jobmanager", replicas: 1, replicaRequirements: { resourceRequest: { cpu: "2", memory: "2Gi" } } },
  { name: "taskmanager", replicas: 2, replicaRequirements: { resourceRequest: { cpu: "4", memory: "4Gi" } } },
];
const sets: KindInterpreter = { getComponents: () => components };

const policy = (replicaScheduling?: ReplicaSchedulingStrategy, spreadConstraints?: SpreadConstraint[]): PropagationPolicy => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "PropagationPolicy",
  metadata: { name: "p", namespace: "default" },
  spec: { resourceSelectors: [{ apiVersion: "example.com/v1", kind: "FlinkLike" }], placement: { ...(replicaScheduling ? { replicaScheduling } : {}), ...(spreadConstraints ? { spreadConstraints } : {}) } },
});
const divided = (extra: Partial<ReplicaSchedulingStrategy> = {}): ReplicaSchedulingStrategy => ({ replicaSchedulingType: "Divided", ...extra });
const staticWeights = (weights: Record<string, number>): ReplicaSchedulingStrategy =>
  divided({ replicaDivisionPreference: "Weighted", weightPreference: { staticWeightList: Object.entries(weights).map(([name, weight]) => ({ targetCluster: { clusterNames: [name] }, weight })) } });

const show = (targets: TargetCluster[]) => targets.map((t) => `${t.name}=${t.replicas ?? "-"}`).join(" ");

// member1: 32 CPU free (3 sets); member2: 2 free (none); member3: 64 free (6 sets).
const fleet = [cluster("member1", { cpu: "32" }), cluster("member2", { cpu: "32", usedCpu: "30" }), cluster("member3", { cpu: "64" })];

describe("scheduleTemplate: a multi-component workload goes to clusters as whole sets", () => {
  const cases: { name: string; policy: PropagationPolicy; clusters?: Cluster[]; previous?: TargetCluster[]; want: string; unplaced?: number; message?: RegExp }[] = [
    { name: "Duplicated: every selected cluster that holds one complete set gets the whole workload, no replica count", policy: policy(), want: "member1=- member3=-" },
    { name: "Duplicated: a cluster that runs it keeps it when full (its own set counts)", policy: policy(), previous: [{ name: "member2" }], want: "member1=- member2=- member3=-" },
    { name: "Duplicated: a not-Ready cluster is kept as for any Duplicated workload", policy: policy(), clusters: [cluster("member1", { cpu: "32", ready: false }), cluster("member3", { cpu: "64" })], want: "member1=- member3=-" },
    { name: "Divided: one set cannot be split, so exactly one cluster runs it (equal weights: the first by name)", policy: policy(divided()), want: "member1=-" },
    { name: "Divided: it stays where it runs", policy: policy(divided()), previous: [{ name: "member3" }], want: "member3=-" },
    { name: "Divided, dynamic weights: the cluster that holds the most sets", policy: policy(divided({ replicaDivisionPreference: "Weighted", weightPreference: { dynamicWeight: "AvailableReplicas" } })), want: "member3=-" },
    { name: "Divided, Aggregated: the cluster that holds the most sets", policy: policy(divided({ replicaDivisionPreference: "Aggregated" })), want: "member3=-" },
    { name: "Divided, static weights: the heaviest cluster that holds a set", policy: policy(staticWeights({ member1: 3, member2: 5, member3: 1 })), want: "member1=-" },
    { name: "Divided, static weights where no eligible cluster weighs: unplaced, saying why", policy: policy(staticWeights({ member2: 1 })), want: "", unplaced: 1, message: /^the complete set of the components is unplaced: no cluster has a weight above 0$/ },
    { name: "Divided: a not-Ready cluster is no candidate", policy: policy(divided()), clusters: [cluster("member1", { cpu: "32", ready: false }), cluster("member3", { cpu: "64" })], want: "member3=-" },
    {
      name: "no cluster holds one complete set: nothing placed, the set's request in the message",
      policy: policy(),
      clusters: [cluster("member1", { cpu: "8" }), cluster("member2", { cpu: "32", usedCpu: "30" })],
      want: "",
      unplaced: 1,
      message: /^2 clusters selected, none can hold one complete set of the components \(cpu 10, memory 10Gi, pods 3\)$/,
    },
    { name: "no cluster reports capacity: none is judged (Duplicated: all)", policy: policy(), clusters: [cluster("member1"), cluster("member2")], want: "member1=- member2=-" },
    { name: "no cluster reports capacity: none is judged (Divided: one, the first by name)", policy: policy(divided()), clusters: [cluster("member2"), cluster("member1")], want: "member1=-" },
    { name: "some report capacity: one that does not holds nothing", policy: policy(), clusters: [cluster("member1"), cluster("member3", { cpu: "64" })], want: "member3=-" },
    { name: "spread constraints rank by the sets each holds: maxGroups 1 takes the roomiest", policy: policy(undefined, [{ spreadByField: "cluster", maxGroups: 1 }]), want: "member3=-" },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const s = scheduleTemplate(flink, c.policy, c.clusters ?? fleet, c.previous ?? [], sets);
      assert.equal(show(s.targets), c.want);
      assert.equal(s.unplaced, c.unplaced ?? 0);
      if (c.message) assert.match(s.message ?? "", c.message);
      assert.equal(show(scheduleTemplate(flink, c.policy, [...(c.clusters ?? fleet)].reverse(), c.previous ?? [], sets).targets), c.want, "input order does not matter");
    });
  }

  it("a single component is scheduled per replica as before (GetReplicas' count is divided)", () => {
    const one: KindInterpreter = { getReplicas: () => ({ replicas: 4 }), getComponents: () => [components[1] as Component] };
    assert.equal(show(scheduleTemplate(flink, policy(divided()), [cluster("member1"), cluster("member3")], [], one).targets), "member1=2 member3=2");
  });

  it("no components (a script returning nil): per replica as before", () => {
    const none: KindInterpreter = { getReplicas: () => ({ replicas: 4 }), getComponents: () => [] };
    assert.equal(show(scheduleTemplate(flink, policy(divided()), [cluster("member1"), cluster("member3")], [], none).targets), "member1=2 member3=2");
  });

  it("asks GetComponents once per schedule, whatever the affinity groups tried", () => {
    let calls = 0;
    const counted: KindInterpreter = { getComponents: () => (calls++, components) };
    const p = policy();
    p.spec.placement = { clusterAffinities: [{ affinityName: "a", clusterNames: ["member2"] }, { affinityName: "b", clusterNames: ["member3"] }] };
    const s = scheduleTemplate(flink, p, fleet, [], counted);
    assert.equal(show(s.targets), "member3=-");
    assert.equal(s.affinityName, "b", "the group whose clusters hold a set");
    assert.equal(calls, 1);
  });
});
