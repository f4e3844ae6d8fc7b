// ClusterTaintPolicy (issue 26): Karmada's policy.karmada.io/v1alpha1 kind (v1.19) under Flotilla's
// group, with Karmada's field names, so a Karmada manifest ports by changing its apiVersion. The
// schema is control-plane/crds/clustertaintpolicies.yaml: keep them in step. The controller is
// control-plane/taint-policy/.
import type { ClusterAffinity, KubeObject } from "./types.ts";

/** One test of a Cluster condition: In, its status is one of statusValues; NotIn, it is none of them. */
export interface MatchCondition {
  conditionType: string;
  operator: "In" | "NotIn";
  statusValues: ("True" | "False" | "Unknown")[];
}

/** A taint the policy manages (Karmada's policy Taint: no timeAdded, which the controller sets). */
export interface PolicyTaint {
  key: string;
  value?: string;
  effect: "NoSchedule" | "NoExecute";
}

export interface ClusterTaintPolicySpec {
  /** Absent: every cluster. */
  targetClusters?: ClusterAffinity;
  /** ANDed; empty: the policy adds nothing. */
  addOnConditions?: MatchCondition[];
  /** ANDed; empty: the policy removes nothing. */
  removeOnConditions?: MatchCondition[];
  taints: PolicyTaint[];
}

export interface ClusterTaintPolicy extends KubeObject {
  spec: ClusterTaintPolicySpec;
}
