// The replicas a FederatedHPA sets on its template in one run, as kube-controller-manager's HPA
// decides them: the target's count outside [min, max] is brought inside; otherwise the largest of
// the metrics' proposals, stabilized and rate-limited by `behavior`; with the status conditions
// (AbleToScale, ScalingActive, ScalingLimited) and the history to keep for the next run.
import type { AutoscalerCondition, FederatedHPASpec, MetricStatus } from "./federated-hpa-api.ts";
import { DEFAULT_SCALE_DOWN_STABILIZATION_SECONDS, scaleDownRules, scaleUpRules } from "./federated-hpa-api.ts";
import type { MetricProposal } from "./replica-calculator.ts";
import type { ScaleHistory } from "./scale-behavior.ts";
import { limitByRate, recordScale, stabilize } from "./scale-behavior.ts";

export interface DesiredReplicasInput {
  spec: Pick<FederatedHPASpec, "minReplicas" | "maxReplicas" | "behavior">;
  /** The template's spec.replicas now. */
  currentReplicas: number;
  /** One proposal per spec metric, in the spec's order (replicasForMetric's answers). */
  proposals: MetricProposal[];
  history: ScaleHistory;
  now: number;
  /** The controller's scale-down window where the spec sets none (kube-controller-manager: 300 s). */
  defaultScaleDownWindowSeconds?: number;
}

export interface DesiredReplicas {
  /** The count to write to the template; equal to currentReplicas when nothing changes. */
  replicas: number;
  /** Whether the template's replicas are to be written (and status.lastScaleTime set). */
  rescale: boolean;
  /** The conditions this run decides, assuming the write succeeds; the others stay as they were. */
  conditions: AutoscalerCondition[];
  /** status.currentMetrics: the statuses of the metrics that could be computed. */
  currentMetrics: MetricStatus[];
  /**
   * The history to keep, with this run's recommendation and scale event; when writing the
   * replicas fails, keep its recommendations but the previous scale events.
   */
  history: ScaleHistory;
  /** Kubernetes' Warning Event (reason FailedComputeMetricsReplicas) when no count could be computed. */
  warning?: string;
  /** Why the count changes, in kube-controller-manager's words (its rescale Events say it); set when rescale is. */
  rescaleReason?: string;
}

/** kube-controller-manager's rescale reasons for a count brought inside the bounds. */
export const ABOVE_MAX_REASON = "Current number of replicas above Spec.MaxReplicas";
export const BELOW_MIN_REASON = "Current number of replicas below Spec.MinReplicas";
/** Its reason for a count the metrics lower (for one they raise: `<metric name> above target`). */
export const ALL_BELOW_TARGET_REASON = "All metrics below target";

const condition = (type: AutoscalerCondition["type"], status: boolean, reason: string, message: string): AutoscalerCondition => ({
  type, status: status ? "True" : "False", reason, message,
});

/** The condition to set when writing the template's replicas failed. */
export function failedRescaleCondition(error: string): AutoscalerCondition {
  return condition("AbleToScale", false, "FailedUpdateScale", `the HPA controller was unable to update the target scale: ${error}`);
}

/** The replicas, conditions and history of one autoscaler run. */
export function desiredReplicas(input: DesiredReplicasInput): DesiredReplicas {
  const { spec, currentReplicas: current, history, now } = input;
  const minReplicas = spec.minReplicas ?? 1;
  const currentMetrics = input.proposals.flatMap((p) => (p.ok ? [p.status] : []));
  const up = scaleUpRules(spec.behavior?.scaleUp);
  const down = scaleDownRules(spec.behavior?.scaleDown, input.defaultScaleDownWindowSeconds ?? DEFAULT_SCALE_DOWN_STABILIZATION_SECONDS);
  const rescaled = (replicas: number, conditions: AutoscalerCondition[], kept: ScaleHistory, reason: string): DesiredReplicas => {
    if (replicas === current) return { replicas, rescale: false, conditions, currentMetrics, history: kept };
    const done = condition("AbleToScale", true, "SucceededRescale", `the HPA controller was able to update the target scale to ${replicas}`);
    return {
      replicas, rescale: true, currentMetrics, rescaleReason: reason,
      conditions: [done, ...conditions.filter((c) => c.type !== "AbleToScale")],
      history: recordScale(kept, current, replicas, up, down, now),
    };
  };

  if (current === 0 && minReplicas !== 0) {
    return {
      replicas: 0, rescale: false, currentMetrics, history,
      conditions: [condition("ScalingActive", false, "ScalingDisabled", "scaling is disabled since the replica count of the target is zero")],
    };
  }
  // Outside the bounds the count is corrected before any metric is read, as Kubernetes does.
  if (current > spec.maxReplicas) return rescaled(spec.maxReplicas, [], history, ABOVE_MAX_REASON);
  if (current < minReplicas) return rescaled(minReplicas, [], history, BELOW_MIN_REASON);

  const fromMetrics = largestProposal(input.proposals, current);
  if (!fromMetrics.ok) {
    return { replicas: current, rescale: false, currentMetrics, history, conditions: [fromMetrics.condition], warning: fromMetrics.warning };
  }
  const stabilized = stabilize(history.recommendations, fromMetrics.replicas, current, up, down, now);
  const ableToScale = stabilized.replicas !== fromMetrics.replicas
    ? condition("AbleToScale", true, stabilized.reason, stabilized.message)
    : condition("AbleToScale", true, "ReadyForNewScale", "recommended size matches current size");
  const limited = limitByRate({ desired: stabilized.replicas, current, minReplicas, maxReplicas: spec.maxReplicas, up, down, history, now });
  const conditions = [
    ableToScale,
    condition("ScalingActive", true, "ValidMetricFound", `the HPA was able to successfully calculate a replica count from ${fromMetrics.metricName}`),
    condition("ScalingLimited", limited.replicas !== stabilized.replicas, limited.reason, limited.message),
  ];
  // Kubernetes names the direction the metrics asked for, before stabilization and the policies.
  const reason = fromMetrics.replicas > current ? `${fromMetrics.metricName} above target` : fromMetrics.replicas < current ? ALL_BELOW_TARGET_REASON : "";
  return rescaled(limited.replicas, conditions, { ...history, recommendations: stabilized.recommendations }, reason);
}

type Largest =
  | { ok: true; replicas: number; metricName: string }
  | { ok: false; condition: AutoscalerCondition; warning: string };

/**
 * The largest proposal of the metrics that could be computed. None at all, or some failing while
 * the others would scale down, gives no count: the first failure's condition and the warning.
 */
export function largestProposal(proposals: MetricProposal[], current: number): Largest {
  let best: { replicas: number; metricName: string } | undefined;
  let firstFailure: Extract<MetricProposal, { ok: false }> | undefined;
  let failures = 0;
  for (const p of proposals) {
    if (!p.ok) {
      firstFailure ??= p;
      failures++;
      continue;
    }
    if (best === undefined || p.replicas > best.replicas) best = { replicas: p.replicas, metricName: p.metricName };
  }
  if (best !== undefined && (failures === 0 || best.replicas >= current)) return { ok: true, ...best };
  const first = firstFailure ?? { reason: "InvalidMetricSourceType", message: "the HPA was unable to compute the replica count: no metrics", error: "no metrics" };
  return {
    ok: false,
    condition: condition("ScalingActive", false, first.reason, first.message),
    warning: `invalid metrics (${failures} invalid out of ${proposals.length}), first error is: ${first.error}`,
  };
}
