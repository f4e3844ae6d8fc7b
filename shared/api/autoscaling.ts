// FederatedHPA and CronFederatedHPA (issue 22): Karmada's autoscaling.karmada.io/v1alpha1 kinds
// under Flotilla's group, with Karmada's field names, so a Karmada manifest ports by changing its
// apiVersion (a CronFederatedHPA targeting a FederatedHPA may keep Karmada's apiVersion in scaleTargetRef).
// The spec and status shapes are autoscaling/v2's. The schemas are
// control-plane/crds/federatedhpas.yaml and cronfederatedhpas.yaml: keep them in step.
// The controllers are control-plane/autoscaling-controller/.
import type { KubeObject } from "./types.ts";

/** The FederatedHPA kind, as a CronFederatedHPA's scaleTargetRef names it. */
export const FEDERATED_HPA_KIND = "FederatedHPA";
export const CRON_FEDERATED_HPA_KIND = "CronFederatedHPA";

/** Karmada's apiVersion of its autoscaling kinds, which a ported CronFederatedHPA's scaleTargetRef keeps (issue 39). */
export const KARMADA_AUTOSCALING_API_VERSION = "autoscaling.karmada.io/v1alpha1";

/**
 * Whether a CronFederatedHPA's scaleTargetRef names Flotilla's FederatedHPA: by flotilla.dev/v1alpha1
 * (where the schema takes no other kind), or as Karmada's manifests name it, FederatedHPA of
 * autoscaling.karmada.io/v1alpha1. Any other reference is a workload. The CRD's rules
 * (control-plane/crds/cronfederatedhpas.yaml) say the same in CEL.
 */
export function targetsFederatedHpa(ref: { apiVersion?: string; kind?: string }): boolean {
  return ref.apiVersion === "flotilla.dev/v1alpha1" || (ref.apiVersion === KARMADA_AUTOSCALING_API_VERSION && ref.kind === FEDERATED_HPA_KIND);
}

/** autoscaling/v2 CrossVersionObjectReference. */
export interface CrossVersionObjectReference {
  apiVersion?: string;
  kind: string;
  name: string;
}

/** A resource quantity as the API writes it ("500m", "1Gi", 3). */
export type QuantityValue = string | number;

export type MetricTargetType = "Utilization" | "Value" | "AverageValue";

export interface MetricTarget {
  type: MetricTargetType;
  value?: QuantityValue;
  averageValue?: QuantityValue;
  /** Percent of the pods' requests; Resource and ContainerResource only. */
  averageUtilization?: number;
}

export interface MetricValueStatus {
  value?: QuantityValue;
  averageValue?: QuantityValue;
  averageUtilization?: number;
}

export interface LabelSelectorLike {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

export interface MetricIdentifier {
  name: string;
  selector?: LabelSelectorLike;
}

export type MetricSourceType = "Object" | "Pods" | "Resource" | "ContainerResource" | "External";

export interface ResourceMetricSource {
  name: string;
  target: MetricTarget;
}

export interface ContainerResourceMetricSource extends ResourceMetricSource {
  container: string;
}

export interface PodsMetricSource {
  metric: MetricIdentifier;
  target: MetricTarget;
}

export interface ObjectMetricSource extends PodsMetricSource {
  describedObject: CrossVersionObjectReference;
}

export type ExternalMetricSource = PodsMetricSource;

/** autoscaling/v2 MetricSpec: `type` names the one source that is set. */
export interface MetricSpec {
  type: MetricSourceType;
  object?: ObjectMetricSource;
  pods?: PodsMetricSource;
  resource?: ResourceMetricSource;
  containerResource?: ContainerResourceMetricSource;
  external?: ExternalMetricSource;
}

export interface HPAScalingPolicy {
  type: "Pods" | "Percent";
  value: number;
  periodSeconds: number;
}

export interface HPAScalingRules {
  stabilizationWindowSeconds?: number;
  selectPolicy?: "Max" | "Min" | "Disabled";
  policies?: HPAScalingPolicy[];
  /** autoscaling/v2's per-direction tolerance (Kubernetes 1.33, alpha there); a quantity. */
  tolerance?: QuantityValue;
}

export interface HorizontalPodAutoscalerBehavior {
  scaleUp?: HPAScalingRules;
  scaleDown?: HPAScalingRules;
}

export interface FederatedHPASpec {
  scaleTargetRef: CrossVersionObjectReference;
  /** Defaults to 1. */
  minReplicas?: number;
  maxReplicas: number;
  /** Defaults to one Resource metric: cpu at 80% average utilization (Karmada's default). */
  metrics?: MetricSpec[];
  behavior?: HorizontalPodAutoscalerBehavior;
}

export interface MetricStatus {
  type: MetricSourceType;
  object?: { metric: MetricIdentifier; current: MetricValueStatus; describedObject: CrossVersionObjectReference };
  pods?: { metric: MetricIdentifier; current: MetricValueStatus };
  resource?: { name: string; current: MetricValueStatus };
  containerResource?: { name: string; container: string; current: MetricValueStatus };
  external?: { metric: MetricIdentifier; current: MetricValueStatus };
}

/** The condition types an autoscaler writes. */
export type AutoscalerConditionType = "AbleToScale" | "ScalingActive" | "ScalingLimited";

/** autoscaling/v2 HorizontalPodAutoscalerCondition (AbleToScale, ScalingActive, ScalingLimited). */
export interface HorizontalPodAutoscalerCondition {
  type: AutoscalerConditionType | string;
  status: "True" | "False" | "Unknown";
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** autoscaling/v2 HorizontalPodAutoscalerStatus. */
export interface HorizontalPodAutoscalerStatus {
  observedGeneration?: number;
  lastScaleTime?: string;
  currentReplicas?: number;
  desiredReplicas: number;
  currentMetrics?: MetricStatus[];
  conditions?: HorizontalPodAutoscalerCondition[];
}

export interface FederatedHPA extends KubeObject {
  spec: FederatedHPASpec;
  status?: HorizontalPodAutoscalerStatus;
}

export interface CronFederatedHPARule {
  /** Unique in the object, 1-32 characters; the key of its execution history. */
  name: string;
  /** Five-field cron, or @yearly/@annually/@monthly/@weekly/@daily/@hourly (shared/autoscaling/cron.ts). */
  schedule: string;
  /** For a workload target. */
  targetReplicas?: number;
  /** For a FederatedHPA target: its new minReplicas and/or maxReplicas. */
  targetMinReplicas?: number;
  targetMaxReplicas?: number;
  /** Defaults to false. */
  suspend?: boolean;
  /** An IANA name; absent: the control plane's own zone. */
  timeZone?: string;
  /** Defaults to 3. */
  successfulHistoryLimit?: number;
  /** Defaults to 3. */
  failedHistoryLimit?: number;
}

export interface CronFederatedHPASpec {
  /** A workload with a replica count, or a FederatedHPA (apiVersion flotilla.dev/v1alpha1). */
  scaleTargetRef: CrossVersionObjectReference;
  rules: CronFederatedHPARule[];
}

export interface SuccessfulExecution {
  scheduleTime: string;
  executionTime: string;
  appliedReplicas?: number;
  appliedMaxReplicas?: number;
  appliedMinReplicas?: number;
}

export interface FailedExecution {
  scheduleTime: string;
  executionTime: string;
  message: string;
}

export interface ExecutionHistory {
  ruleName: string;
  /** Absent while the rule is suspended. */
  nextExecutionTime?: string;
  successfulExecutions?: SuccessfulExecution[];
  failedExecutions?: FailedExecution[];
}

export interface CronFederatedHPAStatus {
  executionHistories?: ExecutionHistory[];
}

export interface CronFederatedHPA extends KubeObject {
  spec: CronFederatedHPASpec;
  status?: CronFederatedHPAStatus;
}
