import type { ResourceInfo } from "../kube-rest.ts";
import { API_VERSION, LABELS } from "./types.ts";

const r = (kind: string, plural: string, namespaced: boolean): ResourceInfo => ({ apiVersion: API_VERSION, kind, plural, namespaced });

/** The REST resources of Flotilla's CRDs. */
export const RESOURCES = {
  cluster: r("Cluster", "clusters", false),
  propagationPolicy: r("PropagationPolicy", "propagationpolicies", true),
  clusterPropagationPolicy: r("ClusterPropagationPolicy", "clusterpropagationpolicies", false),
  resourceBinding: r("ResourceBinding", "resourcebindings", true),
  clusterResourceBinding: r("ClusterResourceBinding", "clusterresourcebindings", false),
  overridePolicy: r("OverridePolicy", "overridepolicies", true),
  clusterOverridePolicy: r("ClusterOverridePolicy", "clusteroverridepolicies", false),
  resourceInterpreterCustomization: r("ResourceInterpreterCustomization", "resourceinterpretercustomizations", false),
  federatedHPA: r("FederatedHPA", "federatedhpas", true),
  cronFederatedHPA: r("CronFederatedHPA", "cronfederatedhpas", true),
  workloadRebalancer: r("WorkloadRebalancer", "workloadrebalancers", false),
  clusterTaintPolicy: r("ClusterTaintPolicy", "clustertaintpolicies", false),
  federatedResourceQuota: r("FederatedResourceQuota", "federatedresourcequotas", true),
  /** Issue 40: one member's ServiceExport as its agent reported it (control-plane/mcs-controller/). */
  memberServiceExport: r("MemberServiceExport", "memberserviceexports", false),
} as const;

/** scheduling.k8s.io/v1 PriorityClasses: a policy's schedulePriority (KubePriorityClass) names one. */
export const PRIORITY_CLASSES: ResourceInfo = { apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass", plural: "priorityclasses", namespaced: false };

/** The core Secret resource (bootstrap tokens, agent credentials). */
export const SECRETS: ResourceInfo = { apiVersion: "v1", kind: "Secret", plural: "secrets", namespaced: true };

/** apps/v1 ControllerRevisions: a template's rollout revisions (issue 23; control-plane/works/revision-store.ts). */
export const CONTROLLER_REVISIONS: ResourceInfo = { apiVersion: "apps/v1", kind: "ControllerRevision", plural: "controllerrevisions", namespaced: true };

/** The label every Flotilla rollout revision carries: a digest of its template's key. The control plane watches only those. */
export const ROLLOUT_OF_LABEL = LABELS.rolloutOf;
