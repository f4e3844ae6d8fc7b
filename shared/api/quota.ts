// FederatedResourceQuota (issue 26): Karmada's policy.karmada.io/v1alpha1 kind (v1.19) under
// Flotilla's group, with Karmada's field names, so a Karmada manifest ports by changing its
// apiVersion. The schema is control-plane/crds/federatedresourcequotas.yaml: keep them in step.
// The controller and the quota arithmetic are control-plane/quota/.
import type { KubeObject } from "./types.ts";

/** A ResourceList: resource name → quantity ("2", "500m", "4Gi"; an integer is allowed too). */
export type ResourceList = Record<string, string | number>;

/** The limits of one cluster: a ResourceQuota named as the FederatedResourceQuota is made there. */
export interface StaticClusterAssignment {
  clusterName: string;
  hard: ResourceList;
}

export interface FederatedResourceQuotaSpec {
  /** The namespace's hard limit for each named resource, over every cluster. */
  overall: ResourceList;
  staticAssignments?: StaticClusterAssignment[];
}

/** One cluster's ResourceQuota as its agent reports it. */
export interface ClusterQuotaStatus {
  clusterName: string;
  hard?: ResourceList;
  used?: ResourceList;
}

export interface FederatedResourceQuotaStatus {
  overall?: ResourceList;
  overallUsed?: ResourceList;
  aggregatedStatus?: ClusterQuotaStatus[];
}

export interface FederatedResourceQuota extends KubeObject {
  kind: "FederatedResourceQuota";
  spec: FederatedResourceQuotaSpec;
  status?: FederatedResourceQuotaStatus;
}
