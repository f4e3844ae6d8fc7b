// Issue 42, on the leader: the reports a followed replica sent of clusters the leader does not take
// from it (yet): a whole snapshot waits here until it is complete, and a cluster's reports until
// the leader's copy of its Lease names the replica. Bounded in bytes (status-store.ts's
// reportBytes), not only in clusters and keys: a replica that sends more is misbehaving (or its
// reports are not what a replica's StatusStore would keep), and the leader closes its stream
// rather than grow (status-follower.ts).
import type { WorkStatus } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { reportBytes } from "../status/status-store.ts";

/** How many clusters' worth of reports, each at the per-cluster budget (--max-status-bytes-per-cluster), one replica may have pending. */
export const PENDING_CLUSTERS_AT_BUDGET = 8;

/** The bound on one replica's pending reports, for a per-cluster budget (512 MiB at the default 64 MiB). */
export function pendingBound(maxStatusBytesPerCluster: number): number {
  return PENDING_CLUSTERS_AT_BUDGET * maxStatusBytesPerCluster;
}

export class PendingReports {
  private readonly byCluster = new Map<string, Map<string, WorkStatus>>();
  private total = 0;
  readonly maxBytes: number;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  /** What the pending reports cost (reportBytes). */
  get bytes(): number {
    return this.total;
  }

  clusters(): string[] {
    return [...this.byCluster.keys()];
  }

  /** Records a report on a Work, or its absence (undefined); false, recording nothing, when it would take the total past the bound. */
  put(cluster: string, key: string, status: WorkStatus | undefined): boolean {
    const perCluster = this.byCluster.get(cluster);
    const before = perCluster?.get(key);
    const after = this.total - (before === undefined ? 0 : reportBytes(before)) + (status === undefined ? 0 : reportBytes(status));
    if (status !== undefined && after > this.maxBytes) return false;
    this.total = after;
    if (status === undefined) {
      perCluster?.delete(key);
      if (perCluster?.size === 0) this.byCluster.delete(cluster);
    } else if (perCluster === undefined) this.byCluster.set(cluster, new Map([[key, status]]));
    else perCluster.set(key, status);
    return true;
  }

  /** Takes a cluster's reports out (the leader takes the cluster, or the replica no longer hears it). */
  take(cluster: string): WorkStatus[] {
    const perCluster = this.byCluster.get(cluster);
    if (perCluster === undefined) return [];
    this.byCluster.delete(cluster);
    for (const r of perCluster.values()) this.total -= reportBytes(r);
    return [...perCluster.values()];
  }

  /** Puts back what the leader held of a cluster it releases: counted, never refused (the leader held them already). */
  restore(cluster: string, reports: readonly WorkStatus[]): void {
    this.take(cluster);
    if (reports.length === 0) return;
    const perCluster = new Map(reports.map((r) => [r.workKey, r]));
    this.byCluster.set(cluster, perCluster);
    for (const r of perCluster.values()) this.total += reportBytes(r);
  }
}
