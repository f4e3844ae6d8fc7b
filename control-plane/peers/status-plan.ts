// Issue 42, pure: what the leader takes from the replicas it follows (PeerStatus.Follow), and what
// either side accepts of the other's messages. A replica speaks only for the clusters whose Lease
// it holds (as for workload summaries, peer-plan.ts), over a live stream whose snapshot is
// complete, and not for a cluster whose agent streams to the leader itself.
import type { WorkStatus } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import type { FollowUpdate } from "../../shared/gen/flotilla/v1alpha1/peer.ts";
import { BOUNDS, checkWorkStatus } from "../hub/message-bounds.ts";

/** The most clusters one message may list (a replica's share of the largest fleet, with room). */
export const MAX_LISTED_CLUSTERS = 100_000;

/** What the leader knows of one replica it follows. */
export interface FollowedReplica {
  /** The replica's identity, as its cluster Leases name it. */
  peer: string;
  /** Its stream is open and said something recently. */
  live: boolean;
  /** Every report it held when the stream opened has arrived. */
  snapshotDone: boolean;
  /** The clusters it says it hears. */
  heard: ReadonlySet<string>;
}

/**
 * cluster → the replica the leader takes its reports from: one that hears it, over a live stream
 * with its snapshot complete, holding its Lease; never a cluster whose agent streams here.
 */
export function takenClusters(input: { replicas: Iterable<FollowedReplica>; holderOf: (cluster: string) => string | undefined; streamsHere: (cluster: string) => boolean }): Map<string, string> {
  const out = new Map<string, string>();
  for (const r of input.replicas) {
    if (!r.live || !r.snapshotDone) continue;
    for (const c of r.heard) if (input.holderOf(c) === r.peer && !input.streamsHere(c)) out.set(c, r.peer);
  }
  return out;
}

/** From one judgement to the next: the clusters to release (from their former replica), then those to take. */
export function takeoverSteps(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): { release: [cluster: string, peer: string][]; take: [cluster: string, peer: string][] } {
  const release: [string, string][] = [];
  const take: [string, string][] = [];
  for (const [c, peer] of before) if (after.get(c) !== peer) release.push([c, peer]);
  for (const [c, peer] of after) if (before.get(c) !== peer) take.push([c, peer]);
  return { release, take };
}

/** A cluster name as a list may carry it. */
function clusterName(name: string): boolean {
  return name !== "" && name.length <= BOUNDS.name;
}

/** The clusters one message lists, within bounds (undefined: too many, the message is refused). */
export function listedClusters(names: readonly string[]): Set<string> | undefined {
  if (names.length > MAX_LISTED_CLUSTERS) return undefined;
  return new Set(names.filter(clusterName));
}

/** The reports of one update the leader accepts, and how many it drops (out of bounds, or of a cluster the replica does not say it hears). */
export function admitReports(update: FollowUpdate, heard: ReadonlySet<string>): { reports: { cluster: string; key: string; status: WorkStatus | undefined }[]; outOfBounds: number; notHeard: number } {
  const reports: { cluster: string; key: string; status: WorkStatus | undefined }[] = [];
  let outOfBounds = 0;
  let notHeard = 0;
  for (const r of update.reports) {
    if (!clusterName(r.cluster) || r.workKey.length > BOUNDS.workKey || (r.status !== undefined && r.status.workKey !== r.workKey)) {
      outOfBounds++;
      continue;
    }
    if (!heard.has(r.cluster)) {
      notHeard++;
      continue;
    }
    if (r.status === undefined) {
      reports.push({ cluster: r.cluster, key: r.workKey, status: undefined });
      continue;
    }
    const checked = checkWorkStatus(r.status);
    if (!checked.ok) {
      outOfBounds++;
      continue;
    }
    reports.push({ cluster: r.cluster, key: r.workKey, status: checked.value });
  }
  return { reports, outOfBounds, notHeard };
}
