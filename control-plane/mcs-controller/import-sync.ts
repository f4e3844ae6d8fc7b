// Every replica (issue 40): the clusterset's imports as Works in the Work store, computed from the
// MemberServiceExport records (the hub serves them to agents that declare "mcs"), and the judge of
// their absence (DESIGN §11, §13): an import leaves a member only when every export of it was
// withdrawn, as seen on the synced informer, or when the member is unjoined. A cluster that stops
// reporting withdraws nothing: its records stay, its endpoints are sent as not ready.
import type { MemberServiceExport, MemberServiceExportSpec } from "../../shared/api/mcs.ts";
import type { Cluster } from "../../shared/api/types.ts";
import { clusterReady } from "../../shared/cluster-ready.ts";
import { judgedLeaving } from "../../shared/cluster-unjoin.ts";
import { FEATURES } from "../../shared/protocol.ts";
import { clusterAccepted } from "../scheduling/acceptance.ts";
import type { Caches } from "../caches/caches.ts";
import { type ImportWork, importOfWorkKey, importWorkKey, importWorks } from "../mcs/index.ts";
import type { WorkStore } from "../works/work-store.ts";

/** The reason an agent is given when it removes an import (logged with each object it deletes). */
export const EXPORTS_WITHDRAWN = "ExportsWithdrawn";

const serviceKey = (namespace: string, name: string) => `${namespace}/${name}`;

/**
 * The members in the clusterset, whose exports count and which get imports: every joined cluster
 * not being unjoined, and, with --require-acceptance, accepted by an admin (a cluster that merely
 * registered neither reads the clusterset's endpoints nor adds its own).
 */
export function importingClusters(clusters: Cluster[], requireAcceptance = false): string[] {
  return clusters
    .filter((c) => judgedLeaving(c) === false && (!requireAcceptance || clusterAccepted(c)))
    .map((c) => c.metadata.name ?? "")
    .sort();
}

/**
 * Keeps the import Works in line with the records; returns a function that renders them all.
 * Renders are coalesced per namespace/name to the next turn of the event loop (the informer's
 * first list arrives one record at a time), and none is made before the records have listed: a
 * partial set would be an import with some exporters' endpoints missing, pruned in every member.
 */
export function syncImportWorks(caches: Caches, works: WorkStore, opts: { requireAcceptance?: boolean } = {}): () => void {
  const requireAcceptance = opts.requireAcceptance === true;
  /** namespace/name → the Works (their keys) each member has of it. */
  const placed = new Map<string, Map<string, Set<string>>>();
  /** namespace/name → the joined clusters' exports of it, from one pass over the records. */
  const exportsByService = (clusters: string[]): Map<string, MemberServiceExportSpec[]> => {
    const joined = new Set(clusters);
    const out = new Map<string, MemberServiceExportSpec[]>();
    for (const { spec } of caches.memberServiceExports.list()) {
      if (!joined.has(spec.cluster)) continue;
      const k = serviceKey(spec.namespace, spec.name);
      out.set(k, [...(out.get(k) ?? []), spec]);
    }
    return out;
  };
  const exportsOf = (namespace: string, name: string) => exportsByService(importingClusters(caches.clusters.list(), requireAcceptance)).get(serviceKey(namespace, name)) ?? [];
  /** What every render of one flush shares: computed once, not once per namespace/name. */
  interface Fleet {
    clusters: string[];
    notReady: Set<string>;
    exports: Map<string, MemberServiceExportSpec[]>;
  }
  const render = (key: string, fleet: Fleet) => {
    const { clusters, notReady } = fleet;
    const exports = fleet.exports.get(key) ?? [];
    const now = exports.length === 0 ? new Map<string, ImportWork[]>() : importWorks(exports, clusters, notReady);
    const keys = new Map<string, Set<string>>();
    for (const [cluster, ws] of now) {
      for (const w of ws) works.set(cluster, w);
      keys.set(cluster, new Set(ws.map((w) => w.key)));
    }
    // Removed from the store; the hub asks absenceIntent below whether the agent removes it.
    for (const [cluster, had] of placed.get(key) ?? []) for (const k of had) if (!(keys.get(cluster)?.has(k) ?? false)) works.delete(cluster, k);
    if (keys.size === 0) placed.delete(key);
    else placed.set(key, keys);
  };
  const pending = new Set<string>();
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (!caches.memberServiceExports.synced) return;
    const keys = [...pending];
    pending.clear();
    const clusters = importingClusters(caches.clusters.list(), requireAcceptance);
    const fleet: Fleet = { clusters, notReady: new Set(caches.clusters.list().filter((c) => !clusterReady(c)).map((c) => c.metadata.name ?? "")), exports: exportsByService(clusters) };
    for (const k of keys) render(k, fleet);
  };
  const schedule = (key: string) => {
    pending.add(key);
    if (scheduled) return;
    scheduled = true;
    setImmediate(flush);
  };
  const renderAll = () => {
    for (const k of placed.keys()) schedule(k);
    for (const r of caches.memberServiceExports.list()) schedule(serviceKey(r.spec.namespace, r.spec.name));
  };
  const changed = (r: MemberServiceExport) => schedule(serviceKey(r.spec.namespace, r.spec.name));
  caches.memberServiceExports.on({ add: changed, update: changed, delete: changed });
  void caches.memberServiceExports.whenSynced().then(renderAll);
  // A cluster that joins, leaves, is accepted, or turns Ready or not: every import's members and endpoints.
  caches.onClusterShapeChange(
    (c) => `${judgedLeaving(c)}/${clusterReady(c)}/${clusterAccepted(c)}`,
    () => renderAll(),
  );
  works.addSource({
    owns: (key) => importOfWorkKey(key) !== undefined,
    feature: FEATURES.mcs,
    // An import and its clusters' slices are one object to the user: their removals count once.
    brakeKey: (key) => {
      const ref = importOfWorkKey(key);
      return ref === undefined ? key : importWorkKey(ref.namespace, ref.name);
    },
    absenceIntent: (cluster, key) => {
      const ref = importOfWorkKey(key);
      if (ref === undefined) return undefined;
      const leaving = judgedLeaving(caches.clusters.get(cluster));
      if (leaving === undefined) return undefined;
      if (leaving) return { reason: "ClusterUnjoined", preserve: false };
      // Unknown until the records have listed; withdrawn only when no joined cluster exports it
      // (for one cluster's slices: when that cluster does not).
      if (!caches.memberServiceExports.synced) return undefined;
      const exporters = exportsOf(ref.namespace, ref.name).filter((e) => ref.cluster === undefined || e.cluster === ref.cluster);
      return exporters.length === 0 ? { reason: EXPORTS_WITHDRAWN, preserve: false } : undefined;
    },
  });
  return renderAll;
}
