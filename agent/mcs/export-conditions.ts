// The conditions on a member's ServiceExport (issue 40, KEP-1645): pure. Valid is the agent's own
// verdict; Ready and Conflict are the clusterset's, carried to this member on its import
// (CLUSTERSET_STATUS_ANNOTATION). A condition keeps its lastTransitionTime while its status stays.
import type { ClustersetStatus, McsCondition } from "../../shared/api/mcs.ts";
import type { ExportVerdict } from "./export-report.ts";

export interface TimedCondition extends McsCondition {
  lastTransitionTime: string;
}

/** A condition as the object holds it now. */
export interface HeldCondition {
  type: string;
  status?: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

const PENDING: McsCondition = { type: "Ready", status: "False", reason: "Pending", message: "waiting for the clusterset to import the export" };

/** What the conditions should say now (without times). */
export function wantedExportConditions(verdict: ExportVerdict, clusterset: ClustersetStatus | undefined, cluster: string): McsCondition[] {
  if (!verdict.valid) {
    return [
      { type: "Valid", status: "False", reason: verdict.reason, message: verdict.message },
      { type: "Ready", status: "False", reason: "Failed", message: "the export is not valid" },
    ];
  }
  const valid: McsCondition = { type: "Valid", status: "True", reason: "Valid", message: "the Service can be exported" };
  const theirs = clusterset !== undefined && clusterset.clusters.includes(cluster) ? (clusterset.exportConditions ?? []) : [];
  const ready = theirs.find((c) => c.type === "Ready") ?? PENDING;
  const conflict = theirs.find((c) => c.type === "Conflict");
  return conflict === undefined ? [valid, ready] : [valid, ready, conflict];
}

/** The conditions to write: each new one stamped `now`, an unchanged status keeping its time; undefined when nothing changes. */
export function timedConditions(wanted: McsCondition[], current: HeldCondition[], now: string): TimedCondition[] | undefined {
  let changed = false;
  const out = wanted.map((w) => {
    const held = current.find((c) => c.type === w.type);
    if (held === undefined || held.status !== w.status || held.reason !== w.reason || held.message !== w.message) changed = true;
    const time = held !== undefined && held.status === w.status && held.lastTransitionTime !== undefined ? held.lastTransitionTime : now;
    return { ...w, lastTransitionTime: time };
  });
  return changed ? out : undefined;
}

/** The annotation's value, or undefined when it is absent or not what Flotilla writes. */
export function parseClustersetStatus(value: string | undefined): ClustersetStatus | undefined {
  if (value === undefined) return undefined;
  try {
    const v = JSON.parse(value) as ClustersetStatus;
    return Array.isArray(v.clusters) && v.clusters.every((c) => typeof c === "string") ? v : undefined;
  } catch {
    return undefined;
  }
}
