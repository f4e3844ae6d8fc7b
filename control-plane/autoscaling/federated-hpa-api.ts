// FederatedHPA's spec and status as the autoscaler reads and writes them: the API shapes are
// shared/api/autoscaling.ts's (Karmada's FederatedHPA under flotilla.dev/v1alpha1, whose metrics,
// behavior and status are autoscaling/v2's); here are the defaults the autoscaler fills in.
import type { AutoscalerConditionType, HorizontalPodAutoscalerBehavior, HPAScalingPolicy, HPAScalingRules, MetricSpec } from "../../shared/api/autoscaling.ts";
import { parseQuantity } from "../../shared/quantity.ts";

export type {
  CrossVersionObjectReference,
  FederatedHPASpec,
  HorizontalPodAutoscalerBehavior,
  HPAScalingPolicy,
  HPAScalingRules,
  MetricIdentifier,
  MetricSourceType,
  MetricSpec,
  MetricStatus,
  MetricTarget,
  MetricValueStatus,
} from "../../shared/api/autoscaling.ts";

export type ScalingPolicySelect = NonNullable<HPAScalingRules["selectPolicy"]>;

/** A status condition as the autoscaler decides it; the shell stamps lastTransitionTime. */
export interface AutoscalerCondition {
  type: AutoscalerConditionType;
  status: "True" | "False";
  reason: string;
  message: string;
}

/** Scaling rules with every default filled in. */
export interface EffectiveScalingRules {
  stabilizationWindowSeconds: number;
  selectPolicy: ScalingPolicySelect;
  policies: HPAScalingPolicy[];
}

/** kube-controller-manager's --horizontal-pod-autoscaler-downscale-stabilization default. */
export const DEFAULT_SCALE_DOWN_STABILIZATION_SECONDS = 300;

/** kube-controller-manager's --horizontal-pod-autoscaler-tolerance default. */
export const DEFAULT_TOLERANCE = 0.1;

/** The CPU target a FederatedHPA without metrics gets (Kubernetes' and Karmada's default). */
export const DEFAULT_METRICS: MetricSpec[] = [
  { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } } },
];

/**
 * Scale-up rules with autoscaling/v2's defaults: no window, and per 15 s the larger of +100 %
 * and +4 pods.
 */
export function scaleUpRules(rules: HPAScalingRules | undefined): EffectiveScalingRules {
  return {
    stabilizationWindowSeconds: rules?.stabilizationWindowSeconds ?? 0,
    selectPolicy: rules?.selectPolicy ?? "Max",
    policies: rules?.policies ?? [
      { type: "Pods", value: 4, periodSeconds: 15 },
      { type: "Percent", value: 100, periodSeconds: 15 },
    ],
  };
}

/** Scale-down rules with autoscaling/v2's defaults: a 300 s window (the controller's), −100 % per 15 s. */
export function scaleDownRules(rules: HPAScalingRules | undefined, defaultWindowSeconds = DEFAULT_SCALE_DOWN_STABILIZATION_SECONDS): EffectiveScalingRules {
  return {
    stabilizationWindowSeconds: rules?.stabilizationWindowSeconds ?? defaultWindowSeconds,
    selectPolicy: rules?.selectPolicy ?? "Max",
    policies: rules?.policies ?? [{ type: "Percent", value: 100, periodSeconds: 15 }],
  };
}

/** How far from 1 the usage ratio must move before each direction scales (autoscaling/v2 tolerance). */
export interface Tolerances {
  scaleUp: number;
  scaleDown: number;
}

/** The tolerances a behavior asks for, the controller's default where it asks for none. */
export function tolerancesOf(behavior: HorizontalPodAutoscalerBehavior | undefined, fallback = DEFAULT_TOLERANCE): Tolerances {
  const of = (q: string | number | undefined) => (q === undefined ? fallback : parseQuantity(String(q)));
  return { scaleUp: of(behavior?.scaleUp?.tolerance), scaleDown: of(behavior?.scaleDown?.tolerance) };
}
