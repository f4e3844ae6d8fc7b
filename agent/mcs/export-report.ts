// What the agent reports of one ServiceExport (issue 40, KEP-1645): pure. The export is valid
// when its Service exists and is not ExternalName; its type, ports and the rest come from the
// Service, its endpoints from the Service's own EndpointSlices (never from the slices Flotilla
// imports: those carry the source-cluster label or Flotilla's managed-by).
import {
  ENDPOINTSLICE_MANAGED_BY_LABEL,
  type ExportedEndpointSlice,
  type ImportType,
  MCS_ENDPOINTSLICE_MANAGER,
  MCS_SOURCE_CLUSTER_LABEL,
  type MemberServiceExportSpec,
  type ServicePort,
} from "../../shared/api/mcs.ts";
import type { KubeObject } from "../../shared/api/types.ts";

/** The most slices and endpoints per slice one report carries (the control plane's bounds). */
export const REPORT_BOUNDS = { slices: 100, endpoints: 1000 } as const;

export interface ServiceExportObject extends KubeObject {
  spec?: { exportedLabels?: Record<string, string>; exportedAnnotations?: Record<string, string> };
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string }[] };
}

export interface ServiceObject extends KubeObject {
  spec?: {
    type?: string;
    clusterIP?: string;
    clusterIPs?: string[];
    ipFamilies?: string[];
    ports?: { name?: string; protocol?: string; appProtocol?: string; port: number }[];
    sessionAffinity?: string;
    sessionAffinityConfig?: { clientIP?: { timeoutSeconds?: number } };
    internalTrafficPolicy?: string;
    trafficDistribution?: string;
  };
}

export interface EndpointSliceObject extends KubeObject {
  addressType: string;
  ports?: { name?: string; protocol?: string; appProtocol?: string; port?: number }[] | null;
  endpoints?: { addresses: string[]; conditions?: { ready?: boolean; serving?: boolean; terminating?: boolean }; hostname?: string; zone?: string }[] | null;
}

/** The export as reported (no cluster: the hub takes it from the stream), or why it is not valid. */
export type ExportVerdict =
  | { valid: true; spec: Omit<MemberServiceExportSpec, "cluster"> }
  | { valid: false; reason: "NoService" | "InvalidServiceType"; message: string };

/** Whether a slice is one Flotilla imported (it must never be exported back). */
export function isImportedSlice(s: KubeObject): boolean {
  const labels = s.metadata.labels ?? {};
  return labels[MCS_SOURCE_CLUSTER_LABEL] !== undefined || labels[ENDPOINTSLICE_MANAGED_BY_LABEL] === MCS_ENDPOINTSLICE_MANAGER;
}

const defined = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

function importType(svc: ServiceObject): ImportType | undefined {
  const spec = svc.spec ?? {};
  if (spec.type === "ExternalName") return undefined;
  return spec.clusterIP === "None" ? "Headless" : "ClusterSetIP";
}

function slicesOf(slices: EndpointSliceObject[]): ExportedEndpointSlice[] {
  return slices
    .filter((s) => !isImportedSlice(s))
    .sort((a, b) => (a.metadata.name ?? "").localeCompare(b.metadata.name ?? ""))
    .slice(0, REPORT_BOUNDS.slices)
    .map((s) => ({
      name: s.metadata.name ?? "",
      addressType: s.addressType,
      ports: (s.ports ?? []).map((p) => defined({ name: p.name || undefined, protocol: p.protocol, appProtocol: p.appProtocol, port: p.port })),
      endpoints: (s.endpoints ?? [])
        .filter((e) => e.addresses.length > 0)
        .slice(0, REPORT_BOUNDS.endpoints)
        .map((e) => defined({ addresses: e.addresses, conditions: e.conditions === undefined ? undefined : defined({ ...e.conditions }), hostname: e.hostname, zone: e.zone })),
    }));
}

/** The report of one ServiceExport, its Service (undefined: none of that name) and the Service's slices. */
export function exportVerdict(exp: ServiceExportObject, svc: ServiceObject | undefined, slices: EndpointSliceObject[]): ExportVerdict {
  const name = exp.metadata.name ?? "";
  if (svc === undefined) return { valid: false, reason: "NoService", message: `no Service ${name} in this namespace` };
  const type = importType(svc);
  if (type === undefined) return { valid: false, reason: "InvalidServiceType", message: `Service ${name} is ExternalName, which cannot be exported` };
  const spec = svc.spec ?? {};
  const ports: ServicePort[] = (spec.ports ?? []).map((p) => defined({ name: p.name || undefined, protocol: p.protocol ?? "TCP", appProtocol: p.appProtocol, port: p.port }));
  const affinity = spec.sessionAffinity === "ClientIP" ? spec.sessionAffinityConfig : undefined;
  return {
    valid: true,
    spec: defined({
      namespace: exp.metadata.namespace ?? "",
      name,
      exportCreationTimestamp: exp.metadata.creationTimestamp ?? "",
      exportUid: exp.metadata.uid ?? "",
      type,
      ports,
      sessionAffinity: spec.sessionAffinity,
      sessionAffinityConfig: affinity?.clientIP === undefined ? undefined : { clientIP: defined({ timeoutSeconds: affinity.clientIP.timeoutSeconds }) },
      internalTrafficPolicy: spec.internalTrafficPolicy,
      trafficDistribution: spec.trafficDistribution,
      ipFamilies: spec.ipFamilies,
      exportedLabels: exp.spec?.exportedLabels,
      exportedAnnotations: exp.spec?.exportedAnnotations,
      endpointSlices: slicesOf(slices),
    }),
  };
}
