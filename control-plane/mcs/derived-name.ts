// The names of what Flotilla makes in a member for an import (pure): the derived Service, which
// gives the import its IPs and its endpoints a Service to belong to, and the imported
// EndpointSlices. The derived Service is `clusterset-<service>` whenever that fits a Service name
// (63 characters, so services of up to 52), because a CoreDNS `rewrite` regex can map
// `<svc>.<ns>.svc.clusterset.local` onto it, and a regex cannot compute a hash (mcs-brief §2: the
// upstream reference controller's hashed `derived-<hash>` cannot be rewritten to). A longer
// service's name is hashed, and its DNS must come from records rather than the rewrite. A user's
// own Service of that name is never taken over: the import's Work applies under Abort.
import { DERIVED_SERVICE_PREFIX } from "../../shared/api/mcs.ts";
import { contentHash } from "../../shared/content-hash.ts";

/** The longest Service name (an RFC 1035 label) and the longest EndpointSlice name Flotilla makes. */
export const MAX_NAME_LENGTH = 63;

/** How many hex characters of a hash stand for a long service, and for a source slice. */
const SERVICE_HASH_LENGTH = 16;
const SLICE_HASH_LENGTH = 10;

/**
 * The derived Service's name in every member: `clusterset-<name>` up to 63 characters, else
 * `clusterset-` and the first 16 hex characters of the SHA-256 of `<namespace>/<name>` (as
 * shared/content-hash.ts hashes a string: its canonical JSON).
 */
export function derivedServiceName(namespace: string, name: string): string {
  const plain = `${DERIVED_SERVICE_PREFIX}${name}`;
  if (plain.length <= MAX_NAME_LENGTH) return plain;
  return `${DERIVED_SERVICE_PREFIX}${contentHash(`${namespace}/${name}`).slice(0, SERVICE_HASH_LENGTH)}`;
}

/**
 * An imported EndpointSlice's name: the derived Service's name (cut to fit) and 10 hex characters
 * of the SHA-256 of `<cluster>/<slice>`, so each source slice keeps one name in every member, and
 * slices of the same name in two clusters never meet. `part` numbers the pieces of a source slice
 * past the apiserver's 1000 endpoints (the first piece has none).
 */
export function importedSliceName(derivedName: string, cluster: string, sliceName: string, part = 0): string {
  const source = part === 0 ? `${cluster}/${sliceName}` : `${cluster}/${sliceName}/${part}`;
  const hash = contentHash(source).slice(0, SLICE_HASH_LENGTH);
  return `${derivedName.slice(0, MAX_NAME_LENGTH - SLICE_HASH_LENGTH - 1)}-${hash}`;
}
