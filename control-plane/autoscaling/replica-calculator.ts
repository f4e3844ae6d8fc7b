// The replica count one metric of a FederatedHPA asks for, over the fleet's summaries: what
// kube-controller-manager's HPA computes per metric (Resource and ContainerResource utilization
// or average value, Pods average value, Object and External value or average value), with its
// failure reasons, its metric names and the metric's status for status.currentMetrics.
import { canonicalQuantity, scaledQuantity } from "../../shared/quantity.ts";
import type { MetricSpec, MetricStatus, MetricTarget, MetricValueStatus, Tolerances } from "./federated-hpa-api.ts";
import {
  averageRatioOf, replicasForAverageValue, replicasForValue, replicasFromGroups, utilizationPercent, utilizationRatioOf, withinTolerance,
} from "./usage-ratio.ts";
import type { MemberMetrics, WorkloadMetricsSummary } from "./workload-metrics.ts";
import {
  externalMetricKey, fleetPodsMetricSums, fleetResourceSums, fleetValue, objectMetricKey, podsMetricKey, resourceKey,
} from "./workload-metrics.ts";

/** What one metric needs besides its spec: the fleet's reports and the target's replica counts. */
export interface ReplicaCalculatorInput {
  members: MemberMetrics[];
  /** The template's spec.replicas. */
  specReplicas: number;
  /** The template's status.replicas (the pods that exist), which per-pod Object/External targets divide by. */
  statusReplicas: number;
  tolerances: Tolerances;
  /** The pod template's request per resourceKey (milli-units), for pods of members that sent nothing. */
  podRequests?: Record<string, bigint>;
}

/** One metric's answer: a replica count with the metric's name and status, or why there is none. */
export type MetricProposal =
  | { ok: true; replicas: number; metricName: string; status: MetricStatus }
  | { ok: false; reason: string; message: string; error: string };

const NO_PODS = "no pods returned by selector while calculating replica count";
const NO_READY = "did not receive metrics for targeted pods (pods might be unready)";

const milli = (q: string | number) => scaledQuantity(String(q), 3);
const quantity = (m: bigint) => canonicalQuantity(m, -3, "DecimalSI");

/** The ScalingActive=False reason and message Kubernetes gives a metric it could not compute. */
function failed(reason: string, err: string): MetricProposal {
  return { ok: false, reason, message: `the HPA was unable to compute the replica count: ${err}`, error: err };
}

/** The desired replica count one metric asks for. */
export function replicasForMetric(metric: MetricSpec, input: ReplicaCalculatorInput): MetricProposal {
  switch (metric.type) {
    case "Resource":
      if (metric.resource === undefined) break;
      return resourceReplicas(metric.resource.name, undefined, metric.resource.target, input);
    case "ContainerResource":
      if (metric.containerResource === undefined) break;
      return resourceReplicas(metric.containerResource.name, metric.containerResource.container, metric.containerResource.target, input);
    case "Pods":
      if (metric.pods === undefined) break;
      return podsReplicas(metric, metric.pods, input);
    case "Object":
      if (metric.object === undefined) break;
      return valueReplicas(metric, input);
    case "External":
      if (metric.external === undefined) break;
      return valueReplicas(metric, input);
    default:
      return failed("InvalidMetricSourceType", `unknown metric source type "${String((metric as { type: unknown }).type)}"`);
  }
  return failed("InvalidMetricSourceType", `metric of type "${metric.type}" has no ${metric.type[0]?.toLowerCase()}${metric.type.slice(1)} source`);
}

function resourceReplicas(name: string, container: string | undefined, target: MetricTarget, input: ReplicaCalculatorInput): MetricProposal {
  const reason = container === undefined ? "FailedGetResourceMetric" : "FailedGetContainerResourceMetric";
  const kind = container === undefined ? `${name} resource` : `${name} container resource`;
  const status = (current: MetricValueStatus): MetricStatus =>
    container === undefined ? { type: "Resource", resource: { name, current } } : { type: "ContainerResource", containerResource: { name, container, current } };
  const key = resourceKey(name, container);
  const sums = fleetResourceSums(input.members, key, input.podRequests?.[key]);
  const groups = { readyPods: sums.readyPods, unreadyPods: sums.unreadyPods, missingPods: sums.missingPods };
  if (target.averageValue !== undefined) {
    const targetMilli = milli(target.averageValue);
    const err = podsError(groups);
    if (err !== undefined) return failed(reason, `failed to get ${name} usage: ${err}`);
    const replicas = replicasFromGroups(groups, {
      ratio: averageRatioOf(targetMilli), readyUsage: sums.readyUsage, readyWeight: 0n,
      missingUsageOnScaleDown: targetMilli * BigInt(sums.missingPods), missingWeight: 0n, unreadyWeight: 0n,
    }, input.specReplicas, input.tolerances);
    return { ok: true, replicas, metricName: kind, status: status({ averageValue: quantity(sums.readyUsage / BigInt(sums.readyPods)) }) };
  }
  if (target.averageUtilization === undefined) {
    return failed(reason, "invalid resource metric source: neither an average utilization target nor an average value (usage) target was set");
  }
  const targetPercent = target.averageUtilization;
  const err = podsError(groups)
    ?? (sums.clustersWithoutRequest.length > 0
      ? `missing request for ${name}${container === undefined ? "" : ` in container ${container}`} in pods of cluster(s) ${sums.clustersWithoutRequest.join(", ")}`
      : undefined)
    ?? (sums.readyRequests === 0n ? "no metrics returned matched known pods" : undefined);
  if (err !== undefined) return failed(reason, `failed to get ${name} utilization: ${err}`);
  const fallbackPercent = BigInt(Math.max(100, targetPercent));
  const replicas = replicasFromGroups(groups, {
    ratio: utilizationRatioOf(targetPercent), readyUsage: sums.readyUsage, readyWeight: sums.readyRequests,
    missingUsageOnScaleDown: (sums.missingRequests * fallbackPercent) / 100n, missingWeight: sums.missingRequests, unreadyWeight: sums.unreadyRequests,
  }, input.specReplicas, input.tolerances);
  return {
    ok: true, replicas, metricName: `${kind} utilization (percentage of request)`,
    status: status({ averageUtilization: utilizationPercent(sums.readyUsage, sums.readyRequests), averageValue: quantity(sums.readyUsage / BigInt(sums.readyPods)) }),
  };
}

/** Kubernetes' errors for a metric's pods: none at all, or none ready with a sample. */
function podsError(g: { readyPods: number; unreadyPods: number; missingPods: number }): string | undefined {
  if (g.readyPods + g.unreadyPods + g.missingPods === 0) return NO_PODS;
  if (g.readyPods === 0) return NO_READY;
  return undefined;
}

function podsReplicas(metric: MetricSpec, pods: NonNullable<MetricSpec["pods"]>, input: ReplicaCalculatorInput): MetricProposal {
  const name = pods.metric.name;
  if (pods.target.averageValue === undefined) return failed("FailedGetPodsMetric", "invalid pods metric source: no average value target was set");
  const targetMilli = milli(pods.target.averageValue);
  const sums = fleetPodsMetricSums(input.members, podsMetricKey(pods.metric));
  const err = podsError(sums);
  if (err !== undefined) return failed("FailedGetPodsMetric", `failed to get pods metric value: ${err}`);
  const replicas = replicasFromGroups(sums, {
    ratio: averageRatioOf(targetMilli), readyUsage: sums.readyValue, readyWeight: 0n,
    missingUsageOnScaleDown: targetMilli * BigInt(sums.missingPods), missingWeight: 0n, unreadyWeight: 0n,
  }, input.specReplicas, input.tolerances);
  const current = { averageValue: quantity(sums.readyValue / BigInt(sums.readyPods)) };
  return { ok: true, replicas, metricName: `pods metric ${name}`, status: { type: metric.type, pods: { metric: pods.metric, current } } };
}

/** Object and External metrics: one value for the workload, compared whole or per pod. */
function valueReplicas(metric: MetricSpec, input: ReplicaCalculatorInput): MetricProposal {
  const source = metric.object ?? metric.external;
  if (source === undefined) return failed("InvalidMetricSourceType", `metric of type "${metric.type}" has no source`);
  const isObject = metric.object !== undefined;
  const reason = isObject ? "FailedGetObjectMetric" : "FailedGetExternalMetric";
  const { target } = source;
  const name = metric.object !== undefined
    ? `${metric.object.describedObject.kind} metric ${metric.object.metric.name}`
    : `external metric ${source.metric.name}${source.metric.selector === undefined ? "" : JSON.stringify(source.metric.selector)}`;
  const key = metric.object !== undefined ? objectMetricKey(metric.object.describedObject, metric.object.metric) : externalMetricKey(source.metric);
  const pick = (s: WorkloadMetricsSummary) => (isObject ? s.objectMetrics : s.externalMetrics)?.[key];
  const fleet = fleetValue(input.members, pick);
  if (!fleet.reported) return failed(reason, `unable to get ${isObject ? "" : "external "}metric ${source.metric.name}: no member cluster reported it`);
  const status = (current: MetricValueStatus): MetricStatus =>
    metric.object !== undefined
      ? { type: "Object", object: { describedObject: metric.object.describedObject, metric: metric.object.metric, current } }
      : { type: "External", external: { metric: source.metric, current } };
  let replicas: number;
  let current: MetricValueStatus;
  if (target.value !== undefined) {
    const ratio = Number(fleet.value) / Number(milli(target.value));
    // Kubernetes counts the pods only when it scales from a non-zero count.
    if (input.specReplicas !== 0 && !withinTolerance(ratio, input.tolerances) && fleet.pods === 0) return failed(reason, `unable to calculate ready pods: ${NO_PODS}`);
    replicas = replicasForValue(ratio, fleet.readyPods, input.specReplicas, input.tolerances);
    current = { value: quantity(fleet.value) };
  } else if (target.averageValue !== undefined) {
    replicas = replicasForAverageValue(fleet.value, milli(target.averageValue), input.statusReplicas, input.tolerances);
    const perPod = input.statusReplicas === 0 ? fleet.value : BigInt(Math.ceil(Number(fleet.value) / input.statusReplicas));
    current = { averageValue: quantity(perPod) };
  } else {
    return failed(reason, `invalid ${isObject ? "object" : "external"} metric source: neither a value target nor an average value target was set`);
  }
  // A member that sent nothing may hold part of the value: never scale down on a short sum.
  if (fleet.incomplete && replicas < input.specReplicas) replicas = input.specReplicas;
  return { ok: true, replicas, metricName: name, status: status(current) };
}
