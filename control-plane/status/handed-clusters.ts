// Issue 42, on a replica that is not the leader: the clusters whose status entries it leaves to the
// leader, which follows its agents' reports (peers/status-feed.ts) and writes every cluster's
// entries in its own apply. A cluster is handed while a following leader keeps saying it takes it,
// and for HANDOVER_GRACE_MS after the last time it said so: a leader that is gone, cut off or slow
// (or of a version that never follows) leaves them to this replica again, which then writes them
// from its own reports as before. No report is lost either way: they all stay in this replica's
// StatusStore, and a new leader's stream starts with all of them.

/** How long a cluster stays handed after its leader last said it takes it (it says so every second). */
export const HANDOVER_GRACE_MS = 5_000;

export class HandedClusters {
  /** Per Follow stream: the clusters its leader last said it takes, and when it said so (ms). */
  private readonly streams = new Map<number, { clusters: ReadonlySet<string>; at: number }>();
  private readonly changed: (cluster: string) => void;
  private readonly now: () => number;
  private readonly graceMs: number;
  private timer: NodeJS.Timeout | undefined;

  /** changed(cluster): the cluster came back to this replica (its entries are its own to write again). */
  constructor(opts: { changed: (cluster: string) => void; now?: () => number; graceMs?: number }) {
    this.changed = opts.changed;
    this.now = opts.now ?? Date.now;
    this.graceMs = opts.graceMs ?? HANDOVER_GRACE_MS;
  }

  /** Whether a leader takes the cluster's entries now. */
  has(cluster: string): boolean {
    const now = this.now();
    for (const s of this.streams.values()) if (s.clusters.has(cluster) && now - s.at <= this.graceMs) return true;
    return false;
  }

  /** How many clusters are handed now. */
  get size(): number {
    const now = this.now();
    const all = new Set<string>();
    for (const s of this.streams.values()) if (now - s.at <= this.graceMs) for (const c of s.clusters) all.add(c);
    return all.size;
  }

  /** The leader on stream `stream` says it takes these clusters (its whole list). One it no longer lists comes back at once. */
  said(stream: number, clusters: ReadonlySet<string>): void {
    const before = this.streams.get(stream);
    this.streams.set(stream, { clusters, at: this.now() });
    for (const c of before?.clusters ?? []) if (!clusters.has(c) && !this.has(c)) this.changed(c);
    this.schedule();
  }

  /** Ends a stream's say at once (its leader gave up leading); a stream that merely ended keeps its grace. */
  withdraw(stream: number): void {
    const before = this.streams.get(stream);
    if (before === undefined) return;
    this.streams.delete(stream);
    for (const c of before.clusters) if (!this.has(c)) this.changed(c);
  }

  stop(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Wakes when the oldest say runs out, to give its clusters back. */
  private schedule(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    let oldest = Number.POSITIVE_INFINITY;
    for (const s of this.streams.values()) oldest = Math.min(oldest, s.at);
    if (oldest === Number.POSITIVE_INFINITY) return;
    this.timer = setTimeout(() => this.expire(), Math.max(0, oldest + this.graceMs - this.now()) + 1);
    this.timer.unref();
  }

  private expire(): void {
    this.timer = undefined;
    const now = this.now();
    const gone: string[] = [];
    for (const [id, s] of this.streams) {
      if (now - s.at <= this.graceMs) continue;
      this.streams.delete(id);
      gone.push(...s.clusters);
    }
    for (const c of new Set(gone)) if (!this.has(c)) this.changed(c);
    this.schedule();
  }
}
