// WorkloadRebalancer (issue 22): Karmada's apps.karmada.io/v1alpha1 kind (v1.19) under Flotilla's
// group, with Karmada's field names, so a Karmada manifest ports by changing its apiVersion. The
// schema is control-plane/crds/workloadrebalancers.yaml: keep them in step. The controller is
// control-plane/rebalancer/.
import type { KubeObject } from "./types.ts";

/** A workload to reschedule (Karmada's ObjectReference); namespace empty or absent: cluster-scoped. */
export interface WorkloadReference {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
}

export type RebalanceResult = "Successful" | "Failed";

/** Why a workload's reschedule failed (Karmada's RebalanceFailedReason). */
export const REFERENCED_BINDING_NOT_FOUND = "ReferencedBindingNotFound";

export interface ObservedWorkload {
  workload: WorkloadReference;
  /** Absent: not done yet (a retryable error, or not looked at). */
  result?: RebalanceResult;
  reason?: string;
}

export interface WorkloadRebalancerSpec {
  workloads: WorkloadReference[];
  /** Seconds after status.finishTime at which the WorkloadRebalancer itself is deleted. */
  ttlSecondsAfterFinished?: number;
}

export interface WorkloadRebalancerStatus {
  observedWorkloads?: ObservedWorkload[];
  observedGeneration?: number;
  /** RFC 3339: when every workload last had a result. */
  finishTime?: string;
}

export interface WorkloadRebalancer extends KubeObject {
  spec: WorkloadRebalancerSpec;
  status?: WorkloadRebalancerStatus;
}
