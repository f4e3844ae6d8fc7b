// One FederatedHPA run over the fleet, pure: the template's replicas and where its binding puts
// them, the members' summaries, and the history kept since the last run → the replicas to write
// (if any), the FederatedHPA's status (autoscaling/v2's, conditions keeping their transition
// times), and the history to keep. The shell (control-plane/autoscaling-controller/) reads and writes.
import type { FederatedHPA, HorizontalPodAutoscalerCondition, HorizontalPodAutoscalerStatus } from "../../shared/api/autoscaling.ts";
import { desiredReplicas } from "./desired-replicas.ts";
import { type AutoscalerCondition, DEFAULT_METRICS, tolerancesOf } from "./federated-hpa-api.ts";
import { replicasForMetric } from "./replica-calculator.ts";
import type { ScaleHistory } from "./scale-behavior.ts";
import type { MemberMetrics, WorkloadMetricsSummary } from "./workload-metrics.ts";

/** The target as the control cluster holds it. */
export interface ScaleTarget {
  /** Its replicas (the kind's GetReplicas), undefined when the kind has none to scale. */
  specReplicas: number | undefined;
  /** Its pods that exist (the template's status.replicas, the fleet's sum). */
  statusReplicas: number;
  /** The clusters its binding places it on; `replicas` absent: each runs all (Duplicated). */
  placement: readonly { cluster: string; replicas?: number }[];
  /** The pod template's request per resource key (milli-units), for members that sent nothing. */
  podRequests?: Record<string, bigint>;
}

export interface FederatedHpaRunInput {
  fhpa: FederatedHPA;
  /** Undefined when the target does not exist on the control cluster. */
  target: ScaleTarget | undefined;
  /** The latest summary per cluster; a cluster absent sent none. */
  summaries: ReadonlyMap<string, WorkloadMetricsSummary>;
  history: ScaleHistory;
  now: number;
}

export interface FederatedHpaRun {
  /** The replicas to write to the target, when they change. */
  scaleTo?: number;
  /** The status to write if it differs from the one stored (lastScaleTime set only when scaleTo is). */
  status: HorizontalPodAutoscalerStatus;
  history: ScaleHistory;
  /** A Warning Event's message (FailedComputeMetricsReplicas, FailedGetScale). */
  warning?: { reason: string; message: string };
  /** Each metric that could not be computed (Kubernetes records a Warning Event per failure). */
  metricFailures: { reason: string; error: string }[];
  /** Why scaleTo is written, in kube-controller-manager's words; with scaleTo. */
  rescaleReason?: string;
}

/** The members the target runs on, each with the pods it should have and its summary if it sent one. */
export function membersOf(target: ScaleTarget, summaries: ReadonlyMap<string, WorkloadMetricsSummary>): MemberMetrics[] {
  return target.placement.map((p) => {
    const summary = summaries.get(p.cluster);
    const m: MemberMetrics = { cluster: p.cluster, expectedPods: p.replicas ?? target.specReplicas ?? 0 };
    return summary === undefined ? m : { ...m, summary };
  });
}

export function runFederatedHpa(input: FederatedHpaRunInput): FederatedHpaRun {
  const { fhpa, target, now } = input;
  const previous = fhpa.status;
  const base = { ...(fhpa.metadata.generation === undefined ? {} : { observedGeneration: fhpa.metadata.generation }), ...(previous?.lastScaleTime ? { lastScaleTime: previous.lastScaleTime } : {}) };
  if (target === undefined || target.specReplicas === undefined) {
    const ref = fhpa.spec.scaleTargetRef;
    const message = target === undefined ? `the HPA controller was unable to get the target's current scale: ${ref.kind}/${ref.name} not found` : `the HPA controller was unable to get the target's current scale: ${ref.kind} has no replicas to scale`;
    const failed: AutoscalerCondition = { type: "AbleToScale", status: "False", reason: "FailedGetScale", message };
    return {
      status: { ...base, currentReplicas: previous?.currentReplicas ?? 0, desiredReplicas: previous?.desiredReplicas ?? 0, conditions: mergeConditions(previous?.conditions, [failed], now) },
      history: input.history,
      warning: { reason: "FailedGetScale", message },
      metricFailures: [],
    };
  }
  const current = target.specReplicas;
  const members = membersOf(target, input.summaries);
  const tolerances = tolerancesOf(fhpa.spec.behavior);
  const metrics = fhpa.spec.metrics !== undefined && fhpa.spec.metrics.length > 0 ? fhpa.spec.metrics : DEFAULT_METRICS;
  const proposals = metrics.map((m) =>
    replicasForMetric(m, { members, specReplicas: current, statusReplicas: target.statusReplicas, tolerances, ...(target.podRequests ? { podRequests: target.podRequests } : {}) }),
  );
  const d = desiredReplicas({ spec: fhpa.spec, currentReplicas: current, proposals, history: input.history, now });
  const status: HorizontalPodAutoscalerStatus = {
    ...base,
    ...(d.rescale ? { lastScaleTime: new Date(now).toISOString() } : {}),
    currentReplicas: current,
    desiredReplicas: d.replicas,
    currentMetrics: d.currentMetrics,
    conditions: mergeConditions(previous?.conditions, d.conditions, now),
  };
  return {
    ...(d.rescale ? { scaleTo: d.replicas, ...(d.rescaleReason === undefined ? {} : { rescaleReason: d.rescaleReason }) } : {}),
    status,
    history: d.history,
    metricFailures: proposals.flatMap((p) => (p.ok ? [] : [{ reason: p.reason, error: p.error }])),
    ...(d.warning === undefined ? {} : { warning: { reason: "FailedComputeMetricsReplicas", message: d.warning } }),
  };
}

/**
 * The stored conditions with this run's over them, in AbleToScale, ScalingActive, ScalingLimited
 * order: a condition whose status did not change keeps its lastTransitionTime (Kubernetes' rule);
 * those this run did not decide stay as they were.
 */
export function mergeConditions(stored: readonly HorizontalPodAutoscalerCondition[] | undefined, decided: readonly AutoscalerCondition[], now: number): HorizontalPodAutoscalerCondition[] {
  const byType = new Map((stored ?? []).map((c) => [c.type, c]));
  for (const c of decided) {
    const before = byType.get(c.type);
    const since = before !== undefined && before.status === c.status && before.lastTransitionTime !== undefined ? before.lastTransitionTime : new Date(now).toISOString();
    byType.set(c.type, { type: c.type, status: c.status, lastTransitionTime: since, reason: c.reason, message: c.message });
  }
  const order = ["AbleToScale", "ScalingActive", "ScalingLimited"];
  return [...byType.values()].sort((a, b) => rank(order, a.type) - rank(order, b.type) || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
}

function rank(order: readonly string[], type: string): number {
  const i = order.indexOf(type);
  return i === -1 ? order.length : i;
}
