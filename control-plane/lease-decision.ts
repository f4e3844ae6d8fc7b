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

/**
 * lease: the current Lease spec (undefined when there is none); me: this replica's identity.
 * A lease whose holder has not renewed within its duration is free to take.
 */
export function decideLease(lease: LeaseSpec | undefined, me: string, now: number, leaseDurationMs: number): LeaseAction {
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
  const renewed = lease.renewTime ? Date.parse(lease.renewTime) : Number.NaN;
  const validFor = (lease.leaseDurationSeconds ?? durationSeconds) * 1000;
  const expiresAt = Number.isNaN(renewed) ? now : renewed + validFor;
  if (!lease.holderIdentity || now >= expiresAt) {
    return { action: "takeover", spec: fresh((lease.leaseTransitions ?? 0) + 1, microTime(now)) };
  }
  return { action: "wait", holder: lease.holderIdentity, expiresInMs: expiresAt - now };
}
