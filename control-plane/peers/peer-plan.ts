// The leader's side of collecting summaries from the other replicas (issue 22), pure: which
// replicas to ask (those that hold a live cluster Lease and say where they serve), and which of a
// replica's answers to take. A replica speaks only for the clusters whose Lease it holds, only
// for the workloads and metric keys the leader's MetricsWanted lists for them, within the hub's
// bounds; its summaries keep their age, so one that waited counts as old as it is.
import type { CollectResponse } from "../../shared/gen/flotilla/v1alpha1/peer.ts";
import { reportOf, type WorkloadMetricsReport } from "../../shared/workload-metrics-wire.ts";
import { type ClusterLease, HOLDER_ADDRESS_ANNOTATION } from "../clusters/cluster-leases.ts";
import { judgeLease } from "../clusters/cluster-lease.ts";
import { checkWorkloadMetrics } from "../hub/message-bounds.ts";
import { admitWorkloadMetrics, type WantedIndex } from "../hub/metrics-admission.ts";

/** The longest a host:port may be (a DNS name and a port). */
const MAX_ADDRESS = 253 + 6;

/**
 * The other replicas to ask, identity → address: every holder of a live (not expired) cluster
 * Lease but this one, with the address its lease names. A holder whose leases name two
 * addresses is asked at the one its newest renewal names.
 */
export function peersToAsk(leases: readonly ClusterLease[], me: string, now: number): Map<string, string> {
  const newest = new Map<string, { address: string; renewedAt: number }>();
  for (const l of leases) {
    const verdict = judgeLease(l.spec, now);
    const address = l.metadata.annotations?.[HOLDER_ADDRESS_ANNOTATION] ?? "";
    if (verdict.kind !== "held" || verdict.holder === me || verdict.holder === "" || address === "" || address.length > MAX_ADDRESS) continue;
    const seen = newest.get(verdict.holder);
    if (seen === undefined || verdict.renewedAt > seen.renewedAt) newest.set(verdict.holder, { address, renewedAt: verdict.renewedAt });
  }
  return new Map([...newest].map(([holder, v]) => [holder, v.address]));
}

/** Where the leader stands with one replica: its epoch and the cursor of its last answer. */
export interface Cursor {
  epoch: string;
  after: number;
}

/** What the leader takes from one answer, and why the rest was dropped. */
export interface TakenPage {
  taken: { cluster: string; report: WorkloadMetricsReport; at: number }[];
  dropped: { notHolder: number; notWanted: number; outOfBounds: number; tooOld: number };
  cursor: Cursor;
}

export interface TakeInput {
  /** The replica that answered (its certificate's identity as this leader dialled it). */
  peer: string;
  response: CollectResponse;
  /** Who holds each cluster's Lease now (cluster → holder identity). */
  holderOf: (cluster: string) => string | undefined;
  /** The workloads and metric keys the leader wants from each cluster. */
  wantedOf: (cluster: string) => WantedIndex | undefined;
  now: number;
  maxAgeMs: number;
}

/** The summaries of one answer the leader takes, each with the time it was taken by the replica (this clock). */
export function takePage(input: TakeInput): TakenPage {
  const { peer, response, now, maxAgeMs } = input;
  const dropped = { notHolder: 0, notWanted: 0, outOfBounds: 0, tooOld: 0 };
  const taken: TakenPage["taken"] = [];
  for (const s of response.summaries) {
    if (input.holderOf(s.cluster) !== peer) {
      dropped.notHolder++;
      continue;
    }
    if (s.ageMs > maxAgeMs) {
      dropped.tooOld++;
      continue;
    }
    const wanted = input.wantedOf(s.cluster);
    if (s.metrics === undefined || wanted === undefined) {
      dropped.notWanted++;
      continue;
    }
    const checked = checkWorkloadMetrics(s.metrics);
    if (!checked.ok) {
      dropped.outOfBounds++;
      continue;
    }
    const admitted = admitWorkloadMetrics(checked.value, wanted);
    if (!admitted.accept) {
      dropped.notWanted++;
      continue;
    }
    taken.push({ cluster: s.cluster, report: reportOf(admitted.value), at: now - s.ageMs });
  }
  return { taken, dropped, cursor: { epoch: response.epoch, after: response.next } };
}

/** The request for the next page: from the start when the replica is new to this leader or restarted since. */
export function nextRequest(cursor: Cursor | undefined, limit: number): { epoch: string; after: number; limit: number } {
  return { epoch: cursor?.epoch ?? "", after: cursor?.after ?? 0, limit };
}

