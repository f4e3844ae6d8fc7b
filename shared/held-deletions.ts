// The deletions the blast-radius brake holds (DESIGN §11), as the bindings show them: entries
// with the DeletionHeld status word. flotillactl deletions and the dashboard list them. Pure.
import type { ResourceBinding } from "./api/types.ts";

/** One held deletion: a template's object on one cluster. */
export interface HeldDeletion {
  cluster: string;
  kind: string;
  namespace?: string;
  name: string;
  binding: string;
  message: string;
}

/** The held deletions the bindings show, sorted by cluster, then template; pure. */
export function heldDeletions(bindings: ResourceBinding[], cluster?: string): HeldDeletion[] {
  const out: HeldDeletion[] = [];
  for (const b of bindings) {
    for (const e of b.status?.aggregatedStatus ?? []) {
      if (e.reason !== "DeletionHeld" || (cluster !== undefined && e.clusterName !== cluster)) continue;
      const r = b.spec.resource;
      out.push({ cluster: e.clusterName, kind: r.kind, ...(r.namespace ? { namespace: r.namespace } : {}), name: r.name, binding: b.metadata.name ?? "", message: e.message ?? "" });
    }
  }
  const key = (h: HeldDeletion) => `${h.cluster}\u0000${h.kind}\u0000${h.namespace ?? ""}\u0000${h.name}`;
  return out.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}
