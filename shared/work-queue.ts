import { type Clock, realClock } from "./clock.ts";
import { PriorityLanes } from "./priority-lanes.ts";
import { defaultControllerRateLimiter, type RateLimiter } from "./rate-limiter.ts";

/**
 * A work queue with client-go's guarantees:
 * - adding a key that is already waiting does nothing (events coalesce);
 * - a key added while it is being processed runs once more after done();
 * - the same key is never handed to two workers at once.
 * Size is bounded by the number of distinct keys. Delays and retries use an injected clock.
 */
export class WorkQueue {
  private readonly queue = new PriorityLanes();
  private readonly priorityOf: ((key: string) => number) | undefined;
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly waiting = new Map<string, { at: number; cancel: () => void }>();
  private readonly getters: ((key: string | undefined) => void)[] = [];
  private shuttingDown = false;
  private drained: (() => void) | undefined;
  readonly clock: Clock;
  readonly limiter: RateLimiter;

  /** priorityOf: a waiting key's priority, read when it is queued (higher first; default all 0, FIFO). */
  constructor(opts: { clock?: Clock; limiter?: RateLimiter; priorityOf?: (key: string) => number } = {}) {
    this.priorityOf = opts.priorityOf;
    this.clock = opts.clock ?? realClock;
    this.limiter = opts.limiter ?? defaultControllerRateLimiter(this.clock);
  }

  /** Marks key as needing work. */
  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    const getter = this.getters.shift();
    if (getter !== undefined) {
      this.dirty.delete(key);
      this.processing.add(key);
      getter(key);
    } else {
      this.queue.push(key, this.priorityOf?.(key));
    }
  }

  /** Adds key after ms; an earlier pending delay for the same key wins. */
  addAfter(key: string, ms: number): void {
    if (this.shuttingDown) return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const at = this.clock.now() + ms;
    const existing = this.waiting.get(key);
    if (existing !== undefined) {
      if (existing.at <= at) return;
      existing.cancel();
    }
    const cancel = this.clock.after(ms, () => {
      this.waiting.delete(key);
      this.add(key);
    });
    this.waiting.set(key, { at, cancel });
  }

  /** Adds key after the rate limiter's delay (for retries after an error). */
  addRateLimited(key: string): void {
    this.addAfter(key, this.limiter.when(key));
  }

  /** Clears key's retry history (after it succeeded). */
  forget(key: string): void {
    this.limiter.forget(key);
  }

  /** How many times key has been retried since it was last forgotten. */
  numRequeues(key: string): number {
    return this.limiter.retries(key);
  }

  /** The next key to process, or undefined once the queue is shut down and empty. */
  get(): Promise<string | undefined> {
    const key = this.take();
    if (key !== undefined) return Promise.resolve(key);
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** Ends processing of key; if it was added meanwhile, it is queued again. */
  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key)) {
      this.dirty.delete(key);
      this.add(key);
    }
    if (this.shuttingDown && this.processing.size === 0) this.drained?.();
  }

  /** Keys waiting to be processed (not counting delayed ones). */
  get length(): number {
    return this.queue.length;
  }

  /** Keys being processed right now. */
  get inFlight(): number {
    return this.processing.size;
  }

  /**
   * Stops accepting keys and drops delayed ones; waiting getters receive undefined once the
   * queue is empty. Resolves when no key is being processed.
   */
  shutDown(): Promise<void> {
    this.shuttingDown = true;
    for (const w of this.waiting.values()) w.cancel();
    this.waiting.clear();
    if (this.length === 0) for (const g of this.getters.splice(0)) g(undefined);
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.drained = resolve;
    });
  }

  private take(): string | undefined {
    const key = this.queue.shift();
    if (key === undefined) return undefined;
    this.dirty.delete(key);
    this.processing.add(key);
    return key;
  }
}
