// A cluster's Lease (coordination.k8s.io/v1, one per cluster in its own namespace, as
// kube-node-lease holds one per node): when the replica that hears the agent writes it, and what
// it tells the replicas that do not hear the agent. Pure.

/** The fields of a Lease's spec a cluster lease uses. */
export interface ClusterLeaseSpec {
  /** The replica (its identity) that hears the cluster's agent. */
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  /** The agent heartbeat the holder last wrote down (MicroTime). */
  renewTime?: string;
}

/**
 * The lease's duration: the renew interval plus the failure threshold. The holder writes the
 * lease at the first heartbeat after renewMs, so a renewTime is never more than renewMs plus one
 * heartbeat period old while its agent beats; the failure threshold exceeds a heartbeat period
 * (else the holder itself would flap), which leaves the rest as a margin for slow writes. A lease
 * not renewed for that long means no replica has heard the agent for at least the failure
 * threshold.
 */
export function clusterLeaseDurationSeconds(renewMs: number, failureMs: number): number {
  return Math.ceil((renewMs + failureMs) / 1000);
}

/** MicroTime as the apiserver wants it (RFC 3339 with exactly six fraction digits). */
export function leaseTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, -1)}000Z`;
}

export type LeaseWrite = { write: false; recheckAfterMs?: number } | { write: true; reason: "acquire" | "renew"; spec: ClusterLeaseSpec };

/**
 * Whether the replica `me`, which holds the agent's stream and heard it last at lastHeartbeatAt,
 * writes the cluster's lease. At once when there is none or another replica holds it (the agent
 * moved here: the leader and the replica it left must learn it now); otherwise once renewMs of
 * heartbeats have passed since the renewTime written, or when the duration changed (new flags).
 * renewTime is the heartbeat's time, not the write's: the lease stands for the agent's evidence.
 */
export function leaseWrite(input: { lease: ClusterLeaseSpec | undefined; me: string; lastHeartbeatAt: number; renewMs: number; durationSeconds: number }): LeaseWrite {
  const { lease, me, lastHeartbeatAt, renewMs, durationSeconds } = input;
  const spec: ClusterLeaseSpec = { holderIdentity: me, leaseDurationSeconds: durationSeconds, renewTime: leaseTime(lastHeartbeatAt) };
  const renewedAt = lease?.renewTime ? Date.parse(lease.renewTime) : Number.NaN;
  if (lease === undefined || lease.holderIdentity !== me || Number.isNaN(renewedAt)) return { write: true, reason: "acquire", spec };
  if (lease.leaseDurationSeconds !== durationSeconds && lastHeartbeatAt > renewedAt) return { write: true, reason: "renew", spec };
  const due = renewedAt + renewMs;
  if (lastHeartbeatAt >= due) return { write: true, reason: "renew", spec };
  return { write: false, recheckAfterMs: due - lastHeartbeatAt };
}

/** What a lease tells a replica that does not hear the cluster's agent. */
export type LeaseVerdict =
  /** No lease, or one without a time: judge by something else. */
  | { kind: "none" }
  /** A replica heard the agent within the lease's duration: that replica judges it, in memory. */
  | { kind: "held"; holder: string; renewedAt: number; expiresInMs: number }
  /** Nobody renewed it in time: no replica hears the agent. */
  | { kind: "expired"; holder: string; renewedAt: number; silentMs: number; durationMs: number };

export function judgeLease(lease: ClusterLeaseSpec | undefined, now: number): LeaseVerdict {
  const renewedAt = lease?.renewTime ? Date.parse(lease.renewTime) : Number.NaN;
  if (lease === undefined || Number.isNaN(renewedAt) || lease.leaseDurationSeconds === undefined) return { kind: "none" };
  const holder = lease.holderIdentity ?? "";
  const durationMs = lease.leaseDurationSeconds * 1000;
  const expiresAt = renewedAt + durationMs;
  if (now <= expiresAt) return { kind: "held", holder, renewedAt, expiresInMs: expiresAt - now };
  return { kind: "expired", holder, renewedAt, silentMs: now - renewedAt, durationMs };
}

/**
 * Whether another replica took the agent's heartbeats over from this one, which heard them last
 * at lastHeartbeatAt and no longer has its stream: the lease names another holder with a later
 * heartbeat, or (a replica of an older version, which writes no lease) the Cluster's persisted
 * lastHeartbeatTime is later than ours.
 */
export function anotherReplicaHears(input: { lease: ClusterLeaseSpec | undefined; me: string; lastHeartbeatAt: number | undefined; persistedBeat: number }): boolean {
  const mine = input.lastHeartbeatAt ?? 0;
  const leaseBeat = input.lease?.renewTime ? Date.parse(input.lease.renewTime) : Number.NaN;
  const byLease = input.lease?.holderIdentity !== undefined && input.lease.holderIdentity !== input.me && leaseBeat > mine;
  return byLease || input.persistedBeat > mine;
}
