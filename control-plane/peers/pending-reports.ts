// Issue 42, on the leader: the reports a followed replica sent of clusters the leader does not take
// from it (yet): a whole snapshot waits here until it is complete, and a cluster's reports until
// the leader's copy of its Lease names the replica. Bounded in bytes per cluster (status-store.ts's
// reportBytes), not only in clusters and keys: a replica's StatusStore keeps at most the
// per-cluster budget of reports for a cluster (--max-status-bytes-per-cluster), so one that sends
// more for a cluster is misbehaving, and the leader closes its stream rather than grow
// (status-follower.ts). A healthy replica's snapshot of many clusters is never refused: the total
// is bounded by the clusters it may list (status-plan.ts listedClusters) times the bound.
import type { WorkStatus } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { reportBytes } from "../status/status-store.ts";

/** Room above the per-cluster budget (a report trimmed or counted a little differently on the way). */
export const PENDING_BUDGET_MARGIN = 2;

/** The bound on one cluster's pending reports from one replica, for a per-cluster budget (128 MiB at the default 64 MiB). */
export function pendingBound(maxStatusBytesPerCluster: number): number {
  return PENDING_BUDGET_MARGIN * maxStatusBytesPerCluster;
}

export class PendingReports {
  private readonly byCluster = new Map<string, Map<string, WorkStatus>>();
  private readonly bytesOf = new Map<string, number>();
  private total = 0;
  /** The bound per cluster. */
  readonly maxBytes: number;

  constructor(maxBytesPerCluster: number) {
    this.maxBytes = maxBytesPerCluster;
  }

  /** What the pending reports of every cluster cost (reportBytes). */
  get bytes(): number {
    return this.total;
  }

  clusters(): string[] {
    return [...this.byCluster.keys()];
  }

  /** Records a report on a Work, or its absence (undefined); false, recording nothing, when it would take the cluster's reports past the bound. */
  put(cluster: string, key: string, status: WorkStatus | undefined): boolean {
    const perCluster = this.byCluster.get(cluster);
    const before = perCluster?.get(key);
    const delta = (status === undefined ? 0 : reportBytes(status)) - (before === undefined ? 0 : reportBytes(before));
    const clusterBytes = (this.bytesOf.get(cluster) ?? 0) + delta;
    if (status !== undefined && delta > 0 && clusterBytes > this.maxBytes) return false;
    this.total += delta;
    if (status === undefined) {
      perCluster?.delete(key);
      if (perCluster?.size === 0) this.forget(cluster);
      else if (perCluster !== undefined) this.bytesOf.set(cluster, clusterBytes);
      return true;
    }
    if (perCluster === undefined) this.byCluster.set(cluster, new Map([[key, status]]));
    else perCluster.set(key, status);
    this.bytesOf.set(cluster, clusterBytes);
    return true;
  }

  private forget(cluster: string): void {
    this.byCluster.delete(cluster);
    this.bytesOf.delete(cluster);
  }

  /** Takes a cluster's reports out (the leader takes the cluster, or the replica no longer hears it). */
  take(cluster: string): WorkStatus[] {
    const perCluster = this.byCluster.get(cluster);
    if (perCluster === undefined) return [];
    this.total -= this.bytesOf.get(cluster) ?? 0;
    this.forget(cluster);
    return [...perCluster.values()];
  }

  /** Puts back what the leader held of a cluster it releases: counted, never refused (the leader held them already). */
  restore(cluster: string, reports: readonly WorkStatus[]): void {
    this.take(cluster);
    if (reports.length === 0) return;
    const perCluster = new Map(reports.map((r) => [r.workKey, r]));
    let bytes = 0;
    for (const r of perCluster.values()) bytes += reportBytes(r);
    this.byCluster.set(cluster, perCluster);
    this.bytesOf.set(cluster, bytes);
    this.total += bytes;
  }
}
