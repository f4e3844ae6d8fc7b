// An import as Works (pure, issue 40). For one namespace/name, every member gets one Work holding
// its ServiceImport and derived Service, and one Work per exporting cluster holding that cluster's
// imported EndpointSlices: an endpoint change in one cluster changes only that cluster's slice Work
// (the import's other objects are not applied again), and every member's copy of it is the same
// bytes. The Works are keyed by the export record's kind
// (flotilla.dev/v1alpha1/MemberServiceExport/<ns>/<name>, and <name>.<cluster> for a cluster's
// slices): no binding renders them, so they never collide with a Service or ServiceImport template
// a user propagates. They apply under Abort: a Service or ServiceImport of that name Flotilla did
// not make is never taken over.
import type { MemberServiceExportSpec } from "../../shared/api/mcs.ts";
import { canonicalJson, contentHash } from "../../shared/content-hash.ts";
import { parseWorkKey, workKey } from "../../shared/work-key.ts";
import { derivedServiceOf, memberServiceImport, slicesOf } from "./import-manifests.ts";
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

/** The Work key of one exporting cluster's slices of a namespace/name's import (a Service name holds no dot). */
export function sliceWorkKey(namespace: string, name: string, cluster: string): string {
  return workKey({ apiVersion: API_VERSION, kind: KIND, namespace, name: `${name}.${cluster}` });
}

/** The import a Work key names (with `cluster` for one cluster's slices), or undefined for any other Work. */
export function importOfWorkKey(key: string): { namespace: string; name: string; cluster?: string } | undefined {
  if (!key.startsWith(KEY_PREFIX)) return undefined;
  const ref = parseWorkKey(key);
  if (ref.namespace === undefined) return undefined;
  const dot = ref.name.indexOf(".");
  return dot < 0 ? { namespace: ref.namespace, name: ref.name } : { namespace: ref.namespace, name: ref.name.slice(0, dot), cluster: ref.name.slice(dot + 1) };
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
 * member → the Works that import one namespace/name's exports there (any order; all of one
 * namespace/name), for each of `clusters` (every member, the exporters among them): the import's
 * Work, then one slice Work per exporting cluster. No exports: no Works (the import goes only when
 * the last export is withdrawn; the caller judges that). Clusters in `notReady` keep their
 * endpoints, marked not ready.
 */
export function importWorks(exports: readonly MemberServiceExportSpec[], clusters: readonly string[], notReady: ReadonlySet<string>, opts: MergeOptions = {}): Map<string, ImportWork[]> {
  const out = new Map<string, ImportWork[]>();
  const merged = mergeExports(exports, opts);
  if (merged === undefined) return out;
  const key = importWorkKey(merged.namespace, merged.name);
  // What is the same in every member is rendered, encoded and hashed once, its bytes shared by
  // every member's Work (a fleet of N costs one rendering): the derived Service and the slices.
  const derived = derivedServiceOf(merged);
  const derivedBytes = Buffer.from(canonicalJson(derived));
  const derivedHash = contentHash(derived);
  const sliceWorks = merged.clusters.map((source): ImportWork => {
    const slices = slicesOf(merged, notReady, source);
    return { key: sliceWorkKey(merged.namespace, merged.name, source), hash: contentHash([slices, CONFLICT_RESOLUTION]), manifests: slices.map((m) => Buffer.from(canonicalJson(m))), conflictResolution: CONFLICT_RESOLUTION };
  });
  for (const cluster of [...new Set(clusters)].sort()) {
    const own = memberServiceImport(merged, cluster);
    const importWork: ImportWork = { key, hash: contentHash([own, derivedHash, CONFLICT_RESOLUTION]), manifests: [Buffer.from(canonicalJson(own)), derivedBytes], conflictResolution: CONFLICT_RESOLUTION };
    out.set(cluster, [importWork, ...sliceWorks]);
  }
  return out;
}
