import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject, ResourceBinding } from "../../shared/api/types.ts";
import { NATIVE_INTERPRETERS } from "../../shared/interpreter/registry.ts";
import { templateWorkloads } from "./template-admission.ts";

const deployment = (replicas: number, cpu?: string): KubeObject => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: "shop" },
  spec: { replicas, template: { spec: { containers: [{ name: "c", image: "nginx", ...(cpu === undefined ? {} : { resources: { requests: { cpu } } }) }] } } },
});
const binding = (clusters: string[], divided = false): ResourceBinding =>
  ({
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "ResourceBinding",
    metadata: { name: "web-deployment", namespace: "shop" },
    spec: {
      resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "shop", name: "web" },
      clusters: clusters.map((name) => ({ name, replicas: 1 })),
      ...(divided ? { placement: { replicaScheduling: { replicaSchedulingType: "Divided" } } } : {}),
    },
  }) as ResourceBinding;

describe("templateWorkloads: what a template would take once scheduled", () => {
  const cases: { name: string; obj: KubeObject; binding?: ResourceBinding; want: unknown }[] = [
    { name: "not bound yet: one copy of its replicas", obj: deployment(3, "500m"), want: [{ replicas: 3, requests: { cpu: "500m" } }] },
    { name: "Duplicated on two clusters: twice", obj: deployment(3, "500m"), binding: binding(["m1", "m2"]), want: [{ replicas: 6, requests: { cpu: "500m" } }] },
    { name: "Divided: its replicas once, however many clusters", obj: deployment(3, "500m"), binding: binding(["m1", "m2"], true), want: [{ replicas: 3, requests: { cpu: "500m" } }] },
    { name: "bound, but on no cluster yet: one copy", obj: deployment(2, "1"), binding: binding([]), want: [{ replicas: 2, requests: { cpu: "1" } }] },
    { name: "no requests: replicas that request nothing", obj: deployment(2), want: [{ replicas: 2, requests: {} }] },
    { name: "a kind without replicas takes nothing", obj: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } }, want: [] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(templateWorkloads(c.obj, c.binding, NATIVE_INTERPRETERS), c.want));
});
