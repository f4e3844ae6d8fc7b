// Builders for members' summaries in the tests: pods described one by one, summed as an agent
// would sum them.
import assert from "node:assert/strict";
import type { Tolerances } from "./federated-hpa-api.ts";
import type { MetricProposal, ReplicaCalculatorInput } from "./replica-calculator.ts";
import type { MemberMetrics, ResourceGroupSums, WorkloadMetricsSummary } from "./workload-metrics.ts";

/** A member's pods for one resource: each ready pod's usage (milli), and one request for every pod. */
export interface PodsDescription {
  usage: number[];
  request?: number;
  unready?: number;
  missing?: number;
  withoutRequest?: number;
}

/** The sums an agent sends for pods as described. */
export function resourceSums(d: PodsDescription): ResourceGroupSums {
  const req = BigInt(d.request ?? 1000);
  const unready = d.unready ?? 0;
  const missing = d.missing ?? 0;
  return {
    readyPods: d.usage.length,
    readyUsage: d.usage.reduce((s, u) => s + BigInt(u), 0n),
    readyRequests: req * BigInt(d.usage.length),
    unreadyPods: unready,
    unreadyRequests: req * BigInt(unready),
    missingPods: missing,
    missingRequests: req * BigInt(missing),
    podsWithoutRequest: d.withoutRequest ?? 0,
  };
}

/** A member reporting one resource key for pods as described. */
export function resourceMember(cluster: string, key: string, d: PodsDescription): MemberMetrics {
  const pods = d.usage.length + (d.unready ?? 0) + (d.missing ?? 0);
  return { cluster, expectedPods: pods, summary: { pods, readyPods: d.usage.length, resources: { [key]: resourceSums(d) } } };
}

/** A member whose agent sent nothing, expected to run `pods` pods. */
export function silentMember(cluster: string, pods: number): MemberMetrics {
  return { cluster, expectedPods: pods };
}

/** A member with a summary made of the given parts. */
export function member(cluster: string, summary: Partial<WorkloadMetricsSummary> & { pods: number }): MemberMetrics {
  return { cluster, expectedPods: summary.pods, summary: { readyPods: summary.pods, ...summary } };
}

export const TOLERANCE_10: Tolerances = { scaleUp: 0.1, scaleDown: 0.1 };

/** The calculator's input for members, with the target at `replicas` (spec and status alike). */
export function calculatorInput(members: MemberMetrics[], replicas: number, extra: Partial<ReplicaCalculatorInput> = {}): ReplicaCalculatorInput {
  return { members, specReplicas: replicas, statusReplicas: replicas, tolerances: TOLERANCE_10, ...extra };
}

/** Asserts a proposal is a failure with Kubernetes' ScalingActive reason and a message like `message`. */
export function assertFailure(got: MetricProposal, reason: string, message: RegExp): void {
  assert.ok(!got.ok, JSON.stringify(got));
  assert.equal(got.reason, reason);
  assert.match(got.message, message);
}
