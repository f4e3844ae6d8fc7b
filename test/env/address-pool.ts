// The addresses a test member's "cloud" hands its load balancers: one /24 of loopback addresses
// per member, so answers are told apart by member and nothing ever leaves the host.

/** The /24 block of a member's load-balancer addresses: 127.0.<block>.0/24. */
export function loadBalancerBlock(clusterName: string): number {
  const n = /^member(\d+)$/.exec(clusterName)?.[1];
  // member1 → 127.0.101.x, member2 → 127.0.102.x, …; any other cluster 127.0.100.x.
  return n === undefined ? 100 : 100 + Number(n);
}

/**
 * Hands out 127.0.<block>.1 … .254 to keys (a Service or an Ingress), one each. An address stays
 * with its key until released or reassigned; allocation goes round the block from the last
 * address handed out, so a freed address is not reused until the others were, as a cloud's pool.
 */
export class AddressPool {
  private readonly prefix: string;
  private readonly byKey = new Map<string, number>();
  private readonly taken = new Set<number>();
  private last = 0;

  constructor(block: number) {
    if (!Number.isInteger(block) || block < 0 || block > 255) throw new Error(`load-balancer block ${block} is not an octet`);
    this.prefix = `127.0.${block}.`;
  }

  /** The block, e.g. 127.0.101.0/24. */
  get cidr(): string {
    return `${this.prefix}0/24`;
  }

  addressOf(key: string): string | undefined {
    const host = this.byKey.get(key);
    return host === undefined ? undefined : this.prefix + host;
  }

  /**
   * The key's address: the one it holds, else `preferred` when that is a free address of this
   * block (what the object already reports, e.g. after the controller restarted), else the next
   * free one.
   */
  assign(key: string, preferred?: string): string {
    const held = this.addressOf(key);
    if (held !== undefined) return held;
    const wanted = this.hostOf(preferred);
    const host = wanted !== undefined && !this.taken.has(wanted) ? wanted : this.nextFree();
    this.take(key, host);
    return this.prefix + host;
  }

  /** Moves the key to the next free address (a different one); the old one is freed. */
  reassign(key: string): string {
    const old = this.byKey.get(key);
    const host = this.nextFree();
    this.take(key, host);
    if (old !== undefined) this.taken.delete(old);
    return this.prefix + host;
  }

  release(key: string): void {
    const host = this.byKey.get(key);
    if (host === undefined) return;
    this.byKey.delete(key);
    this.taken.delete(host);
  }

  private take(key: string, host: number): void {
    this.byKey.set(key, host);
    this.taken.add(host);
    this.last = host;
  }

  private nextFree(): number {
    for (let i = 1; i <= 254; i++) {
      const host = ((this.last + i - 1) % 254) + 1;
      if (!this.taken.has(host)) return host;
    }
    throw new Error(`no free load-balancer address left in ${this.cidr}`);
  }

  private hostOf(address: string | undefined): number | undefined {
    if (address === undefined || !address.startsWith(this.prefix)) return undefined;
    const host = Number(address.slice(this.prefix.length));
    return Number.isInteger(host) && host >= 1 && host <= 254 ? host : undefined;
  }
}
