// An import as Works (pure, issue 40): for one namespace/name, every member's Work holding its
// ServiceImport, derived Service and imported EndpointSlices. The Works are keyed by the export
// record's kind (flotilla.dev/v1alpha1/MemberServiceExport/<ns>/<name>): no binding renders them,
// so they never collide with a Service or ServiceImport template a user propagates. They apply
// under Abort: a Service or ServiceImport of that name Flotilla did not make is never taken over.
import type { MemberServiceExportSpec } from "../../shared/api/mcs.ts";
import { canonicalJson, contentHash } from "../../shared/content-hash.ts";
import { parseWorkKey, workKey } from "../../shared/work-key.ts";
import { memberServiceImport, sharedManifests } from "./import-manifests.ts";
import { type MergeOptions, mergeExports } from "./merge.ts";

/** How an import's Work applies: a member object of that name Flotilla does not own is left alone (AlreadyExists). */
const CONFLICT_RESOLUTION = "Abort";

const API_VERSION = "flotilla.dev/v1alpha1";
const KIND = "MemberServiceExport";
const KEY_PREFIX = `${API_VERSION}/${KIND}/`;

/** The Work key of a namespace/name's import (the same key in every member). */
export function importWorkKey(namespace: string, name: string): string {
  return workKey({ apiVersion: API_VERSION, kind: KIND, namespace, name });
}

/** The namespace and name of the import a Work key names, or undefined for any other Work. */
export function importOfWorkKey(key: string): { namespace: string; name: string } | undefined {
  if (!key.startsWith(KEY_PREFIX)) return undefined;
  const ref = parseWorkKey(key);
  return ref.namespace === undefined ? undefined : { namespace: ref.namespace, name: ref.name };
}

/** One import Work as the Work store holds it. */
export interface ImportWork {
  key: string;
  hash: string;
  /** Each manifest as canonical JSON (keys sorted): the same input gives the same bytes on every replica. */
  manifests: Buffer[];
  conflictResolution: string;
}

/**
 * member → the Work that imports one namespace/name's exports there (any order; all of one
 * namespace/name), for each of `clusters` (every member, the exporters among them). No exports:
 * no Works (the import goes only when the last export is withdrawn; the caller judges that).
 * Clusters in `notReady` keep their endpoints, marked not ready.
 */
export function importWorks(exports: readonly MemberServiceExportSpec[], clusters: readonly string[], notReady: ReadonlySet<string>, opts: MergeOptions = {}): Map<string, ImportWork> {
  const out = new Map<string, ImportWork>();
  const merged = mergeExports(exports, opts);
  if (merged === undefined) return out;
  const key = importWorkKey(merged.namespace, merged.name);
  // The derived Service and the slices are the same for every member: rendered, encoded and
  // hashed once, their bytes shared by every member's Work (a fleet of N costs one rendering).
  const shared = sharedManifests(merged, notReady);
  const sharedBytes = shared.map((m) => Buffer.from(canonicalJson(m)));
  const sharedHash = contentHash(shared);
  for (const cluster of [...new Set(clusters)].sort()) {
    const own = memberServiceImport(merged, cluster);
    out.set(cluster, {
      key,
      hash: contentHash([own, sharedHash, CONFLICT_RESOLUTION]),
      manifests: [Buffer.from(canonicalJson(own)), ...sharedBytes],
      conflictResolution: CONFLICT_RESOLUTION,
    });
  }
  return out;
}
