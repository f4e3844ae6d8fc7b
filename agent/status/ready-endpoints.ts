// How many endpoints of a Service are ready, from its EndpointSlices: pure.
import type { KubeObject } from "../../shared/api/types.ts";

/** The label the EndpointSlice controller puts on every slice of a Service. */
export const SERVICE_NAME_LABEL = "kubernetes.io/service-name";

/** An EndpointSlice (discovery.k8s.io/v1) as listed, or as the agent keeps it (readyEndpoints set, endpoints dropped). */
export interface EndpointSlice extends KubeObject {
  addressType?: string;
  endpoints?: { conditions?: { ready?: boolean | null } | null }[] | null;
  /** Set by sliceSummary: the slice's ready endpoints, so the cache keeps a number instead of the endpoints. */
  readyEndpoints?: number;
}

/** Kubernetes semantics: an endpoint is ready unless conditions.ready is false (unset means ready). */
export function readyEndpointCount(slice: EndpointSlice): number {
  return (slice.endpoints ?? []).filter((e) => e?.conditions?.ready !== false).length;
}

/** What the agent keeps of a slice: its identity, its Service, its address type and its ready count (tens of bytes). */
export function sliceSummary(s: EndpointSlice): EndpointSlice {
  const { name, namespace, resourceVersion } = s.metadata;
  const service = s.metadata.labels?.[SERVICE_NAME_LABEL];
  return {
    apiVersion: s.apiVersion,
    kind: s.kind,
    metadata: { name, namespace, resourceVersion, ...(service === undefined ? {} : { labels: { [SERVICE_NAME_LABEL]: service } }) },
    addressType: s.addressType,
    readyEndpoints: s.readyEndpoints ?? readyEndpointCount(s),
  };
}

/**
 * A Service's ready endpoints from its slices' summaries. A dual-stack Service has one set of
 * slices per address family, each listing the same pods: the count is the largest family's sum,
 * so a pod is not counted twice.
 */
export function serviceReadyEndpoints(slices: Iterable<EndpointSlice>): number {
  const byFamily = new Map<string, number>();
  for (const s of slices) {
    const family = s.addressType ?? "";
    byFamily.set(family, (byFamily.get(family) ?? 0) + (s.readyEndpoints ?? readyEndpointCount(s)));
  }
  return Math.max(0, ...byFamily.values());
}
