// What bench:mcs compares between clusters (pure): the endpoint set of a service's EndpointSlices,
// read the same way from member1's own slices and from the slices Flotilla imports elsewhere.

/** The part of an EndpointSlice the bench reads. */
export interface SliceLike {
  metadata?: { name?: string };
  endpoints?: { addresses?: string[]; conditions?: { ready?: boolean; serving?: boolean; terminating?: boolean } }[] | null;
}

/**
 * The ready endpoints of a set of slices: their addresses, sorted and joined ("" for none). An
 * unset `ready` counts as ready, as kube-proxy reads it. What a client of the service can reach.
 */
export function readyKey(slices: Iterable<SliceLike>): string {
  const out: string[] = [];
  for (const s of slices) for (const e of s.endpoints ?? []) if (e.conditions?.ready !== false) out.push(...(e.addresses ?? []));
  return out.sort().join(",");
}

/**
 * Every endpoint with its conditions (ready, serving, terminating as r/s/t, "-" when false or
 * unset), sorted: equal when an imported copy has caught up with all of a source, terminating
 * endpoints included.
 */
export function fullKey(slices: Iterable<SliceLike>): string {
  const out: string[] = [];
  for (const s of slices) {
    for (const e of s.endpoints ?? []) {
      const c = e.conditions ?? {};
      const flags = `${c.ready === false ? "-" : "r"}${c.serving === true ? "s" : "-"}${c.terminating === true ? "t" : "-"}`;
      for (const a of e.addresses ?? []) out.push(`${a}:${flags}`);
    }
  }
  return out.sort().join(",");
}

/** How many addresses a readyKey holds. */
export const keySize = (key: string) => (key === "" ? 0 : key.split(",").length);
