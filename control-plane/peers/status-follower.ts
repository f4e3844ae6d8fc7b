// Issue 42, on the leader: one PeerStatus.Follow stream to every replica that holds cluster Leases
// (at the address its Leases name, as the summaries' collector dials them), whose agents' reports
// it then writes itself, so a binding gets one status write, not one per replica. Each stream
// starts with the replica's snapshot; a cluster is taken once the snapshot is complete and the
// replica holds its Lease (status-plan.ts), and its reports go to the status part (status/
// forwarded-clusters.ts), which writes its entries from then on. Every second the leader says
// which clusters it takes; a replica that stops hearing that writes them itself again. A stream
// that fails or says nothing for STALE_MS is closed, its clusters released (carried by the status
// part, never left out), and the replica dialled again with a backoff.
import type { ChannelCredentials } from "@grpc/grpc-js";
import type { Logger } from "pino";
import type { WorkStatus } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { type FollowUpdate, PeerStatusClient } from "../../shared/gen/flotilla/v1alpha1/peer.ts";
import type { ClusterLease } from "../clusters/cluster-leases.ts";
import { DEFAULT_CLUSTER_STATUS_BYTES } from "../status/status-store.ts";
import { peerChannelOptions, type ReplicaCredentials } from "./peer-credentials.ts";
import { PendingReports, pendingBound } from "./pending-reports.ts";
import { peersToAsk } from "./peer-plan.ts";
import { admitReports, listedClusters, takenClusters, takeoverSteps } from "./status-plan.ts";

/** A stream that said nothing for this long (a replica says something every second) is closed. */
export const STALE_MS = 5_000;
const TICK_MS = 1_000;
const MAX_BACKOFF_MS = 30_000;
/** The largest message taken from a replica (its batches close at 1 MiB, a report is at most 2 MiB). */
const MAX_RECEIVE_BYTES = 8 * 1024 * 1024;

/** Where taken reports go (status/forwarded-clusters.ts). */
export interface StatusIntake {
  take(cluster: string, reports: Iterable<WorkStatus>): void;
  report(cluster: string, key: string, status: WorkStatus | undefined): void;
  release(cluster: string, streamsHere: boolean): WorkStatus[];
}

export interface FollowerOptions {
  identity: string;
  credentials: ReplicaCredentials;
  leases: () => readonly ClusterLease[];
  holderOf: (cluster: string) => string | undefined;
  /** Whether the cluster's agent streams to this replica. */
  streamsHere: (cluster: string) => boolean;
  leading: () => boolean;
  intake: StatusIntake;
  log: Logger;
  /** The bound on each replica's pending reports of one cluster (default: pendingBound of the default per-cluster budget). */
  maxPendingBytes?: number;
  now?: () => number;
}

interface Followed {
  peer: string;
  address: string;
  client: PeerStatusClient;
  call: ReturnType<PeerStatusClient["follow"]>;
  introduced: boolean;
  snapshotDone: boolean;
  heard: Set<string>;
  /** Reports of clusters not taken (yet): the Lease may not name the replica yet. */
  pending: PendingReports;
  lastAt: number;
  writable: boolean;
  closed: boolean;
}

export class StatusFollower {
  readonly stats = { opened: 0, failed: 0, taken: 0, pending: 0, outOfBounds: 0, notHeard: 0, overPending: 0 };
  private readonly o: FollowerOptions;
  private readonly now: () => number;
  private readonly followed = new Map<string, Followed>();
  private readonly retries = new Map<string, { at: number; delayMs: number; lastError?: string }>();
  private takenFrom = new Map<string, string>();
  private generation = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(o: FollowerOptions) {
    this.o = o;
    this.now = o.now ?? Date.now;
  }

  /** Replicas followed now. */
  get streams(): number {
    return this.followed.size;
  }

  /** Replicas waiting for their backoff to be dialled again (only those the plan still names). */
  get retrying(): number {
    return this.retries.size;
  }

  start(): void {
    if (this.timer !== undefined || this.stopped) return;
    const tick = () => {
      void this.tick().catch((err: unknown) => this.o.log.warn({ err: err instanceof Error ? err.message : String(err) }, "following the other replicas' reports failed"));
      if (!this.stopped) this.timer = setTimeout(tick, TICK_MS);
    };
    tick();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    for (const f of [...this.followed.values()]) this.close(f, undefined);
  }

  /** Judges again soon (an agent's stream opened or closed here). */
  judge(): void {
    const after = takenClusters({ replicas: [...this.followed.values()].map((f) => ({ peer: f.peer, live: !f.closed, snapshotDone: f.snapshotDone, heard: f.heard })), holderOf: this.o.holderOf, streamsHere: this.o.streamsHere });
    const steps = takeoverSteps(this.takenFrom, after);
    if (steps.release.length === 0 && steps.take.length === 0) return;
    this.takenFrom = after;
    for (const [cluster, peer] of steps.release) {
      const reports = this.o.intake.release(cluster, this.o.streamsHere(cluster));
      const f = this.followed.get(peer);
      if (f !== undefined && f.heard.has(cluster)) f.pending.restore(cluster, reports);
    }
    for (const [cluster, peer] of steps.take) {
      this.o.intake.take(cluster, this.followed.get(peer)?.pending.take(cluster) ?? []);
    }
    for (const peer of new Set([...steps.release, ...steps.take].map(([, p]) => p))) {
      const f = this.followed.get(peer);
      if (f !== undefined) this.acknowledge(f);
    }
  }

  /** One round: follow who holds Leases, drop who does not or fell silent, judge, and say what is taken. */
  async tick(): Promise<void> {
    if (!this.o.leading()) {
      for (const f of [...this.followed.values()]) this.close(f, undefined);
      this.retries.clear();
      return;
    }
    const creds = await this.o.credentials.get();
    const renewed = creds.generation !== this.generation;
    this.generation = creds.generation;
    const now = this.now();
    const peers = peersToAsk(this.o.leases(), this.o.identity, now);
    // A replica that holds no Lease any more is not dialled again: its backoff goes (peers come and go with pods).
    for (const peer of this.retries.keys()) if (!peers.has(peer)) this.retries.delete(peer);
    for (const f of [...this.followed.values()]) {
      if (renewed || peers.get(f.peer) !== f.address) this.close(f, undefined);
      else if (now - f.lastAt > STALE_MS) this.close(f, `said nothing for ${STALE_MS} ms`);
    }
    for (const [peer, address] of peers) {
      if (this.followed.has(peer) || (this.retries.get(peer)?.at ?? 0) > now) continue;
      this.open(peer, address, creds.value);
    }
    this.judge();
    for (const f of this.followed.values()) this.acknowledge(f);
  }

  private open(peer: string, address: string, creds: ChannelCredentials): void {
    const client = new PeerStatusClient(address, creds, peerChannelOptions(MAX_RECEIVE_BYTES));
    const call = client.follow();
    const f: Followed = { peer, address, client, call, introduced: false, snapshotDone: false, heard: new Set(), pending: new PendingReports(this.o.maxPendingBytes ?? pendingBound(DEFAULT_CLUSTER_STATUS_BYTES)), lastAt: this.now(), writable: true, closed: false };
    this.followed.set(peer, f);
    this.stats.opened++;
    call.on("data", (u: FollowUpdate) => this.received(f, u));
    call.on("error", (err: Error) => this.close(f, err.message));
    call.on("end", () => this.close(f, "the replica ended the stream"));
    call.on("drain", () => {
      f.writable = true;
      this.acknowledge(f);
    });
    f.writable = call.write({ taken: [] });
  }

  private received(f: Followed, u: FollowUpdate): void {
    if (f.closed) return;
    f.lastAt = this.now();
    if (!f.introduced) {
      // The address a Lease names must be the replica that holds it (an address reused by another pod is not).
      if (u.identity !== f.peer) return this.close(f, `the replica at ${f.address} is ${JSON.stringify(u.identity)}, not ${f.peer}`);
      f.introduced = true;
      const retry = this.retries.get(f.peer);
      if (retry?.lastError !== undefined) this.o.log.info({ peer: f.peer }, "following the replica's reports works again");
      this.retries.delete(f.peer);
    }
    let judge = false;
    if (u.clusters !== undefined) {
      const heard = listedClusters(u.clusters.names);
      if (heard === undefined) return this.close(f, "the replica listed too many clusters");
      f.heard = heard;
      for (const c of f.pending.clusters()) if (!heard.has(c)) f.pending.take(c);
      judge = true;
    }
    const admitted = admitReports(u, f.heard);
    this.stats.outOfBounds += admitted.outOfBounds;
    this.stats.notHeard += admitted.notHeard;
    for (const r of admitted.reports) {
      if (this.takenFrom.get(r.cluster) === f.peer && !this.o.streamsHere(r.cluster)) {
        this.stats.taken++;
        this.o.intake.report(r.cluster, r.key, r.status);
        continue;
      }
      if (!f.pending.put(r.cluster, r.key, r.status)) {
        this.stats.overPending++;
        return this.close(f, `the replica sent more than ${f.pending.maxBytes} bytes of reports of cluster ${r.cluster}, not taken from it: more than its own status store keeps of a cluster`, { misbehaving: true });
      }
      this.stats.pending++;
    }
    if (u.snapshotDone && !f.snapshotDone) {
      f.snapshotDone = true;
      judge = true;
    }
    if (judge) this.judge();
  }

  /** Tells the replica which of its clusters this leader takes (the whole list). */
  private acknowledge(f: Followed): void {
    if (f.closed || !f.writable) return;
    const taken: string[] = [];
    for (const [c, peer] of this.takenFrom) if (peer === f.peer) taken.push(c);
    f.writable = f.call.write({ taken });
  }

  /**
   * Ends a stream (err: why it failed, for the log and a backoff; undefined: closed on purpose) and
   * releases its clusters. A misbehaving replica waits the longest backoff: it would do it again.
   */
  private close(f: Followed, err: string | undefined, o: { misbehaving?: boolean } = {}): void {
    if (f.closed) return;
    f.closed = true;
    if (this.followed.get(f.peer) === f) this.followed.delete(f.peer);
    f.call.cancel();
    f.client.close();
    if (err !== undefined) {
      this.stats.failed++;
      const before = this.retries.get(f.peer);
      const delayMs = o.misbehaving === true ? MAX_BACKOFF_MS : f.introduced ? TICK_MS : Math.min(MAX_BACKOFF_MS, (before?.delayMs ?? TICK_MS / 2) * 2);
      // Said once per change (a replica that is down would say it every second); an older replica answers UNIMPLEMENTED.
      if (before?.lastError !== err) this.o.log.warn({ peer: f.peer, err }, "following a replica's reports failed; it writes its own clusters' status until followed again");
      this.retries.set(f.peer, { at: this.now() + delayMs, delayMs, lastError: err });
    }
    this.judge();
  }
}
