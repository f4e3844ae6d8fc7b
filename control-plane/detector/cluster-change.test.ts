import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster, Placement, PropagationPolicy } from "../../shared/api/types.ts";
import { BindingIndex, policyId } from "../caches/binding-index.ts";
import { bindingOf } from "../caches/binding-index.fixtures.ts";
import { keysAffected, placementAffected, readinessOnly } from "./cluster-change.ts";

const cluster = (o: { name?: string; labels?: Record<string, string>; region?: string; ready?: boolean; deleting?: boolean; taint?: boolean } = {}): Cluster => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "Cluster",
  metadata: { name: o.name ?? "m1", labels: o.labels ?? {}, ...(o.deleting ? { deletionTimestamp: "2026-11-23T10:00:00Z" } : {}) },
  spec: { ...(o.region ? { region: o.region } : {}), ...(o.taint ? { taints: [{ key: "k", effect: "NoExecute" as const }] } : {}) },
  status: { conditions: [{ type: "Ready", status: o.ready === false ? "False" : "True", reason: "", message: "", lastTransitionTime: "2026-11-23T10:00:00Z" }] },
});

const env: Placement = { clusterAffinity: { labelSelector: { matchLabels: { env: "prod" } } } };
const divided: Placement = { replicaScheduling: { replicaSchedulingType: "Divided" } };
const groups: Placement = { clusterAffinities: [{ affinityName: "a", clusterNames: ["m1"] }, { affinityName: "b", clusterNames: ["m2"] }] };
const spreadByLabel: Placement = { spreadConstraints: [{ spreadByLabel: "rack", maxGroups: 1 }] };
const spreadByRegion: Placement = { spreadConstraints: [{ spreadByField: "region", maxGroups: 1 }] };
const named: Placement = { clusterAffinity: { clusterNames: ["m1"] } };

describe("placementAffected", () => {
  const prod = { labels: { env: "prod" } };
  const cases: { name: string; placement: Placement | undefined; before?: Cluster; after?: Cluster; want: boolean }[] = [
    { name: "Duplicated, every cluster: a readiness flap changes nothing", placement: undefined, before: cluster(), after: cluster({ ready: false }), want: false },
    { name: "Duplicated, every cluster: a new cluster", placement: undefined, after: cluster(), want: true },
    { name: "Duplicated, every cluster: a cluster gone", placement: undefined, before: cluster(), want: true },
    { name: "Duplicated, every cluster: an unjoin begins", placement: undefined, before: cluster(), after: cluster({ deleting: true }), want: true },
    { name: "Duplicated, every cluster: a NoExecute taint", placement: undefined, before: cluster(), after: cluster({ taint: true }), want: true },
    { name: "Duplicated, every cluster: a label nothing reads", placement: undefined, before: cluster(), after: cluster({ labels: { team: "x" } }), want: false },
    { name: "Divided: a readiness flap moves replicas", placement: divided, before: cluster(), after: cluster({ ready: false }), want: true },
    { name: "affinity groups: readiness chooses the group", placement: groups, before: cluster({ ready: false }), after: cluster(), want: true },
    { name: "affinity groups: a cluster no group names", placement: groups, before: cluster({ name: "m3" }), after: cluster({ name: "m3", ready: false }), want: false },
    { name: "spread constraints: a readiness flap counts, to be safe", placement: spreadByRegion, before: cluster(), after: cluster({ ready: false }), want: true },
    { name: "spread by label: a label change", placement: spreadByLabel, before: cluster(), after: cluster({ labels: { rack: "r1" } }), want: true },
    { name: "spread by region: a label change", placement: spreadByRegion, before: cluster(), after: cluster({ labels: { rack: "r1" } }), want: false },
    { name: "label selector: the cluster comes into it", placement: env, before: cluster(), after: cluster(prod), want: true },
    { name: "label selector: the cluster leaves it", placement: env, before: cluster(prod), after: cluster(), want: true },
    { name: "label selector: outside it before and after", placement: env, before: cluster(), after: cluster({ labels: { env: "dev" } }), want: false },
    { name: "label selector: inside it, another label changes", placement: env, before: cluster(prod), after: cluster({ labels: { env: "prod", team: "x" } }), want: false },
    { name: "label selector: a new cluster outside it", placement: env, after: cluster(), want: false },
    { name: "label selector: a selected cluster's region changes (spec)", placement: env, before: cluster(prod), after: cluster({ ...prod, region: "eu" }), want: true },
    { name: "by name: another cluster's anything", placement: named, before: cluster({ name: "m2" }), after: cluster({ name: "m2", region: "eu", ready: false }), want: false },
    { name: "by name: that cluster goes", placement: named, before: cluster(), want: true },
  ];
  for (const c of cases) it(c.name, () => assert.equal(placementAffected(c.placement, { before: c.before, after: c.after }), c.want));
});

describe("keysAffected: what one cluster's flap enqueues", () => {
  // T templates over K clusters: most under a Duplicated policy that selects every cluster; one
  // in ten under a Divided policy over the upper half of the clusters; one under a policy that
  // names m1. One template is being evicted from m7.
  const T = 1000;
  const K = 100;
  const policy = (name: string, placement?: Placement): PropagationPolicy => ({
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "ClusterPropagationPolicy",
    metadata: { name },
    spec: { resourceSelectors: [], ...(placement ? { placement } : {}) },
  });
  const all = policy("all");
  const clusters = Array.from({ length: K }, (_, i) => `m${i}`);
  const split = policy("split", { ...divided, clusterAffinity: { clusterNames: clusters.slice(K / 2) } });
  const few = policy("few", named);
  const index = new BindingIndex();
  for (let t = 0; t < T; t++) {
    const p = t % 10 === 0 ? "split" : t === 1 ? "few" : "all";
    index.set(bindingOf({ name: `t${t}`, targets: p === "few" ? ["m1"] : clusters.slice(p === "split" ? K / 2 : 0), policy: p, ...(t === 2 ? { evicting: ["m7"] } : {}) }));
  }
  const lookup = { targeting: (c: string) => index.targeting(c), evictingFrom: (c: string) => index.evictingFrom(c), placedBy: (p: PropagationPolicy) => index.placedBy(policyId(p)) };
  const policies = [all, split, few];

  it("a readiness flap of a cluster only Duplicated templates are on: only the binding evicting from it", () => {
    const keys = keysAffected("m7", { before: cluster({ name: "m7" }), after: cluster({ name: "m7", ready: false }) }, policies, lookup);
    assert.deepEqual([...keys], ["apps/v1/Deployment/default/t2"], "a Duplicated schedule keeps a cluster through a flap");
  });
  it("a readiness flap under a Divided policy: its templates (replicas move), and no Duplicated one", () => {
    const keys = keysAffected("m70", { before: cluster({ name: "m70" }), after: cluster({ name: "m70", ready: false }) }, policies, lookup);
    assert.equal(keys.size, T / 10);
  });
  it("a new cluster: the templates of the policies that select it, and nothing placed by name elsewhere", () => {
    const keys = keysAffected("m100", { before: undefined, after: cluster({ name: "m100" }) }, policies, lookup);
    assert.equal(keys.size, T - T / 10 - 1);
  });
  it("a label change no placement reads: the bindings on the cluster only", () => {
    const keys = keysAffected("m70", { before: cluster({ name: "m70" }), after: cluster({ name: "m70", labels: { team: "x" } }) }, policies, lookup);
    assert.equal(keys.size, T - 1);
  });
  it("a cluster no template is on and no policy selects: nothing", () => {
    const narrow = [policy("few", named)];
    const empty = new BindingIndex();
    const none = { targeting: (c: string) => empty.targeting(c), evictingFrom: (c: string) => empty.evictingFrom(c), placedBy: (p: PropagationPolicy) => empty.placedBy(policyId(p)) };
    assert.equal(keysAffected("m9", { before: cluster({ name: "m9" }), after: cluster({ name: "m9", labels: { a: "b" } }) }, narrow, none).size, 0);
  });
});

describe("readinessOnly", () => {
  const cases: { name: string; before?: Cluster; after?: Cluster; want: boolean }[] = [
    { name: "Ready to not Ready", before: cluster(), after: cluster({ ready: false }), want: true },
    { name: "and a label too", before: cluster(), after: cluster({ ready: false, labels: { a: "b" } }), want: false },
    { name: "and a taint too", before: cluster(), after: cluster({ ready: false, taint: true }), want: false },
    { name: "and its unjoin begins", before: cluster(), after: cluster({ ready: false, deleting: true }), want: false },
    { name: "a new cluster", after: cluster(), want: false },
    { name: "a cluster gone", before: cluster(), want: false },
  ];
  for (const c of cases) it(c.name, () => assert.equal(readinessOnly({ before: c.before, after: c.after }), c.want));
});
