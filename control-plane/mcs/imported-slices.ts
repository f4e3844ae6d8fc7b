// The imported EndpointSlices (KEP-1645 "EndpointSlice", pure): one per source slice of each
// exporting cluster, the same in every member. Each holds one cluster's endpoints, carries both
// MCS labels and ties itself to the derived Service (kubernetes.io/service-name), so kube-proxy
// and CoreDNS use it as they use a local one; Flotilla manages it, never kube-controller-manager.
//
// A cluster that is not ready (its agent lost, DESIGN §11) keeps its slices, every endpoint marked
// `ready: false, serving: false`: nothing is ever removed because a cluster stopped reporting (the
// KEP's endpoint TTL only recommends removal). A withdrawn export is what removes them.
import type { EndpointPort, ExportedEndpoint, ExportedEndpointSlice } from "../../shared/api/mcs.ts";
import {
  CREATE_NAMESPACE_ANNOTATION,
  ENDPOINTSLICE_MANAGED_BY_LABEL,
  KUBE_SERVICE_NAME_LABEL,
  MCS_ENDPOINTSLICE_MANAGER,
  MCS_IMPORT_LABEL,
  MCS_SERVICE_NAME_LABEL,
  MCS_SOURCE_CLUSTER_LABEL,
} from "../../shared/api/mcs.ts";
import type { KubeObject } from "../../shared/api/types.ts";
import { canonicalJson } from "../../shared/content-hash.ts";
import { importedSliceName } from "./derived-name.ts";
import type { MergedImport } from "./merge.ts";
import { compare } from "./merge.ts";

/** The most endpoints the apiserver takes in one EndpointSlice; a longer source slice is cut into pieces. */
export const MAX_SLICE_ENDPOINTS = 1000;

/** What the slices need besides the merged import. */
export interface SliceContext {
  derivedName: string;
  /** The derived Service's name of each port whose name it changes (an unnamed port among several): "" → `tcp-80`. */
  portRenames: ReadonlyMap<string, string>;
  /** Exporting clusters that are not ready: their endpoints are kept, not ready and not serving. */
  notReady: ReadonlySet<string>;
  /** Only this exporting cluster's slices (its own Work); all when absent. */
  cluster?: string;
}

/** Every exporting cluster's slices as EndpointSlices in the import's namespace, sorted by name. */
export function importedSlices(merged: MergedImport, ctx: SliceContext): KubeObject[] {
  const out: KubeObject[] = [];
  for (const e of merged.exports) {
    if (ctx.cluster !== undefined && e.cluster !== ctx.cluster) continue;
    for (const slice of e.endpointSlices) {
      const endpoints = slice.endpoints.map((ep) => endpoint(ep, ctx.notReady.has(e.cluster))).sort(byContent);
      const ports = slice.ports.map((p) => slicePort(p, ctx.portRenames));
      const pieces = Math.max(1, Math.ceil(endpoints.length / MAX_SLICE_ENDPOINTS));
      for (let part = 0; part < pieces; part++) {
        const name = importedSliceName(ctx.derivedName, e.cluster, slice.name, part);
        const piece = endpoints.slice(part * MAX_SLICE_ENDPOINTS, (part + 1) * MAX_SLICE_ENDPOINTS);
        out.push(sliceObject(merged, ctx.derivedName, e.cluster, name, slice, ports, piece));
      }
    }
  }
  return out.sort((a, b) => compare(a.metadata.name ?? "", b.metadata.name ?? ""));
}

function sliceObject(merged: MergedImport, derivedName: string, cluster: string, name: string, slice: ExportedEndpointSlice, ports: EndpointPort[], endpoints: ExportedEndpoint[]): KubeObject {
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: {
      name,
      namespace: merged.namespace,
      labels: {
        [MCS_SERVICE_NAME_LABEL]: merged.name,
        [MCS_SOURCE_CLUSTER_LABEL]: cluster,
        [KUBE_SERVICE_NAME_LABEL]: derivedName,
        [ENDPOINTSLICE_MANAGED_BY_LABEL]: MCS_ENDPOINTSLICE_MANAGER,
        [MCS_IMPORT_LABEL]: "true",
      },
      annotations: { [CREATE_NAMESPACE_ANNOTATION]: "false" },
    },
    addressType: slice.addressType,
    ports,
    endpoints,
  };
}

/** An endpoint as a member's slice holds it: addresses, conditions, hostname, zone; never a nodeName (the node is another cluster's). */
function endpoint(ep: ExportedEndpoint, clusterNotReady: boolean): ExportedEndpoint {
  const conditions = clusterNotReady ? { ...ep.conditions, ready: false, serving: false } : ep.conditions;
  return {
    addresses: [...ep.addresses],
    ...(conditions === undefined ? {} : { conditions: { ...conditions } }),
    ...(ep.hostname === undefined ? {} : { hostname: ep.hostname }),
    ...(ep.zone === undefined ? {} : { zone: ep.zone }),
  };
}

/** A slice port under the name the derived Service gives it (kube-proxy matches the two by name). */
function slicePort(p: EndpointPort, renames: ReadonlyMap<string, string>): EndpointPort {
  const name = renames.get(p.name ?? "") ?? p.name;
  return {
    ...(name === undefined || name === "" ? {} : { name }),
    ...(p.protocol === undefined ? {} : { protocol: p.protocol }),
    ...(p.appProtocol === undefined ? {} : { appProtocol: p.appProtocol }),
    ...(p.port === undefined ? {} : { port: p.port }),
  };
}

/** Endpoints in one order whatever order the agent reported them in, so the Work's hash holds still. */
function byContent(a: ExportedEndpoint, b: ExportedEndpoint): number {
  return compare(canonicalJson(a), canonicalJson(b));
}
