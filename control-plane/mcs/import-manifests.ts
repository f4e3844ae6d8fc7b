// What one member gets for a merged import (pure): the ServiceImport, the derived Service that
// gives it IPs and a home for its endpoints, and the imported EndpointSlices. The ServiceImport's
// `ips` and `ipFamilies` are left out: the agent copies them from the derived Service's
// `clusterIPs` and `ipFamilies` in that member (each member's IPs come from its own range). Every
// object says "false" to creating its namespace: an import goes only where the namespace exists
// (KEP-1645 namespace sameness), and the agent waits for it.
import type { ClustersetStatus, ServicePort } from "../../shared/api/mcs.ts";
import {
  CLUSTERSET_STATUS_ANNOTATION,
  CREATE_NAMESPACE_ANNOTATION,
  MCS_API_VERSION,
  MCS_DERIVED_SERVICE_ANNOTATION,
  MCS_IMPORT_LABEL,
  MCS_SERVICE_NAME_LABEL,
} from "../../shared/api/mcs.ts";
import type { KubeObject } from "../../shared/api/types.ts";
import { canonicalJson } from "../../shared/content-hash.ts";
import { derivedServiceName } from "./derived-name.ts";
import { importedSlices } from "./imported-slices.ts";
import type { MergedImport } from "./merge.ts";
import { defined } from "./merge.ts";
import { derivedPortNames } from "./ports.ts";

/** The ServiceImport, the derived Service, then the EndpointSlices (sorted by name), for one member. */
export function importManifests(merged: MergedImport, cluster: string, notReady: ReadonlySet<string>): KubeObject[] {
  return [memberServiceImport(merged, cluster), derivedServiceOf(merged), ...slicesOf(merged, notReady)];
}

/** The ServiceImport for one member: the only manifest that differs between members (its clusterset status). */
export function memberServiceImport(merged: MergedImport, cluster: string): KubeObject {
  return serviceImport(merged, cluster, derivedServiceName(merged.namespace, merged.name));
}

/** The derived Service: the same in every member, rendered once. */
export function derivedServiceOf(merged: MergedImport): KubeObject {
  return derivedService(merged, derivedServiceName(merged.namespace, merged.name), derivedPortNames(merged.ports));
}

/** The imported EndpointSlices, of every exporting cluster or of `cluster` only: the same in every member, rendered once. */
export function slicesOf(merged: MergedImport, notReady: ReadonlySet<string>, cluster?: string): KubeObject[] {
  const derivedName = derivedServiceName(merged.namespace, merged.name);
  const portNames = derivedPortNames(merged.ports);
  const portRenames = new Map<string, string>();
  merged.ports.forEach((p, i) => {
    const to = portNames[i] ?? "";
    if ((p.name ?? "") !== to) portRenames.set(p.name ?? "", to);
  });
  return importedSlices(merged, { derivedName, portRenames, notReady, ...(cluster === undefined ? {} : { cluster }) });
}

/** What this member's agent writes into the import's status, and onto its own export's conditions when it is an exporter. */
export function clustersetStatus(merged: MergedImport, cluster: string): ClustersetStatus {
  const conditions = merged.exportConditions.get(cluster);
  return { clusters: [...merged.clusters], ...(conditions === undefined ? {} : { exportConditions: conditions }) };
}

function serviceImport(merged: MergedImport, cluster: string, derivedName: string): KubeObject {
  return {
    apiVersion: MCS_API_VERSION,
    kind: "ServiceImport",
    metadata: {
      name: merged.name,
      namespace: merged.namespace,
      labels: { ...merged.labels, [MCS_IMPORT_LABEL]: "true" },
      annotations: {
        ...merged.annotations,
        [CREATE_NAMESPACE_ANNOTATION]: "false",
        [MCS_DERIVED_SERVICE_ANNOTATION]: derivedName,
        [CLUSTERSET_STATUS_ANNOTATION]: canonicalJson(clustersetStatus(merged, cluster)),
      },
    },
    spec: {
      type: merged.type,
      ports: merged.ports.map(importPort),
      ...defined({
        sessionAffinity: merged.sessionAffinity,
        sessionAffinityConfig: merged.sessionAffinityConfig,
        internalTrafficPolicy: merged.internalTrafficPolicy,
        trafficDistribution: merged.trafficDistribution,
      }),
    },
  };
}

/**
 * The selectorless Service the import's endpoints belong to. ClusterSetIP: a ClusterIP Service,
 * dual-stack where the member is (its IPs become the import's), with the import's session
 * affinity. Headless: `clusterIP: None`, so DNS answers with the endpoints. No targetPort: the
 * slices carry each cluster's.
 */
function derivedService(merged: MergedImport, derivedName: string, portNames: readonly string[]): KubeObject {
  const ports = merged.ports.map((p, i) => ({ ...importPort(p), ...(portNames[i] === "" || portNames[i] === undefined ? {} : { name: portNames[i] }) }));
  const spec =
    merged.type === "Headless"
      ? { clusterIP: "None", ports }
      : {
          type: "ClusterIP",
          ipFamilyPolicy: "PreferDualStack",
          ports,
          ...defined({ sessionAffinity: merged.sessionAffinity, sessionAffinityConfig: merged.sessionAffinityConfig }),
        };
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: derivedName,
      namespace: merged.namespace,
      labels: { [MCS_SERVICE_NAME_LABEL]: merged.name, [MCS_IMPORT_LABEL]: "true" },
      annotations: { [CREATE_NAMESPACE_ANNOTATION]: "false" },
    },
    spec,
  };
}

/** A port as the ServiceImport holds it: name, protocol, appProtocol, port (no targetPort, no nodePort). */
function importPort(p: ServicePort): ServicePort {
  return {
    ...(p.name === undefined ? {} : { name: p.name }),
    ...(p.protocol === undefined ? {} : { protocol: p.protocol }),
    ...(p.appProtocol === undefined ? {} : { appProtocol: p.appProtocol }),
    port: p.port,
  };
}
