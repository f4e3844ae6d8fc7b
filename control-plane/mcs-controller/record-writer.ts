// Every replica (issue 40): the reports of the agents streaming here → their MemberServiceExport
// records in the control cluster, so every replica (and the next one after a restart) sees the
// clusterset's whole set. One record per (cluster, namespace, name); written only when its spec
// changes (hash before write), deleted only on a withdrawal the agent saw on its synced watch, or
// for the exports its full list after a sync lacks, or when its cluster is gone (unjoined).
import type { Logger } from "pino";
import type { MemberServiceExportSpec } from "../../shared/api/mcs.ts";
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

const refusedReports = counter("flotilla_mcs_reports_refused_total", "ServiceExportReports an agent sent that the hub refused (malformed JSON or out of bounds); the record kept stays as it was.", ["cluster"]);
const recordWrites = counter("flotilla_mcs_record_writes_total", "Writes of MemberServiceExport records in the control cluster (apply or delete).", ["verb"]);

type Desired = { spec: MemberServiceExportSpec } | { withdrawn: true; cluster: string };

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
  const path = (name: string) => objectPath(RESOURCES.memberServiceExport, undefined, name);
  const reconcile = async (name: string): Promise<ReconcileResult> => {
    const want = desired.get(name);
    if (want === undefined) return undefined;
    if (!records.synced) return { requeueAfterMs: UNSYNCED_RETRY_MS };
    const held = records.get(name);
    if ("withdrawn" in want) {
      if (held !== undefined) {
        recordWrites.inc({ verb: "delete" });
        await rest.delete(path(name), { apiVersion: "v1", kind: "DeleteOptions", preconditions: { uid: held.metadata.uid } }).catch((err: unknown) => {
          if (!isKubeStatus(err, 404) && !isKubeStatus(err, 409)) throw err;
        });
      }
    } else if (held === undefined || canonicalJson(held.spec) !== canonicalJson(want.spec)) {
      recordWrites.inc({ verb: "apply" });
      await rest.apply(path(name), exportRecord(want.spec), MCS_FIELD_MANAGER);
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
  const withdrawAll = (cluster: string, keep: Set<string>) => {
    for (const r of records.list()) {
      const name = r.metadata.name ?? "";
      if (r.spec.cluster !== cluster && r.metadata.labels?.[RECORD_CLUSTER_LABEL] !== cluster) continue;
      if (!keep.has(name)) set(name, { withdrawn: true, cluster });
    }
  };
  return {
    controller,
    report(cluster, report) {
      const name = recordName(cluster, report.namespace, report.name);
      if (report.withdrawn) return set(name, { withdrawn: true, cluster });
      const parsed = parseExport(cluster, report.namespace, report.name, Buffer.from(report.export));
      if (!parsed.ok) {
        refusedReports.inc({ cluster });
        log.warn({ cluster, namespace: report.namespace, name: report.name, why: parsed.reason }, "refused an agent's ServiceExport report; its record stays as it was");
        return;
      }
      set(name, { spec: parsed.value });
    },
    synced(cluster, exports) {
      // The list follows the reports of the same stream: what it lacks was deleted meanwhile.
      const keep = new Set(exports.map((e) => recordName(cluster, ...(e.split("/") as [string, string]))));
      if (records.synced) withdrawAll(cluster, keep);
      else void records.whenSynced().then(() => withdrawAll(cluster, keep));
    },
    clusterGone(cluster) {
      withdrawAll(cluster, new Set());
    },
  };
}
