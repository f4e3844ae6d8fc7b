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
  const validFor = (lease.leaseDurationSeconds ?? durationSeconds) * 1000;
  const expiresAt = observedAt + validFor;
  if (!lease.holderIdentity || now >= expiresAt) {
    return { action: "takeover", spec: fresh((lease.leaseTransitions ?? 0) + 1, microTime(now)) };
  }
  return { action: "wait", holder: lease.holderIdentity, expiresInMs: expiresAt - now };
}
