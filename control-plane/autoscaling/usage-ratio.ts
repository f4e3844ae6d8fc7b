// The replica count one usage ratio asks for, over the fleet's pods grouped as Kubernetes groups
// them (ready with a sample, unready, missing a sample): kube-controller-manager's
// replica-calculator semantics, on sums instead of per-pod maps. All quantities in milli-units.
import type { Tolerances } from "./federated-hpa-api.ts";

/** Whether a ratio is close enough to 1 that no direction scales. */
export function withinTolerance(ratio: number, t: Tolerances): boolean {
  return 1 - t.scaleDown <= ratio && ratio <= 1 + t.scaleUp;
}

/** Kubernetes rounds a replica count up, and caps it at int32's maximum. */
export function ceilReplicas(x: number): number {
  return Math.min(Math.ceil(x), 2 ** 31 - 1);
}

/** Pods grouped for one metric: how many, and what they add to the ratio's numerator and denominator. */
export interface PodGroups {
  readyPods: number;
  unreadyPods: number;
  missingPods: number;
}

/**
 * How the ratio reads one set of pods: `ratio(usage, weight, pods)` for the ready pods alone,
 * then again with the set-aside pods filled in with `missingUsage`/`missingWeight` and
 * `unreadyWeight` (unready pods always count 0 usage).
 */
export interface RatioOf {
  ratio(usage: bigint, weight: bigint, pods: number): number;
  readyUsage: bigint;
  readyWeight: bigint;
  /** What the missing pods add on a scale-down (the numerator) and in any direction (the weight). */
  missingUsageOnScaleDown: bigint;
  missingWeight: bigint;
  unreadyWeight: bigint;
}

/**
 * The desired replicas for one metric, given its first ratio over ready pods: ceil(ratio × ready)
 * when no pod was set aside; otherwise the ratio again with missing pods at 0 on a scale-up and
 * at their fallback on a scale-down, unready pods at 0 on a scale-up only, holding the current
 * count when the second ratio is within tolerance, turns the direction, or its count would.
 */
export function replicasFromGroups(groups: PodGroups, of: RatioOf, currentReplicas: number, tolerances: Tolerances): number {
  const usageRatio = of.ratio(of.readyUsage, of.readyWeight, groups.readyPods);
  const scaleUpWithUnready = groups.unreadyPods > 0 && usageRatio > 1;
  if (!scaleUpWithUnready && groups.missingPods === 0) {
    if (withinTolerance(usageRatio, tolerances)) return currentReplicas;
    return ceilReplicas(usageRatio * groups.readyPods);
  }
  let usage = of.readyUsage;
  let weight = of.readyWeight;
  let pods = groups.readyPods;
  // Missing pods join only when the first ratio says a direction (Kubernetes leaves them out at exactly 1).
  if (groups.missingPods > 0 && usageRatio !== 1) {
    if (usageRatio < 1) usage += of.missingUsageOnScaleDown;
    weight += of.missingWeight;
    pods += groups.missingPods;
  }
  if (scaleUpWithUnready) {
    weight += of.unreadyWeight;
    pods += groups.unreadyPods;
  }
  const newRatio = of.ratio(usage, weight, pods);
  const turned = (usageRatio < 1 && newRatio > 1) || (usageRatio > 1 && newRatio < 1);
  if (withinTolerance(newRatio, tolerances) || turned) return currentReplicas;
  const replicas = ceilReplicas(newRatio * pods);
  if ((newRatio < 1 && replicas > currentReplicas) || (newRatio > 1 && replicas < currentReplicas)) return currentReplicas;
  return replicas;
}

/** Utilization in whole percent of the requests, truncated as Kubernetes' integer division does. */
export function utilizationPercent(usage: bigint, requests: bigint): number {
  return Number((usage * 100n) / requests);
}

/** The ratio of a utilization target (percent of requests): the pods' count does not weigh in. */
export function utilizationRatioOf(targetPercent: number): RatioOf["ratio"] {
  return (usage, requests) => utilizationPercent(usage, requests) / targetPercent;
}

/** The ratio of an average-value target: the truncated mean over the pods counted. */
export function averageRatioOf(targetMilli: bigint): RatioOf["ratio"] {
  return (usage, _weight, pods) => Number(usage / BigInt(pods)) / Number(targetMilli);
}

/**
 * Replicas for a value the whole workload shares (Object or External with a Value target):
 * ratio × ready pods, or ceil(ratio) from zero replicas (scale from zero).
 */
export function replicasForValue(usageRatio: number, readyPods: number, currentReplicas: number, tolerances: Tolerances): number {
  if (currentReplicas === 0) return ceilReplicas(usageRatio);
  if (withinTolerance(usageRatio, tolerances)) return currentReplicas;
  return ceilReplicas(usageRatio * readyPods);
}

/**
 * Replicas for a value divided among the pods (Object or External with an AverageValue target):
 * ceil(value / target) unless value / (target × replicas) is within tolerance.
 */
export function replicasForAverageValue(usage: bigint, targetMilli: bigint, statusReplicas: number, tolerances: Tolerances): number {
  const ratio = Number(usage) / (Number(targetMilli) * statusReplicas);
  if (withinTolerance(ratio, tolerances)) return statusReplicas;
  return ceilReplicas(Number(usage) / Number(targetMilli));
}
