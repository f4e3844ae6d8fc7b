/** Time as the work queue and controllers see it; tests inject a FakeClock. */
export interface Clock {
  /** Milliseconds since an arbitrary origin; only differences matter. */
  now(): number;
  /** Runs fn after ms; returns a function that cancels it. */
  after(ms: number, fn: () => void): () => void;
}

/** The real clock. */
export const realClock: Clock = {
  now: () => performance.now(),
  after(ms, fn) {
    const timer = setTimeout(fn, ms);
    timer.unref?.();
    return () => clearTimeout(timer);
  },
};

/** A clock that moves only when told to, firing due timers in time order. */
export class FakeClock implements Clock {
  private time = 0;
  private seq = 0;
  private timers: { at: number; seq: number; fn: () => void }[] = [];

  now(): number {
    return this.time;
  }

  after(ms: number, fn: () => void): () => void {
    const timer = { at: this.time + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /** Moves time forward by ms, running every timer that falls due, earliest first. */
  advance(ms: number): void {
    const target = this.time + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (due === undefined) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.time = due.at;
      due.fn();
    }
    this.time = target;
  }

  /** Timers not yet fired. */
  get pending(): number {
    return this.timers.length;
  }
}
