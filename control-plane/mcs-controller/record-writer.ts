// Every replica (issue 40): the reports of the agents streaming here → their MemberServiceExport
// records in the control cluster, so every replica (and the next one after a restart) sees the
// clusterset's whole set. One record per (cluster, namespace, name); written only when its spec
// changes (hash before write), deleted only on a withdrawal the agent saw on its synced watch, or
// for the exports its full list after a sync lacks, or when its cluster is gone (unjoined).
import type { Logger } from "pino";
import type { MemberServiceExport, MemberServiceExportSpec } from "../../shared/api/mcs.ts";
import { RESOURCES } from "../../shared/api/resources.ts";
import { canonicalJson } from "../../shared/content-hash.ts";
import { Controller, type ReconcileResult } from "../../shared/controller.ts";
import type { ServiceExportReport } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { isKubeStatus, type KubeRest, objectPath } from "../../shared/kube-rest.ts";
import { counter } from "../../shared/metrics.ts";
import type { Caches } from "../caches/caches.ts";
import { exportRecord, parseExport, RECORD_CLUSTER_LABEL, recordName } from "./export-record.ts";

export const MCS_FIELD_MANAGER = "flotilla-mcs-controller";
const UNSYNCED_RETRY_MS = 1000;
/** The most exports one cluster may hold records of (an agent's ServiceExportsSynced lists at most as many). */
export const MAX_EXPORTS_PER_CLUSTER = 10_000;
/** The most bytes of records one cluster may hold (each at most 512 KiB, message-bounds.ts): etcd and every replica's cache hold them. */
export const MAX_EXPORT_BYTES_PER_CLUSTER = 64 * 1024 * 1024;

const refusedReports = counter("flotilla_mcs_reports_refused_total", "ServiceExportReports an agent sent that the hub refused (malformed JSON or out of bounds); the record kept stays as it was.", ["cluster"]);
const recordWrites = counter("flotilla_mcs_record_writes_total", "Writes of MemberServiceExport records in the control cluster (apply or delete).", ["verb"]);

/** A record's identity and version, as a delete's preconditions: it deletes that version or nothing. */
type Version = { uid?: string; resourceVersion?: string };
/** What the agent said last; `seq` orders it against the other reports and lists this replica took. */
type Desired = { seq: number } & ({ spec: MemberServiceExportSpec } | { withdrawn: true; cluster: string; target: Version });

/** The writer's entry points: what the hub's events call. */
export interface RecordWriter {
  controller: Controller;
  report(cluster: string, report: ServiceExportReport): void;
  /** The agent's full list of its exports: this cluster's records it lacks are withdrawn. */
  synced(cluster: string, exports: string[]): void;
  /** The cluster is gone (deleted from the control cluster): its records are withdrawn. */
  clusterGone(cluster: string): void;
}

export function recordWriter(opts: { caches: Caches; rest: KubeRest; log: Logger }): RecordWriter {
  const { caches, rest, log } = opts;
  const records = caches.memberServiceExports;
  /** record name → what the agent said last, until written. */
  const desired = new Map<string, Desired>();
  /** cluster → the bytes of each of its records, held or about to be written (the bound on what one agent may make). */
  const byCluster = new Map<string, Map<string, number>>();
  /** cluster → the sum of byCluster's entries. */
  const totals = new Map<string, number>();
  const bytesOf = (cluster: string) => totals.get(cluster) ?? 0;
  const index = (cluster: string, name: string, bytes: number | undefined) => {
    const names = byCluster.get(cluster) ?? new Map<string, number>();
    const before = names.get(name) ?? 0;
    if (bytes !== undefined) names.set(name, bytes);
    else names.delete(name);
    totals.set(cluster, bytesOf(cluster) - before + (bytes ?? 0));
    if (names.size === 0) {
      byCluster.delete(cluster);
      totals.delete(cluster);
    } else byCluster.set(cluster, names);
  };
  const size = (r: MemberServiceExport) => canonicalJson(r.spec).length;
  let seq = 0;
  /** record name → the version this writer last applied (newer than the informer's until it catches up), with the report's seq. */
  const written = new Map<string, Version & { seq: number }>();
  /** The newest version of a record this replica knows of: its own last write, or the informer's. */
  const latest = (name: string): Version | undefined => {
    const w = written.get(name);
    if (w !== undefined) return w;
    const held = records.get(name)?.metadata;
    return held === undefined ? undefined : { uid: held.uid, resourceVersion: held.resourceVersion };
  };
  records.on({
    add: (r) => index(r.spec.cluster, r.metadata.name ?? "", size(r)),
    update: (r) => index(r.spec.cluster, r.metadata.name ?? "", size(r)),
    // Still counted when a write of it waits (deleted under the writer, it is written again).
    delete: (r) => {
      written.delete(r.metadata.name ?? "");
      const d = desired.get(r.metadata.name ?? "");
      index(r.spec.cluster, r.metadata.name ?? "", d !== undefined && "spec" in d ? size(r) : undefined);
    },
  });
  const path = (name: string) => objectPath(RESOURCES.memberServiceExport, undefined, name);
  const reconcile = async (name: string): Promise<ReconcileResult> => {
    const want = desired.get(name);
    if (want === undefined) return undefined;
    if (!records.synced) return { requeueAfterMs: UNSYNCED_RETRY_MS };
    const held = records.get(name);
    if ("withdrawn" in want) {
      // The version the withdrawal was said of, or this writer's own write made before it arrived.
      const mine = written.get(name);
      const target = want.target.uid !== undefined ? want.target : mine !== undefined && mine.seq < want.seq ? mine : undefined;
      if (target?.uid === undefined) {
        // Never written (withdrawn before its write): no record to delete, nothing to count.
        if (held === undefined && desired.get(name) === want) index(want.cluster, name, undefined);
      } else {
        recordWrites.inc({ verb: "delete" });
        // That version only: a record written since (the export made again, through another
        // replica) is newer than the withdrawal and stays (409).
        await rest.delete(path(name), { apiVersion: "v1", kind: "DeleteOptions", preconditions: { uid: target.uid, resourceVersion: target.resourceVersion } }).catch((err: unknown) => {
          if (!isKubeStatus(err, 404) && !isKubeStatus(err, 409)) throw err;
        });
      }
    } else if (held === undefined || canonicalJson(held.spec) !== canonicalJson(want.spec)) {
      recordWrites.inc({ verb: "apply" });
      const out = await rest.apply<MemberServiceExport>(path(name), exportRecord(want.spec), MCS_FIELD_MANAGER);
      written.set(name, { uid: out?.metadata?.uid, resourceVersion: out?.metadata?.resourceVersion, seq: want.seq });
    }
    // Forgotten only when nothing newer arrived meanwhile.
    if (desired.get(name) === want) desired.delete(name);
    return undefined;
  };
  const controller = new Controller({ name: "mcs-records", reconcile, log, workers: 4 });
  const set = (name: string, d: Desired) => {
    desired.set(name, d);
    controller.enqueue(name);
  };
  const withdraw = (cluster: string, name: string, at: number) => {
    // Nothing known of it (no record, no write, none pending): nothing to withdraw, nothing kept.
    const target = latest(name);
    if (target === undefined && desired.get(name) === undefined) return;
    set(name, { seq: at, withdrawn: true, cluster, target: target ?? {} });
  };
  /** The cluster's records that `keep` lacks are withdrawn, unless a report newer than the list (seq `at`) says otherwise. */
  const withdrawAll = (cluster: string, keep: Set<string>, at: number) => {
    for (const r of records.list()) {
      const name = r.metadata.name ?? "";
      if (r.spec.cluster !== cluster && r.metadata.labels?.[RECORD_CLUSTER_LABEL] !== cluster) continue;
      if (keep.has(name) || (desired.get(name)?.seq ?? -1) > at) continue;
      withdraw(cluster, name, at);
    }
  };
  /** Reports wait for the records' first list: withdrawals and budgets are judged on what is held. */
  const whenListed = (fn: () => void) => (records.synced ? fn() : void records.whenSynced().then(fn));
  const take = (cluster: string, report: ServiceExportReport) => {
      const at = ++seq;
      const name = recordName(cluster, report.namespace, report.name);
      if (report.withdrawn) return withdraw(cluster, name, at);
      const parsed = parseExport(cluster, report.namespace, report.name, Buffer.from(report.export));
      if (!parsed.ok) {
        refusedReports.inc({ cluster });
        log.warn({ cluster, namespace: report.namespace, name: report.name, why: parsed.reason }, "refused an agent's ServiceExport report; its record stays as it was");
        return;
      }
      const names = byCluster.get(cluster);
      const bytes = report.export.byteLength;
      const over =
        !(names?.has(name) ?? false) && (names?.size ?? 0) >= MAX_EXPORTS_PER_CLUSTER
          ? `its cluster holds the most exports allowed (${MAX_EXPORTS_PER_CLUSTER})`
          : bytesOf(cluster) - (names?.get(name) ?? 0) + bytes > MAX_EXPORT_BYTES_PER_CLUSTER
            ? `its cluster's exports would exceed ${MAX_EXPORT_BYTES_PER_CLUSTER} bytes`
            : undefined;
      if (over !== undefined) {
        refusedReports.inc({ cluster });
        log.warn({ cluster, namespace: report.namespace, name: report.name }, `refused an agent's ServiceExport report: ${over}`);
        return;
      }
      index(cluster, name, bytes);
      set(name, { seq: at, spec: parsed.value });
  };
  return {
    controller,
    report: (cluster, report) => whenListed(() => take(cluster, report)),
    synced(cluster, exports) {
      // The list follows the reports of the same stream: what it lacks was deleted meanwhile.
      const keep = new Set(exports.map((e) => recordName(cluster, ...(e.split("/") as [string, string]))));
      whenListed(() => withdrawAll(cluster, keep, ++seq));
    },
    clusterGone(cluster) {
      whenListed(() => withdrawAll(cluster, new Set(), ++seq));
    },
  };
}
