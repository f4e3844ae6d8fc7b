import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject, ResourceBinding, ResourceBindingSpec } from "../../shared/api/types.ts";
import { NATIVE_INTERPRETERS } from "../../shared/interpreter/registry.ts";
import { bindingWorkloads } from "./namespace-usage.ts";

const web: KubeObject = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: "shop" }, spec: { replicas: 4, template: { spec: { containers: [{ name: "c", image: "nginx", resources: { requests: { cpu: "250m" } } }] } } } };
const binding = (spec: Partial<ResourceBindingSpec>): ResourceBinding =>
  ({ apiVersion: "flotilla.dev/v1alpha1", kind: "ResourceBinding", metadata: { name: "web-deployment", namespace: "shop" }, spec: { resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "shop", name: "web" }, clusters: [], ...spec } }) as ResourceBinding;
const divided = { replicaScheduling: { replicaSchedulingType: "Divided" as const } };

describe("bindingWorkloads: what a binding takes (Karmada's CalculateResourceUsage)", () => {
  const cases: { name: string; b: ResourceBinding; cluster?: string; want: { replicas: number; requests: Record<string, string> }[] }[] = [
    { name: "Duplicated on two clusters: each cluster's replicas", b: binding({ replicas: 4, clusters: [{ name: "m1", replicas: 4 }, { name: "m2", replicas: 4 }] }), want: [{ replicas: 8, requests: { cpu: "250m" } }] },
    { name: "on one cluster", b: binding({ replicas: 4, clusters: [{ name: "m1", replicas: 4 }, { name: "m2", replicas: 4 }] }), cluster: "m2", want: [{ replicas: 4, requests: { cpu: "250m" } }] },
    { name: "fault: a copy kept while it is replaced elsewhere (graceful eviction) is not counted", b: binding({ replicas: 4, clusters: [{ name: "m1", replicas: 4 }, { name: "m2", replicas: 4 }], gracefulEvictionTasks: [{ fromCluster: "m1", reason: "ClusterNotReady", creationTimestamp: "2026-01-01T00:00:00Z" }] }), want: [{ replicas: 4, requests: { cpu: "250m" } }] },
    { name: "fault: Divided replicas added first while they move count once (at most the template's)", b: binding({ replicas: 4, placement: divided, clusters: [{ name: "m1", replicas: 3 }, { name: "m2", replicas: 3 }] }), want: [{ replicas: 4, requests: { cpu: "250m" } }] },
    { name: "Divided with replicas unplaced: what is placed", b: binding({ replicas: 4, placement: divided, clusters: [{ name: "m1", replicas: 3 }] }), want: [{ replicas: 3, requests: { cpu: "250m" } }] },
    { name: "components: each component's replicas on each cluster", b: binding({ clusters: [{ name: "m1" }, { name: "m2" }], components: [{ name: "jm", replicas: 1, replicaRequirements: { resourceRequest: { cpu: "1" } } }, { name: "tm", replicas: 2, replicaRequirements: { resourceRequest: { cpu: "2" } } }] }), want: [{ replicas: 2, requests: { cpu: "1" } }, { replicas: 4, requests: { cpu: "2" } }] },
    { name: "scheduled nowhere: nothing", b: binding({ replicas: 4 }), want: [] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(bindingWorkloads(c.b, web, NATIVE_INTERPRETERS, c.cluster), c.want));
});
