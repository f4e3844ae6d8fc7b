// Load-balancer hostnames → IPv4 addresses, for A records (DESIGN §12: "hostnames resolved to
// addresses"). The DNS controller resolves before it decides, so the record rules stay pure.
// Bounded: each lookup has a timeout, at most a few run at once, answers are cached for a while
// (failures for less), and the cache holds a bounded number of names.
import { lookup as dnsLookup } from "node:dns/promises";
import type { Clock } from "../../shared/clock.ts";
import { realClock } from "../../shared/clock.ts";
import { mapLimit } from "../../shared/map-limit.ts";

/** The IPv4 addresses of a hostname, sorted. */
export type Lookup = (hostname: string) => Promise<string[]>;

/** The operating system's resolver (hosts file, then its name servers), IPv4 only: records here are A records. */
export const systemLookup: Lookup = async (hostname) => (await dnsLookup(hostname, { family: 4, all: true })).map((a) => a.address).sort();

export interface ResolverOptions {
  lookup?: Lookup;
  /** A lookup that takes longer counts as failed (default 2 s). */
  timeoutMs?: number;
  /** How long an answer is reused (default 60 s); the controller looks again after this. */
  ttlMs?: number;
  /** How long a failure is reused (default 10 s), so a name that does not resolve is not asked on every event. */
  failureTtlMs?: number;
  /** Names kept (default 1000); the oldest go first. */
  maxEntries?: number;
  /** Lookups in flight per call (default 4). */
  concurrency?: number;
  clock?: Clock;
}

interface Entry {
  addresses: string[] | undefined;
  expires: number;
}

export class HostnameResolver {
  readonly ttlMs: number;
  private readonly lookup: Lookup;
  private readonly timeoutMs: number;
  private readonly failureTtlMs: number;
  private readonly maxEntries: number;
  private readonly concurrency: number;
  private readonly clock: Clock;
  private readonly cache = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Promise<string[] | undefined>>();
  /** Lookups made (not answered from the cache), for tests and metrics. */
  lookups = 0;

  constructor(opts: ResolverOptions = {}) {
    this.lookup = opts.lookup ?? systemLookup;
    this.timeoutMs = opts.timeoutMs ?? 2000;
    this.ttlMs = opts.ttlMs ?? 60_000;
    this.failureTtlMs = opts.failureTtlMs ?? 10_000;
    this.maxEntries = opts.maxEntries ?? 1000;
    this.concurrency = opts.concurrency ?? 4;
    this.clock = opts.clock ?? realClock;
  }

  /** Each hostname's addresses; undefined for one that did not resolve (in time). Never rejects. */
  async resolveAll(hostnames: readonly string[]): Promise<Map<string, string[] | undefined>> {
    const answers = await mapLimit(hostnames, this.concurrency, (h) => this.resolve(h));
    return new Map(hostnames.map((h, i) => [h, answers[i]]));
  }

  private resolve(hostname: string): Promise<string[] | undefined> {
    const cached = this.cache.get(hostname);
    if (cached !== undefined && cached.expires > this.clock.now()) return Promise.resolve(cached.addresses);
    const pending = this.inFlight.get(hostname);
    if (pending !== undefined) return pending;
    const asked = this.ask(hostname).finally(() => this.inFlight.delete(hostname));
    this.inFlight.set(hostname, asked);
    return asked;
  }

  private async ask(hostname: string): Promise<string[] | undefined> {
    this.lookups++;
    let cancel = () => {};
    const timedOut = new Promise<undefined>((resolve) => (cancel = this.clock.after(this.timeoutMs, () => resolve(undefined))));
    const addresses = await Promise.race([this.lookup(hostname).then((a) => (a.length > 0 ? a : undefined), () => undefined), timedOut]).finally(() => cancel());
    this.remember(hostname, addresses);
    return addresses;
  }

  private remember(hostname: string, addresses: string[] | undefined): void {
    this.cache.delete(hostname); // re-inserted last: Map order is age order
    this.cache.set(hostname, { addresses, expires: this.clock.now() + (addresses === undefined ? this.failureTtlMs : this.ttlMs) });
    for (const oldest of this.cache.keys()) {
      if (this.cache.size <= this.maxEntries) break;
      this.cache.delete(oldest);
    }
  }
}
