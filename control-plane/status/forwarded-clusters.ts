// Issue 42, on the leader: the clusters of other replicas whose status entries it writes, from the
// reports those replicas forward (peers/status-follower.ts decides which it takes: a cluster whose
// Lease the replica holds, over a live stream). A taken cluster's reports go into the StatusStore
// as if its agent streamed here, and the cluster counts as the leader's (cluster-view.ts).
//
// A cluster the leader stops taking (the stream dropped, the replica died or gave it up) stays the
// leader's to write, carried: its reports are forgotten here (but a removal its agent confirmed),
// so its entry is what the binding says of it (aggregate-status.ts keeps a target's persisted entry, and a non-target's as
// WaitingForRemoval), until a replica's reports are taken again or its agent streams here. Leaving
// it out of the leader's apply instead would remove an entry no other replica wrote: a missing
// report is not a removal, and a deleting binding's finalizer waits on that entry.
import type { WorkStatus } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import type { StatusStore } from "./status-store.ts";

export interface ForwardedStats {
  /** Reports put into the StatusStore (snapshots and changes). */
  taken: number;
  /** Reports about a Work the cluster does not have (dropped). */
  unknownWork: number;
}

export class ForwardedClusters {
  readonly stats: ForwardedStats = { taken: 0, unknownWork: 0 };
  private readonly taken = new Set<string>();
  private readonly carried = new Set<string>();
  private readonly statuses: StatusStore;
  private readonly known: (cluster: string, key: string) => boolean;
  private readonly reported: (key: string) => void;
  private readonly changed: (cluster: string) => void;

  /**
   * known: whether a report about the Work counts (the Work exists, or existed, for the cluster);
   * reported(key): a report changed; changed(cluster): whether this replica writes its entries changed.
   */
  constructor(opts: { statuses: StatusStore; known: (cluster: string, key: string) => boolean; reported: (key: string) => void; changed: (cluster: string) => void }) {
    this.statuses = opts.statuses;
    this.known = opts.known;
    this.reported = opts.reported;
    this.changed = opts.changed;
  }

  /** Whether the leader writes the cluster's entries for another replica: taken, or carried since. */
  writesFor(cluster: string): boolean {
    return this.taken.has(cluster) || this.carried.has(cluster);
  }

  counts(): { taken: number; carried: number } {
    return { taken: this.taken.size, carried: this.carried.size };
  }

  /** The leader takes the cluster: these reports (the replica's every one) replace what it held for the cluster. */
  take(cluster: string, reports: Iterable<WorkStatus>): void {
    const keys = new Set<string>();
    for (const r of reports) if (this.put(cluster, r)) keys.add(r.workKey);
    // What the leader held besides (its agent streamed here before) is stale; a confirmed removal stays one.
    for (const key of this.statuses.keysOf(cluster)) {
      if (keys.has(key) || this.statuses.get(key).get(cluster)?.deleted === true) continue;
      this.statuses.forget(key, cluster);
      this.reported(key);
    }
    this.taken.add(cluster);
    this.carried.delete(cluster);
    this.changed(cluster);
  }

  /** A taken cluster's report on a Work, or undefined for none any more (forgotten by the replica: not a removal). */
  report(cluster: string, key: string, status: WorkStatus | undefined): void {
    if (!this.taken.has(cluster)) return;
    if (status !== undefined) {
      this.put(cluster, status);
      return;
    }
    if (!this.statuses.get(key).has(cluster)) return;
    this.statuses.forget(key, cluster);
    this.reported(key);
  }

  /**
   * The leader stops taking the cluster. Unless its agent streams here now, it is carried: what the
   * replica forwarded is forgotten, but for confirmed removals, and returned (the caller keeps it
   * while the stream lives, should the cluster be taken again).
   */
  release(cluster: string, streamsHere: boolean): WorkStatus[] {
    if (!this.taken.delete(cluster)) return [];
    const out: WorkStatus[] = [];
    if (!streamsHere) {
      this.carried.add(cluster);
      for (const key of this.statuses.keysOf(cluster)) {
        const r = this.statuses.get(key).get(cluster);
        if (r === undefined) continue;
        out.push(r);
        if (r.deleted) continue;
        this.statuses.forget(key, cluster);
        this.reported(key);
      }
    }
    this.changed(cluster);
    return out;
  }

  private put(cluster: string, r: WorkStatus): boolean {
    if (!this.known(cluster, r.workKey)) {
      this.stats.unknownWork++;
      return false;
    }
    this.stats.taken++;
    if (this.statuses.set(cluster, r)) this.reported(r.workKey);
    return true;
  }
}
