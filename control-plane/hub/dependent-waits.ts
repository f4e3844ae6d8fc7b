// The removals of one agent's stream that wait for a workload that refers to them to leave the
// cluster first (issue 37: a dependency goes after the workload that mounts it;
// deletion-intent.ts workloadInTheWay says which). Kept both ways, so that a workload's removal
// re-judges what waits for it at once, and what a person decided for the workload holds for them.
export class DependentWaits {
  /** Waiting removal → the workload's Work key it waits for. */
  private readonly byKey = new Map<string, string>();
  /** Workload → the removals waiting for it. */
  private readonly byWorkload = new Map<string, Set<string>>();
  /** Workloads a person kept (their removal rejected: sent with preserve, released in the member): what waits for them is kept too. */
  private readonly kept = new Set<string>();

  /**
   * The removal waits for the workload; false (and it does not wait) when the workload waits,
   * through others, for this removal: a cycle nothing would ever end, so it is judged as if
   * nothing were in its way.
   */
  park(key: string, workload: string): boolean {
    if (key === workload || this.reaches(workload, key)) {
      this.release(key);
      return false;
    }
    this.release(key);
    this.byKey.set(key, workload);
    const keys = this.byWorkload.get(workload) ?? new Set<string>();
    keys.add(key);
    this.byWorkload.set(workload, keys);
    return true;
  }

  /** It waits no more (sent, given again, or no longer meant). */
  release(key: string): void {
    const workload = this.byKey.get(key);
    if (workload === undefined) return;
    this.byKey.delete(key);
    const keys = this.byWorkload.get(workload);
    keys?.delete(key);
    if (keys?.size === 0) this.byWorkload.delete(workload);
  }

  of(key: string): string | undefined {
    return this.byKey.get(key);
  }

  /** The removals waiting for this workload. */
  waitingOn(workload: string): string[] {
    return [...(this.byWorkload.get(workload) ?? [])];
  }

  /** Every waiting removal. */
  keys(): string[] {
    return [...this.byKey.keys()];
  }

  /** What waits, directly or through others, for any of these workloads (a person's answer to them is its too). */
  behind(workloads: Iterable<string>): string[] {
    const out = new Set<string>();
    const todo = [...workloads];
    for (let w = todo.pop(); w !== undefined; w = todo.pop()) {
      for (const k of this.byWorkload.get(w) ?? []) {
        if (out.has(k)) continue;
        out.add(k);
        todo.push(k);
      }
    }
    return [...out];
  }

  keep(workload: string): void {
    this.kept.add(workload);
  }

  unkeep(workload: string): void {
    this.kept.delete(workload);
  }

  isKept(workload: string): boolean {
    return this.kept.has(workload);
  }

  /** Whether following what `from` waits for leads to `to`. */
  private reaches(from: string, to: string): boolean {
    const seen = new Set<string>();
    for (let w = this.byKey.get(from); w !== undefined && !seen.has(w); w = this.byKey.get(w)) {
      if (w === to) return true;
      seen.add(w);
    }
    return false;
  }
}
