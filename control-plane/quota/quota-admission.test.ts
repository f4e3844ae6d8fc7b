import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { FederatedResourceQuota, ResourceList } from "../../shared/api/quota.ts";
import { quotaRefusal } from "./quota-admission.ts";
import type { Workload } from "./quota-usage.ts";

const frq = (name: string, overall: ResourceList): FederatedResourceQuota => ({ apiVersion: "flotilla.dev/v1alpha1", kind: "FederatedResourceQuota", metadata: { name, namespace: "shop" }, spec: { overall } });
const w = (replicas: number, cpu: string, memory?: string): Workload => ({ replicas, requests: { cpu, ...(memory === undefined ? {} : { memory }) } });

describe("quotaRefusal: a change is refused only when it adds use that goes past overall", () => {
  const cases: { name: string; quotas: FederatedResourceQuota[]; others: Workload[]; before: Workload[]; after: Workload[]; want: string | undefined }[] = [
    { name: "a new template within overall", quotas: [frq("team", { cpu: "4" })], others: [w(2, "1")], before: [], after: [w(2, "1")], want: undefined },
    {
      name: "a new template past overall: Karmada's words, and who takes what",
      quotas: [frq("team", { cpu: "4" })],
      others: [w(2, "1")],
      before: [],
      after: [w(5, "500m")],
      want: "FederatedResourceQuota(shop/team) exceeded for resource cpu: requested sum 4500m, limit 4 (Deployment web takes 2500m, the namespace's other workloads 2)",
    },
    { name: "a scale-down in a namespace already over quota", quotas: [frq("team", { cpu: "1" })], others: [w(4, "1")], before: [w(3, "1")], after: [w(2, "1")], want: undefined },
    { name: "an unchanged use in a namespace over quota (the quota was lowered)", quotas: [frq("team", { cpu: "1" })], others: [], before: [w(3, "1")], after: [w(3, "1")], want: undefined },
    { name: "a scale-up past overall", quotas: [frq("team", { cpu: "4" })], others: [], before: [w(4, "1")], after: [w(5, "1")], want: "FederatedResourceQuota(shop/team) exceeded for resource cpu: requested sum 5, limit 4 (Deployment web takes 5, the namespace's other workloads 0)" },
    { name: "more memory only: cpu past overall already, but not raised by the change", quotas: [frq("team", { cpu: "1", memory: "4Gi" })], others: [w(2, "1", "1Gi")], before: [w(1, "1", "1Gi")], after: [w(1, "1", "2Gi")], want: undefined },
    { name: "exactly overall is within", quotas: [frq("team", { cpu: "1" })], others: [w(3, "100m")], before: [], after: [w(7, "100m")], want: undefined },
    { name: "a resource overall does not name is not limited", quotas: [frq("team", { memory: "1Gi" })], others: [], before: [], after: [w(100, "1")], want: undefined },
    {
      name: "two quotas: each one it goes past, in name order",
      quotas: [frq("b-small", { cpu: "2" }), frq("a-big", { cpu: "3" })],
      others: [],
      before: [],
      after: [w(4, "1")],
      want:
        "FederatedResourceQuota(shop/a-big) exceeded for resource cpu: requested sum 4, limit 3 (Deployment web takes 4, the namespace's other workloads 0); FederatedResourceQuota(shop/b-small) exceeded for resource cpu: requested sum 4, limit 2 (Deployment web takes 4, the namespace's other workloads 0)",
    },
    { name: "pods counts replicas", quotas: [frq("team", { pods: "3" })], others: [w(2, "0")], before: [], after: [{ replicas: 2, requests: {} }], want: "FederatedResourceQuota(shop/team) exceeded for resource pods: requested sum 4, limit 3 (Deployment web takes 2, the namespace's other workloads 2)" },
  ];
  for (const c of cases) it(c.name, () => assert.equal(quotaRefusal({ quotas: c.quotas, others: c.others, before: c.before, after: c.after }, "Deployment web"), c.want));
});
