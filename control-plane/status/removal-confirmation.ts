// A removal an agent confirms by what it no longer holds: pure. The agent reports a removal once;
// if that report dies with the hub it was sent to, and the agent restarts, nothing would report it
// again, and the WaitingForRemoval entry would hold the binding (and its finalizer) for good. The
// Hello of every new stream lists the Works the agent holds, so a Work it waits on that the agent
// no longer lists is removed. Nothing is deleted on this account: it only settles the record.
import type { AggregatedStatusItem } from "../../shared/api/types.ts";
import type { WorkStatus } from "../../shared/gen/flotilla/v1alpha1/agent.ts";

export interface BindingRecord {
  /** The Work key (the template's key). */
  key: string;
  /** The clusters the binding places the Work on. */
  targets: readonly string[];
  deleting: boolean;
  /** The binding's aggregatedStatus. */
  entries: readonly AggregatedStatusItem[];
  /** The last report per cluster, in memory. */
  reports: ReadonlyMap<string, WorkStatus>;
}

/** The keys whose removal from `cluster` its agent's Hello confirms: no longer wanted there, recorded as possibly held, not held. */
export function removalsConfirmed(cluster: string, holds: ReadonlySet<string>, bindings: Iterable<BindingRecord>): string[] {
  const out: string[] = [];
  for (const b of bindings) {
    if (holds.has(b.key)) continue;
    if (!b.deleting && b.targets.includes(cluster)) continue;
    const report = b.reports.get(cluster);
    if (report?.deleted === true) continue;
    const waiting = b.entries.some((e) => e.clusterName === cluster && e.reason === "WaitingForRemoval");
    if (waiting || report !== undefined) out.push(b.key);
  }
  return out.sort();
}

/** The report that records a confirmed removal, as the agent's own would. */
export function removalReport(key: string): WorkStatus {
  return { workKey: key, observedHash: "", applied: false, available: false, reason: "", message: "", manifests: [], deleted: true };
}
