// Multi-cluster services (issue 40, DESIGN §13): SIG Multicluster's MCS API (KEP-1645,
// multicluster.x-k8s.io) in every member, and Flotilla's record of one member's export in the
// control cluster (MemberServiceExport, flotilla.dev/v1alpha1, cluster-scoped). The names of the
// labels and conditions are the KEP's; docs/guides/mcs.md says how the parts fit together.
import type { KubeObject } from "./types.ts";

export const MCS_GROUP = "multicluster.x-k8s.io";
export const MCS_VERSION = "v1beta1";
export const MCS_API_VERSION = `${MCS_GROUP}/${MCS_VERSION}`;

/** On an imported EndpointSlice (and Flotilla's derived Service): the ServiceImport's name (KEP-1645). */
export const MCS_SERVICE_NAME_LABEL = "multicluster.kubernetes.io/service-name";
/** On an imported EndpointSlice: the cluster whose endpoints it holds (KEP-1645; the ClusterProperty id). */
export const MCS_SOURCE_CLUSTER_LABEL = "multicluster.kubernetes.io/source-cluster";
/** On a ServiceImport: the name of the Service that gives it its IPs in this member (the upstream reference controller's). */
export const MCS_DERIVED_SERVICE_ANNOTATION = "multicluster.kubernetes.io/derived-service";
/** Kubernetes' label saying which controller manages an EndpointSlice. */
export const ENDPOINTSLICE_MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by";
/** Its value on the slices Flotilla imports: never kube-controller-manager's (endpointslice-controller.k8s.io). */
export const MCS_ENDPOINTSLICE_MANAGER = "mcs.flotilla.dev";
/** Kubernetes' label tying an EndpointSlice to its Service (kube-proxy and CoreDNS read it). */
export const KUBE_SERVICE_NAME_LABEL = "kubernetes.io/service-name";
/** On each object Flotilla makes for an import (ServiceImport, derived Service, EndpointSlices): "true". */
export const MCS_IMPORT_LABEL = "flotilla.dev/mcs-import";
/**
 * On a manifest: "false" asks the agent never to create its namespace (an import goes only where
 * the namespace exists, KEP-1645 "namespace sameness"); it waits for the namespace instead.
 */
export const CREATE_NAMESPACE_ANNOTATION = "flotilla.dev/create-namespace";
/**
 * On a member's ServiceImport: JSON `ClustersetStatus`, what the agent writes into the import's
 * status and, where this member exports the service, onto its ServiceExport's conditions.
 */
export const CLUSTERSET_STATUS_ANNOTATION = "flotilla.dev/clusterset-status";

/** The prefix of the derived Service's name: `clusterset-<service>` (a CoreDNS rewrite can map names onto it). */
export const DERIVED_SERVICE_PREFIX = "clusterset-";

export type ImportType = "ClusterSetIP" | "Headless";

export interface ServicePort {
  name?: string;
  protocol?: string;
  appProtocol?: string;
  port: number;
}

export interface EndpointPort {
  name?: string;
  protocol?: string;
  appProtocol?: string;
  port?: number;
}

export interface ExportedEndpoint {
  addresses: string[];
  conditions?: { ready?: boolean; serving?: boolean; terminating?: boolean };
  hostname?: string;
  zone?: string;
}

/** One EndpointSlice of the exported Service in its own cluster, as the agent reports it. */
export interface ExportedEndpointSlice {
  /** The slice's name in its cluster. */
  name: string;
  addressType: string;
  ports: EndpointPort[];
  endpoints: ExportedEndpoint[];
}

/** What a member's agent reports of one valid ServiceExport and its Service. */
export interface MemberServiceExportSpec {
  cluster: string;
  namespace: string;
  name: string;
  /** The ServiceExport's metadata.creationTimestamp (RFC 3339): the oldest export wins a conflict. */
  exportCreationTimestamp: string;
  exportUid: string;
  type: ImportType;
  ports: ServicePort[];
  sessionAffinity?: string;
  sessionAffinityConfig?: { clientIP?: { timeoutSeconds?: number } };
  internalTrafficPolicy?: string;
  trafficDistribution?: string;
  ipFamilies?: string[];
  exportedLabels?: Record<string, string>;
  exportedAnnotations?: Record<string, string>;
  endpointSlices: ExportedEndpointSlice[];
}

export interface MemberServiceExport extends KubeObject {
  kind: "MemberServiceExport";
  spec: MemberServiceExportSpec;
}

export interface McsCondition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
}

/** The annotation CLUSTERSET_STATUS_ANNOTATION's value. */
export interface ClustersetStatus {
  /** The exporting clusters, sorted. */
  clusters: string[];
  /** Only on the import of a member that exports the service: its export's Ready and Conflict. */
  exportConditions?: McsCondition[];
}
