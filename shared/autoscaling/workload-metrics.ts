// What each member cluster's agent reports about a workload's pods, summarised (never per pod),
// and the keys it reports each metric under: shared, since agents build it and the control
// plane's autoscaling sums it (control-plane/autoscaling/workload-metrics.ts).
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
import type { CrossVersionObjectReference, MetricIdentifier } from "../api/autoscaling.ts";
import { canonicalJson } from "../content-hash.ts";

export type { CrossVersionObjectReference, MetricIdentifier };

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
