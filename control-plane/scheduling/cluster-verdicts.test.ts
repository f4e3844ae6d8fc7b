import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster, ClusterSpec, Placement, PropagationPolicy, TargetCluster } from "../../shared/api/types.ts";
import { clusterVerdicts, type VerdictInput } from "./cluster-verdicts.ts";
import { affinityMismatch, clusterMatches } from "./placement.ts";

function cluster(name: string, opts: { labels?: Record<string, string>; spec?: ClusterSpec; ready?: boolean; free?: Record<string, string> } = {}): Cluster {
  return {
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "Cluster",
    metadata: { name, ...(opts.labels ? { labels: opts.labels } : {}) },
    spec: opts.spec ?? {},
    status: {
      conditions: [{ type: "Ready", status: opts.ready === false ? "False" : "True", reason: "ClusterReady", message: "" }],
      ...(opts.free ? { resourceSummary: { allocatable: opts.free, allocated: {} } } : {}),
    },
  } as Cluster;
}

const policy = (placement: Placement): PropagationPolicy =>
  ({ apiVersion: "policy.karmada.io/v1alpha1", kind: "PropagationPolicy", metadata: { name: "p", namespace: "default" }, spec: { resourceSelectors: [], placement } }) as PropagationPolicy;

describe("clusterVerdicts", () => {
  const cases: { name: string; input: Omit<VerdictInput, "targets"> & { targets?: TargetCluster[] }; cluster: string; want: string }[] = [
    { name: "a target: selected by its clusterNames, with its replicas", input: { policy: policy({ clusterAffinity: { clusterNames: ["m1", "m2"] } }), clusters: [cluster("m1")], targets: [{ name: "m1", replicas: 2 }] }, cluster: "m1", want: "placed 2 by clusterAffinity.clusterNames [m1 m2]" },
    { name: "no affinity: every cluster", input: { policy: policy({}), clusters: [cluster("m1")], targets: [{ name: "m1" }] }, cluster: "m1", want: "placed - by the placement (no cluster affinity: every cluster)" },
    { name: "not in clusterNames", input: { policy: policy({ clusterAffinity: { clusterNames: ["m1"] } }), clusters: [cluster("m2")] }, cluster: "m2", want: "clusterNames: not in clusterAffinity.clusterNames [m1]" },
    { name: "excluded", input: { policy: policy({ clusterAffinity: { exclude: ["m2"] } }), clusters: [cluster("m2")] }, cluster: "m2", want: "exclude: clusterAffinity.exclude [m2] names m2" },
    { name: "labels do not match", input: { policy: policy({ clusterAffinity: { labelSelector: { matchLabels: { env: "prod" } } } }), clusters: [cluster("m2", { labels: { env: "dev" } })] }, cluster: "m2", want: "labelSelector: its labels {env=dev} do not match clusterAffinity.labelSelector {env=prod}" },
    { name: "fields do not match", input: { policy: policy({ clusterAffinity: { fieldSelector: { matchExpressions: [{ key: "region", operator: "In", values: ["eu"] }] } } }), clusters: [cluster("m2", { spec: { region: "us" } })] }, cluster: "m2", want: "fieldSelector: its fields (provider= region=us zone=) do not match clusterAffinity.fieldSelector {region In [eu]}" },
    { name: "an untolerated taint", input: { policy: policy({}), clusters: [cluster("m3", { spec: { taints: [{ key: "dedicated", value: "gpu", effect: "NoSchedule" }] } })] }, cluster: "m3", want: "taint: taint dedicated=gpu:NoSchedule not tolerated by placement.clusterTolerations" },
    { name: "a tolerated taint is no reason", input: { policy: policy({ clusterTolerations: [{ key: "dedicated", operator: "Exists" }] }), clusters: [cluster("m3", { spec: { taints: [{ key: "dedicated", value: "gpu", effect: "NoSchedule" }] } })] }, cluster: "m3", want: "spread: eligible, but not in the binding yet (it has not been rescheduled since)" },
    { name: "Divided skips a not-Ready cluster", input: { policy: policy({ replicaScheduling: { replicaSchedulingType: "Divided" } }), clusters: [cluster("m2", { ready: false })] }, cluster: "m2", want: "notReady: not Ready, and Divided replicas go only to Ready clusters" },
    { name: "Divided: no room", input: { policy: policy({ replicaScheduling: { replicaSchedulingType: "Divided" } }), clusters: [cluster("m2", { free: { cpu: "100m", pods: "10" } })], perReplica: { cpu: 1, pods: 1 } }, cluster: "m2", want: "capacity: its resource summary has no room for one replica (one requests cpu 1, pods 1)" },
    { name: "not accepted", input: { policy: policy({}), clusters: [cluster("m2")], requireAcceptance: true }, cluster: "m2", want: "acceptance: not accepted by an admin (spec.hubAcceptsClient), and the control plane runs with --require-acceptance" },
    { name: "outside the affinity group in use", input: { policy: policy({ clusterAffinities: [{ affinityName: "primary", clusterNames: ["m1"] }, { affinityName: "backup", clusterNames: ["m2"] }] }), clusters: [cluster("m2")], affinityName: "primary" }, cluster: "m2", want: 'affinityGroup: outside the affinity group in use: not in clusterAffinities["primary"].clusterNames [m1]' },
    { name: "spread constraints", input: { policy: policy({ spreadConstraints: [{ spreadByField: "cluster", maxGroups: 1 }] }), clusters: [cluster("m2")] }, cluster: "m2", want: "spread: left out by placement.spreadConstraints (or given no replicas by the division)" },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const v = clusterVerdicts({ targets: [], ...c.input }).find((x) => x.cluster === c.cluster);
      assert.ok(v !== undefined);
      const got = v.placed ? `placed ${v.replicas ?? "-"} by ${v.selectedBy}` : `${v.rule}: ${v.detail}`;
      assert.equal(got, c.want);
    });
  }
});

describe("affinityMismatch", () => {
  it("is undefined exactly when clusterMatches holds (the scheduler's decision is unchanged)", () => {
    const clusters = [cluster("m1", { labels: { env: "prod" }, spec: { region: "eu" } }), cluster("m2", { labels: { env: "dev" } }), cluster("m3")];
    const affinities = [{}, { clusterNames: ["m1"] }, { exclude: ["m1"] }, { labelSelector: { matchLabels: { env: "prod" } } }, { fieldSelector: { matchExpressions: [{ key: "region" as const, operator: "In" as const, values: ["eu"] }] } }];
    for (const a of affinities) for (const c of clusters) assert.equal(affinityMismatch(a, c) === undefined, clusterMatches(a, c));
  });
});
