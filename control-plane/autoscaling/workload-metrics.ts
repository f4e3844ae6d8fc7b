// What each member cluster's agent reports about the target workload's pods, summarised (never
// per pod), and the fleet's totals the replica calculator works on.
//
// What an agent must send, per workload a FederatedHPA targets and per metric of its spec (keyed
// as the functions below say):
// - `pods`: the workload's pods in the member, leaving out pods being deleted and Failed pods
//   (Kubernetes ignores those); `readyPods`: those Running with condition Ready=True.
// - per Resource / ContainerResource metric (`resourceKey`): the pods split three ways, as
//   kube-controller-manager splits them (its groupPods):
//   - unready: Pending pods, and for cpu the pods whose sample must not count yet: not Ready, or
//     within the CPU initialization period (default 5 min) since start with a sample older than
//     one metrics window after the last readiness change, or never Ready yet within the initial
//     readiness delay (default 30 s). The agent applies these timing rules: the summary has no
//     per-pod times. Other resources and custom metrics: only Pending pods are unready;
//   - missing: the other pods the metrics API returned no sample for;
//   - ready: the rest, with the sum of their usage (milli-units, the whole pod's, or the named
//     container's).
//   For each group the sum of the pods' requests (milli-units, over all containers, or the named
//   container), and how many pods have a container without a request for the resource.
// - per Pods metric (`podsMetricKey`): the same split (unready = Pending) and the ready pods' sum.
// - per Object metric (`objectMetricKey`) and External metric (`externalMetricKey`): the value the
//   member's metrics APIs return (External: summed over the series the selector matches).
//   Leave a key out when the member has no such object or series: it then counts 0.
import { canonicalJson } from "../../shared/content-hash.ts";
import type { CrossVersionObjectReference, MetricIdentifier } from "./federated-hpa-api.ts";

/** One resource's figures over one member's pods of the workload; quantities in milli-units. */
export interface ResourceGroupSums {
  readyPods: number;
  readyUsage: bigint;
  readyRequests: bigint;
  unreadyPods: number;
  unreadyRequests: bigint;
  missingPods: number;
  missingRequests: bigint;
  /** Pods (any group) with a container that requests none of this resource. */
  podsWithoutRequest: number;
}

/** One Pods metric's figures over one member's pods of the workload; values in milli-units. */
export interface PodsMetricSums {
  readyPods: number;
  readyValue: bigint;
  unreadyPods: number;
  missingPods: number;
}

/** One agent's report on one workload. */
export interface WorkloadMetricsSummary {
  pods: number;
  readyPods: number;
  resources?: Record<string, ResourceGroupSums>;
  podsMetrics?: Record<string, PodsMetricSums>;
  objectMetrics?: Record<string, bigint>;
  externalMetrics?: Record<string, bigint>;
}

/**
 * One member the workload is placed on: the pods the control plane expects there (from its
 * binding and Work status), and the agent's summary, absent when its metrics did not arrive.
 */
export interface MemberMetrics {
  cluster: string;
  expectedPods: number;
  summary?: WorkloadMetricsSummary;
}

/** The key of a Resource (no container) or ContainerResource metric: "cpu", "memory@app". */
export function resourceKey(resource: string, container?: string): string {
  return container === undefined ? resource : `${resource}@${container}`;
}

/** The key of a Pods or External metric: its name, with its selector in canonical JSON if any. */
export function podsMetricKey(metric: MetricIdentifier): string {
  return metric.selector === undefined ? metric.name : `${metric.name}${canonicalJson(metric.selector)}`;
}

export const externalMetricKey = podsMetricKey;

/** The key of an Object metric: "apps/v1/Deployment/web:requests". */
export function objectMetricKey(object: CrossVersionObjectReference, metric: MetricIdentifier): string {
  return `${object.apiVersion ?? ""}/${object.kind}/${object.name}:${podsMetricKey(metric)}`;
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
