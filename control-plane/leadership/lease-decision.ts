// Leader election over a coordination.k8s.io Lease: what a candidate should do now (pure).

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export type LeaseAction =
  | { action: "create"; spec: LeaseSpec }
  | { action: "renew"; spec: LeaseSpec }
  | { action: "takeover"; spec: LeaseSpec }
  | { action: "wait"; holder: string; expiresInMs: number };

/** MicroTime as the apiserver wants it (RFC 3339 with microseconds). */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/** What identifies one renewal of a Lease: any change means its holder is alive. */
export function leaseRecord(lease: LeaseSpec | undefined): string {
  return lease === undefined ? "" : JSON.stringify([lease.holderIdentity ?? "", lease.renewTime ?? "", lease.acquireTime ?? "", lease.leaseTransitions ?? 0]);
}

/** A Lease's holder as a replica observed it, and until when it holds by that replica's clock. */
export interface LeaseObservation {
  /** undefined: no Lease, or released. */
  holder: string | undefined;
  until: number;
}

/**
 * What a replica that first saw the Lease as it is now (leaseRecord) at `observedAt`, by its own
 * clock, knows of its holder: decideLease's rule of expiry, so that a replica judges a holder live
 * exactly while it would itself wait rather than take over.
 */
export function observeLease(lease: LeaseSpec | undefined, observedAt: number, leaseDurationMs: number): LeaseObservation {
  const validFor = (lease?.leaseDurationSeconds ?? Math.ceil(leaseDurationMs / 1000)) * 1000;
  return { holder: lease?.holderIdentity || undefined, until: observedAt + validFor };
}

/** The observed holder at `now`, or undefined: none observed, released, or expired. */
export function liveHolder(o: LeaseObservation | undefined, now: number): string | undefined {
  return o !== undefined && now < o.until ? o.holder : undefined;
}

/**
 * lease: the current Lease spec (undefined when there is none); me: this replica's identity;
 * observedAt: when this replica first saw the lease as it is now (leaseRecord), by its own clock.
 * A lease whose record has not changed for its duration, by this replica's clock, is free to take:
 * client-go's rule, which never compares the holder's renewTime with the local clock, so clock
 * skew between replicas cannot make two leaders.
 */
export function decideLease(lease: LeaseSpec | undefined, me: string, now: number, leaseDurationMs: number, observedAt: number): LeaseAction {
  const durationSeconds = Math.ceil(leaseDurationMs / 1000);
  const fresh = (transitions: number, acquired: string): LeaseSpec => ({
    holderIdentity: me,
    leaseDurationSeconds: durationSeconds,
    acquireTime: acquired,
    renewTime: microTime(now),
    leaseTransitions: transitions,
  });
  if (lease === undefined) return { action: "create", spec: fresh(0, microTime(now)) };
  if (lease.holderIdentity === me) {
    return { action: "renew", spec: fresh(lease.leaseTransitions ?? 0, lease.acquireTime ?? microTime(now)) };
  }
  const seen = observeLease(lease, observedAt, leaseDurationMs);
  const holder = liveHolder(seen, now);
  if (holder === undefined) return { action: "takeover", spec: fresh((lease.leaseTransitions ?? 0) + 1, microTime(now)) };
  return { action: "wait", holder, expiresInMs: seen.until - now };
}
