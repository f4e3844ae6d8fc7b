import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { FederatedResourceQuota } from "../../shared/api/quota.ts";
import { quotaStatus } from "./quota-status.ts";
import type { Workload } from "./quota-usage.ts";

describe("quotaStatus: overall, overallUsed from the bindings, aggregatedStatus per assigned cluster from the schedule", () => {
  const frq: FederatedResourceQuota = {
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "FederatedResourceQuota",
    metadata: { name: "team", namespace: "shop" },
    spec: { overall: { cpu: "10", memory: "8Gi", pods: 20 }, staticAssignments: [{ clusterName: "member2", hard: { cpu: "4" } }, { clusterName: "member1", hard: { cpu: "6", memory: "4Gi" } }] },
  };
  // web: 2 replicas on member1, 1 on member2, 500m and 256Mi each.
  const placed: Record<string, Workload[]> = { member1: [{ replicas: 2, requests: { cpu: "500m", memory: "256Mi" } }], member2: [{ replicas: 1, requests: { cpu: "500m", memory: "256Mi" } }] };
  const usage = (cluster?: string): Workload[] => (cluster === undefined ? [{ replicas: 3, requests: { cpu: "500m", memory: "256Mi" } }] : (placed[cluster] ?? []));
  it("sums the namespace's use, names overall has only, sorted by cluster", () => {
    assert.deepEqual(quotaStatus(frq, usage), {
      overall: { cpu: "10", memory: "8Gi", pods: "20" },
      overallUsed: { cpu: "1500m", memory: "768Mi", pods: "3" },
      aggregatedStatus: [
        { clusterName: "member1", hard: { cpu: "6", memory: "4Gi" }, used: { cpu: "1", memory: "512Mi" } },
        { clusterName: "member2", hard: { cpu: "4" }, used: { cpu: "500m" } },
      ],
    });
  });
  it("no assignments: no aggregatedStatus; nothing bound: empty overallUsed", () => {
    assert.deepEqual(quotaStatus({ ...frq, spec: { overall: { cpu: "1" } } }, () => []), { overall: { cpu: "1" }, overallUsed: {} });
  });
});
