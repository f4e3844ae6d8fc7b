// Issue 42 (a delete held forever): while a new binding is written ahead of the informer
// (caches/bindings-ahead.ts), the hub keeps every absence of its template's Works, since the
// informer does not show yet what was decided. A kept absence is judged again only when something
// marks it, so the deletions kept this way are remembered here, per key and cluster, and judged
// again once the key is no longer ahead. Without this, a template deleted while its binding was
// still ahead (created, updated, deleted within one watch lag) left its Works in the members.

/** What AheadRechecks needs of caches/bindings-ahead.ts. */
export interface AheadBindings {
  get(key: string): unknown;
  onEnd(listener: (key: string) => void): void;
}

export class AheadRechecks {
  private readonly ahead: AheadBindings;
  /** Clusters whose absence of the key was kept while it was ahead. */
  private readonly kept = new Map<string, Set<string>>();

  /** recheck(cluster, keys): judge those absences again (the cluster's session, if it is connected). */
  constructor(ahead: AheadBindings, recheck: (cluster: string, key: string) => void) {
    this.ahead = ahead;
    ahead.onEnd((key) => {
      const clusters = this.kept.get(key);
      if (clusters === undefined) return;
      this.kept.delete(key);
      for (const c of clusters) recheck(c, key);
    });
  }

  /** The judge's guard: whether the key's binding is ahead now, in which case the cluster's absence is kept and remembered. */
  keeps(cluster: string, key: string): boolean {
    if (this.ahead.get(key) === undefined) return false;
    const clusters = this.kept.get(key) ?? new Set<string>();
    clusters.add(cluster);
    this.kept.set(key, clusters);
    return true;
  }

  /** Keys with absences kept (for tests and metrics). */
  get size(): number {
    return this.kept.size;
  }
}
