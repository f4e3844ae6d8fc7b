// The fleet's totals the replica calculator works on, from each member agent's summary of the
// target workload's pods (the summary and its keys: shared/autoscaling/workload-metrics.ts, where
// what an agent must send is spelled out).
import type { WorkloadMetricsSummary, ResourceGroupSums, PodsMetricSums } from "../../shared/autoscaling/workload-metrics.ts";

export type { PodsMetricSums, ResourceGroupSums, WorkloadMetricsSummary } from "../../shared/autoscaling/workload-metrics.ts";
export { externalMetricKey, objectMetricKey, podsMetricKey, resourceKey } from "../../shared/autoscaling/workload-metrics.ts";

/**
 * One member the workload is placed on: the pods the control plane expects there (from its
 * binding and Work status), and the agent's summary, absent when its metrics did not arrive.
 */
export interface MemberMetrics {
  cluster: string;
  expectedPods: number;
  summary?: WorkloadMetricsSummary;
}

/** A resource's fleet totals, and the members whose pods lack a request for it. */
export interface FleetResourceSums extends Omit<ResourceGroupSums, "podsWithoutRequest"> {
  clustersWithoutRequest: string[];
}

/**
 * The fleet's sums for one resource key. A member without a summary, or whose summary lacks the
 * key, counts all its expected pods as missing (Kubernetes' missing pods), each requesting
 * `podRequest` (the pod template's request) or else the average request of the pods that reported.
 */
export function fleetResourceSums(members: MemberMetrics[], key: string, podRequest?: bigint): FleetResourceSums {
  const sums: FleetResourceSums = {
    readyPods: 0, readyUsage: 0n, readyRequests: 0n, unreadyPods: 0, unreadyRequests: 0n, missingPods: 0, missingRequests: 0n, clustersWithoutRequest: [],
  };
  let unreported = 0;
  for (const m of members) {
    const r = m.summary?.resources?.[key];
    if (r === undefined) {
      unreported += m.expectedPods;
      continue;
    }
    sums.readyPods += r.readyPods;
    sums.readyUsage += r.readyUsage;
    sums.readyRequests += r.readyRequests;
    sums.unreadyPods += r.unreadyPods;
    sums.unreadyRequests += r.unreadyRequests;
    sums.missingPods += r.missingPods;
    sums.missingRequests += r.missingRequests;
    if (r.podsWithoutRequest > 0) sums.clustersWithoutRequest.push(m.cluster);
  }
  const reportedPods = sums.readyPods + sums.unreadyPods + sums.missingPods;
  const reportedRequests = sums.readyRequests + sums.unreadyRequests + sums.missingRequests;
  const perPod = podRequest ?? (reportedPods === 0 ? 0n : reportedRequests / BigInt(reportedPods));
  sums.missingPods += unreported;
  sums.missingRequests += perPod * BigInt(unreported);
  return sums;
}

/** The fleet's sums for one Pods metric; unreported members' expected pods are missing. */
export function fleetPodsMetricSums(members: MemberMetrics[], key: string): PodsMetricSums {
  const sums: PodsMetricSums = { readyPods: 0, readyValue: 0n, unreadyPods: 0, missingPods: 0 };
  for (const m of members) {
    const p = m.summary?.podsMetrics?.[key];
    if (p === undefined) {
      sums.missingPods += m.expectedPods;
      continue;
    }
    sums.readyPods += p.readyPods;
    sums.readyValue += p.readyValue;
    sums.unreadyPods += p.unreadyPods;
    sums.missingPods += p.missingPods;
  }
  return sums;
}

/** An Object or External metric over the fleet: the sum members report, and whether any is silent. */
export interface FleetValue {
  value: bigint;
  reported: boolean;
  /** Some member with pods sent no summary at all: the value may be short. */
  incomplete: boolean;
  readyPods: number;
  pods: number;
}

/** The fleet's value of an Object or External metric: members' values summed. */
export function fleetValue(members: MemberMetrics[], pick: (s: WorkloadMetricsSummary) => bigint | undefined): FleetValue {
  const fleet: FleetValue = { value: 0n, reported: false, incomplete: false, readyPods: 0, pods: 0 };
  for (const m of members) {
    if (m.summary === undefined) {
      if (m.expectedPods > 0) fleet.incomplete = true;
      fleet.pods += m.expectedPods;
      continue;
    }
    fleet.pods += m.summary.pods;
    fleet.readyPods += m.summary.readyPods;
    const v = pick(m.summary);
    if (v === undefined) continue;
    fleet.value += v;
    fleet.reported = true;
  }
  return fleet;
}
