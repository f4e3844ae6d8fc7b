// Calls `fire` once a burst of pokes has settled: `quietMs` after the last poke, and never later
// than `maxWaitMs` after the first poke of a burst (a steady drip of changes still goes out).
// For changes whose every step is costly to send (the whole interpreter customization set to every
// agent), where only the latest state matters.
export class SettleTimer {
  private timer: NodeJS.Timeout | undefined;
  private firstPoke = 0;
  private readonly quietMs: number;
  private readonly maxWaitMs: number;
  private readonly fire: () => void;
  private readonly now: () => number;

  constructor(opts: { quietMs: number; maxWaitMs: number; fire: () => void; now?: () => number }) {
    this.quietMs = opts.quietMs;
    this.maxWaitMs = opts.maxWaitMs;
    this.fire = opts.fire;
    this.now = opts.now ?? Date.now;
  }

  /** Something changed: fire after the burst settles. */
  poke(): void {
    const now = this.now();
    if (this.timer === undefined) this.firstPoke = now;
    else clearTimeout(this.timer);
    const delay = Math.max(0, Math.min(this.quietMs, this.firstPoke + this.maxWaitMs - now));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.fire();
    }, delay);
    this.timer.unref?.();
  }

  /** Drops a pending fire. */
  stop(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
