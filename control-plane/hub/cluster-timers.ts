// One pending timer per cluster: asking again for a cluster that has one keeps the earlier.
/** Calls fire(cluster) once after the shortest delay asked for it since it last fired. */
export class ClusterTimers {
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private readonly fire: (cluster: string) => void;
  private readonly now: () => number;

  constructor(fire: (cluster: string) => void, now: () => number = Date.now) {
    this.fire = fire;
    this.now = now;
  }

  after(cluster: string, delayMs: number): void {
    const at = this.now() + delayMs;
    const pending = this.timers.get(cluster);
    if (pending !== undefined && pending.at <= at) return;
    if (pending !== undefined) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.timers.delete(cluster);
      this.fire(cluster);
    }, delayMs);
    timer.unref();
    this.timers.set(cluster, { at, timer });
  }

  clear(): void {
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}
