// FederatedHPA's spec and status as the autoscaler reads and writes them: Karmada's
// autoscaling.karmada.io/v1alpha1 FederatedHPA fields under flotilla.dev/v1alpha1, whose
// metrics, behavior and status are autoscaling/v2's. The shapes move to shared/api/types.ts with
// the CRD; they live here while this folder is their only reader.
import type { LabelSelector } from "../../shared/api/types.ts";
import { parseQuantity } from "../../shared/quantity.ts";

export type MetricSourceType = "Resource" | "ContainerResource" | "Pods" | "Object" | "External";

/** What a metric is compared with: one of value, averageValue (quantities), averageUtilization (%). */
export interface MetricTarget {
  type: "Utilization" | "Value" | "AverageValue";
  value?: string;
  averageValue?: string;
  averageUtilization?: number;
}

export interface MetricIdentifier {
  name: string;
  selector?: LabelSelector;
}

export interface CrossVersionObjectReference {
  apiVersion?: string;
  kind: string;
  name: string;
}

export interface MetricSpec {
  type: MetricSourceType;
  resource?: { name: string; target: MetricTarget };
  containerResource?: { name: string; container: string; target: MetricTarget };
  pods?: { metric: MetricIdentifier; target: MetricTarget };
  object?: { describedObject: CrossVersionObjectReference; metric: MetricIdentifier; target: MetricTarget };
  external?: { metric: MetricIdentifier; target: MetricTarget };
}

export interface HPAScalingPolicy {
  type: "Pods" | "Percent";
  value: number;
  periodSeconds: number;
}

export type ScalingPolicySelect = "Max" | "Min" | "Disabled";

export interface HPAScalingRules {
  stabilizationWindowSeconds?: number;
  selectPolicy?: ScalingPolicySelect;
  policies?: HPAScalingPolicy[];
  /** autoscaling/v2's per-direction tolerance (a quantity, "0.05"); the controller's default when absent. */
  tolerance?: string;
}

export interface HorizontalPodAutoscalerBehavior {
  scaleUp?: HPAScalingRules;
  scaleDown?: HPAScalingRules;
}

export interface FederatedHPASpec {
  scaleTargetRef: CrossVersionObjectReference;
  minReplicas?: number;
  maxReplicas: number;
  metrics?: MetricSpec[];
  behavior?: HorizontalPodAutoscalerBehavior;
}

/** A metric's current value as status.currentMetrics[].…current holds it. */
export interface MetricValueStatus {
  value?: string;
  averageValue?: string;
  averageUtilization?: number;
}

export interface MetricStatus {
  type: MetricSourceType;
  resource?: { name: string; current: MetricValueStatus };
  containerResource?: { name: string; container: string; current: MetricValueStatus };
  pods?: { metric: MetricIdentifier; current: MetricValueStatus };
  object?: { describedObject: CrossVersionObjectReference; metric: MetricIdentifier; current: MetricValueStatus };
  external?: { metric: MetricIdentifier; current: MetricValueStatus };
}

/** A status condition as the autoscaler decides it; the shell stamps lastTransitionTime. */
export interface AutoscalerCondition {
  type: "AbleToScale" | "ScalingActive" | "ScalingLimited";
  status: "True" | "False";
  reason: string;
  message: string;
}

export interface FederatedHPAStatus {
  observedGeneration?: number;
  lastScaleTime?: string;
  currentReplicas: number;
  desiredReplicas: number;
  currentMetrics?: MetricStatus[];
  conditions?: (AutoscalerCondition & { lastTransitionTime: string })[];
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
  const of = (q: string | undefined) => (q === undefined ? fallback : parseQuantity(q));
  return { scaleUp: of(behavior?.scaleUp?.tolerance), scaleDown: of(behavior?.scaleDown?.tolerance) };
}
