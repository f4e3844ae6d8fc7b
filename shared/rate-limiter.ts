import type { Clock } from "./clock.ts";

/** Decides how long a key waits before it is retried (client-go's RateLimiter). */
export interface RateLimiter {
  /** The delay before the key's next attempt; records the attempt. */
  when(key: string): number;
  /** Forgets the key's failures (after a success). */
  forget(key: string): void;
  /** Failures recorded for the key since it was last forgotten. */
  retries(key: string): number;
}

/** Per-key exponential backoff: base · 2^failures, capped at max. */
export class ExponentialBackoffLimiter implements RateLimiter {
  private readonly failures = new Map<string, number>();
  private readonly baseMs: number;
  private readonly maxMs: number;
  constructor(baseMs: number, maxMs: number) {
    this.baseMs = baseMs;
    this.maxMs = maxMs;
  }

  when(key: string): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    return Math.min(this.maxMs, this.baseMs * 2 ** n);
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  retries(key: string): number {
    return this.failures.get(key) ?? 0;
  }
}

/** A token bucket shared by all keys: `qps` tokens a second, up to `burst` saved. */
export class TokenBucketLimiter implements RateLimiter {
  private tokens: number;
  private last: number;
  private readonly qps: number;
  private readonly burst: number;
  private readonly clock: Clock;
  constructor(qps: number, burst: number, clock: Clock) {
    this.qps = qps;
    this.burst = burst;
    this.clock = clock;
    this.tokens = burst;
    this.last = clock.now();
  }

  when(_key: string): number {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    this.tokens -= 1; // reserve a token, possibly from the future
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }

  forget(_key: string): void {}

  retries(_key: string): number {
    return 0;
  }
}

/** The longest delay any of the limiters asks for. */
export class MaxOfLimiter implements RateLimiter {
  private readonly limiters: RateLimiter[];
  constructor(...limiters: RateLimiter[]) {
    this.limiters = limiters;
  }

  when(key: string): number {
    return Math.max(...this.limiters.map((l) => l.when(key)));
  }

  forget(key: string): void {
    for (const l of this.limiters) l.forget(key);
  }

  retries(key: string): number {
    return Math.max(...this.limiters.map((l) => l.retries(key)));
  }
}

/** client-go's default: max(per-key 5 ms → 1000 s exponential, shared 10/s burst 100). */
export function defaultControllerRateLimiter(clock: Clock): RateLimiter {
  return new MaxOfLimiter(new ExponentialBackoffLimiter(5, 1_000_000), new TokenBucketLimiter(10, 100, clock));
}
