import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster, GracefulEvictionTask, KubeObject, OverridePolicy, ResourceBindingSpec } from "../../shared/api/types.ts";
import { preservedLabelsFor } from "./preserved-labels.ts";
import { renderClusterWorks } from "./render-works.ts";

const task = (over: Partial<GracefulEvictionTask>): GracefulEvictionTask => ({
  fromCluster: "m1",
  reason: "ApplicationFailure",
  creationTimestamp: "2026-11-25T10:00:00Z",
  purgeMode: "Directly",
  preservedLabelState: { "example.com/checkpoint": "cp-7" },
  clustersBeforeFailover: ["m1"],
  ...over,
});
const spec = (clusters: string[], tasks: GracefulEvictionTask[]): ResourceBindingSpec => ({ resource: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, clusters: clusters.map((name) => ({ name })), gracefulEvictionTasks: tasks });

describe("preservedLabelsFor: which cluster's copy gets the state (Karmada's rules)", () => {
  const cases: { name: string; spec: ResourceBindingSpec; cluster: string; want?: Record<string, string> }[] = [
    { name: "the one cluster it moved to", spec: spec(["m2"], [task({})]), cluster: "m2", want: { "example.com/checkpoint": "cp-7" } },
    { name: "a cluster it ran in before the move gets none", spec: spec(["m2"], [task({ clustersBeforeFailover: ["m1", "m2"] })]), cluster: "m2" },
    { name: "none while it runs in two clusters", spec: spec(["m2", "m3"], [task({})]), cluster: "m2" },
    { name: "a held copy does not count as running: Gracefully's m1 stays listed", spec: spec(["m1", "m2"], [task({ purgeMode: "Gracefully" })]), cluster: "m2" },
    { name: "only the latest task counts, and only with Directly", spec: spec(["m3"], [task({}), task({ fromCluster: "m2", creationTimestamp: "2026-11-25T11:00:00Z", purgeMode: "Gracefully" })]), cluster: "m3" },
    { name: "the latest Directly task wins over an earlier one", spec: spec(["m3"], [task({}), task({ fromCluster: "m2", creationTimestamp: "2026-11-25T11:00:00Z", preservedLabelState: { "example.com/checkpoint": "cp-9" } })]), cluster: "m3", want: { "example.com/checkpoint": "cp-9" } },
    { name: "no task, no labels", spec: spec(["m2"], []), cluster: "m2" },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(preservedLabelsFor(c.spec)(c.cluster), c.want));
});

describe("renderClusterWorks with preserved labels", () => {
  const web: KubeObject = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: "ns", labels: { app: "web" } }, spec: { replicas: 2 } };
  const m2: Cluster = { apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name: "m2" }, spec: {} };
  const labelsOf = (w: ReturnType<typeof renderClusterWorks>, cluster: string) => {
    const work = w.get(cluster);
    assert.ok(work?.ok);
    return (JSON.parse(work.manifests[0]?.toString() ?? "{}") as KubeObject).metadata.labels;
  };
  it("adds them to that cluster's copy only, before its overrides", () => {
    const override: OverridePolicy = {
      apiVersion: "flotilla.dev/v1alpha1",
      kind: "OverridePolicy",
      metadata: { name: "o", namespace: "ns" },
      spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment" }], overrideRules: [{ targetCluster: { clusterNames: ["m2"] }, overriders: { labelsOverrider: [{ operator: "add", value: { tier: "b" } }] } }] },
    };
    const labels = (c: string) => (c === "m2" ? { "example.com/checkpoint": "cp-7" } : undefined);
    const plain = renderClusterWorks(web, [{ name: "m2" }, { name: "m3" }], () => undefined, [], "Abort", false, undefined, labels);
    assert.deepEqual(labelsOf(plain, "m2"), { app: "web", "example.com/checkpoint": "cp-7" });
    assert.deepEqual(labelsOf(plain, "m3"), { app: "web" });
    const overridden = renderClusterWorks(web, [{ name: "m2" }], () => m2, [override], "Abort", false, undefined, labels);
    assert.deepEqual(labelsOf(overridden, "m2"), { app: "web", "example.com/checkpoint": "cp-7", tier: "b" });
  });
});
