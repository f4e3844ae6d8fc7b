// Issue 42: who may follow this replica's status reports (status-feed.ts), pure. A follower's say
// mutes this replica's writes of the clusters it takes (status/handed-clusters.ts), so only the
// leader may follow: the replica that holds the leader-election Lease as this replica last read it
// (leadership/leader-election.ts observedHolder), not any certificate with O=flotilla:control-plane.
// The same judge admits a stream and, every second, keeps it.
import { status as GrpcStatus } from "@grpc/grpc-js";

/** The Lease whose holder alone may follow (control-plane.ts names the elector's Lease so). */
const LEADER_LEASE = "flotilla-control-plane";

export type FollowVerdict = { follow: true; follower: string } | { follow: false; code: GrpcStatus; message: string };

/**
 * me: this replica; caller: the follower's name from its client certificate (replicaOfSubject;
 * undefined: not a control-plane replica); leading: whether this replica leads; holder: the Lease's
 * holder as this replica observed it, undefined when none, released, expired, or never read (no
 * --leader-elect: this replica leads itself, and nobody else holds anything it could check).
 *
 * A refusal for the holder is FAILED_PRECONDITION, which the following leader retries with its
 * backoff (status-follower.ts): a new leader may call before this replica read its Lease, which it
 * does within one retry period.
 */
export function judgeFollower(input: { me: string; caller: string | undefined; leading: boolean; holder: string | undefined }): FollowVerdict {
  const { me, caller, holder } = input;
  if (caller === undefined) return { follow: false, code: GrpcStatus.PERMISSION_DENIED, message: "PeerStatus is for control-plane replicas: it needs a client certificate with O=flotilla:control-plane" };
  if (input.leading) return { follow: false, code: GrpcStatus.FAILED_PRECONDITION, message: `${me} leads: it writes its own clusters' status` };
  if (holder === undefined) return { follow: false, code: GrpcStatus.FAILED_PRECONDITION, message: `${me} sees nobody holding the leader Lease ${LEADER_LEASE} (none, released or expired), so not ${caller}: only its holder may follow` };
  if (holder !== caller) return { follow: false, code: GrpcStatus.FAILED_PRECONDITION, message: `${me} sees ${holder} holding the leader Lease ${LEADER_LEASE}, not ${caller}: only its holder may follow` };
  return { follow: true, follower: caller };
}
