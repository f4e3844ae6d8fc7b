// Issue 42, on every replica: PeerStatus.Follow, which the leader calls to follow this replica's
// agents' reports (feed-stream.ts sends them), so that it writes every cluster's status entries in
// its single apply. While a leader says it takes a cluster, this replica writes none of its
// entries (status/handed-clusters.ts). Only the holder of the leader-election Lease, as this
// replica observed it, may follow (follow-admission.ts), and not while this replica leads itself:
// a stream whose caller stops holding it is ended, and its clusters come back at once.
import { type ServerDuplexStream, status as GrpcStatus } from "@grpc/grpc-js";
import type { Logger } from "pino";
import type { WorkStatus } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { type FollowRequest, type FollowUpdate, PeerStatusService } from "../../shared/gen/flotilla/v1alpha1/peer.ts";
import { replicaOfSubject } from "../../shared/pki.ts";
import { type FeedStats, FeedStream } from "./feed-stream.ts";
import { judgeFollower } from "./follow-admission.ts";

/** How often a stream says what it hears, and says something when it said nothing for as long. */
export const FEED_TICK_MS = 1_000;

/** What the service reads of this replica. */
export interface FeedSource {
  identity: string;
  /** Whether this replica speaks for the cluster: its agent streams here, or did last with nobody since. */
  hears(cluster: string): boolean;
  /** The names to ask hears() about (every Cluster). */
  clusterNames(): Iterable<string>;
  /** The replica's StatusStore. */
  statuses: { get(key: string): ReadonlyMap<string, WorkStatus>; keysOf(cluster: string): string[]; onChange(fn: (cluster: string, key: string) => void): void };
  leading(): boolean;
  /** The leader-election Lease's holder as this replica last observed it, while live by its clock (undefined: none, expired, or no election). */
  leaseHolder(now: number): string | undefined;
  /** Where the leaders' say goes (status/handed-clusters.ts). */
  handed: { said(stream: number, clusters: ReadonlySet<string>): void; withdraw(stream: number): void };
  log: Logger;
}

export interface StatusFeedStats extends FeedStats {
  follows: number;
  refused: number;
  /** Streams ended because their caller no longer held the leader Lease as this replica saw it, or this replica leads. */
  ended: number;
}

export function peerStatusService(src: FeedSource) {
  const stats: StatusFeedStats = { follows: 0, refused: 0, ended: 0, reportsSent: 0, trimmed: 0 };
  const streams = new Map<number, FeedStream>();
  let nextId = 1;
  src.statuses.onChange((cluster, key) => {
    for (const s of streams.values()) s.changed(cluster, key);
  });
  const judge = (caller: string | undefined) => judgeFollower({ me: src.identity, caller, leading: src.leading(), holder: src.leaseHolder(Date.now()) });
  const heardNow = (): Set<string> => new Set([...src.clusterNames()].filter((c) => src.hears(c)));
  const reader = {
    identity: src.identity,
    report: (cluster: string, key: string) => src.statuses.get(key).get(cluster),
    keysOf: (cluster: string) => src.statuses.keysOf(cluster),
    said: (id: number, clusters: ReadonlySet<string>) => {
      if (streams.has(id)) src.handed.said(id, clusters);
    },
  };

  const follow = (call: ServerDuplexStream<FollowRequest, FollowUpdate>): void => {
    const verdict = judge(replicaOfSubject(call.getAuthContext()?.sslPeerCertificate?.subject));
    if (!verdict.follow) {
      stats.refused++;
      src.log.debug({ reason: verdict.message }, "PeerStatus.Follow refused");
      call.emit("error", { code: verdict.code, details: verdict.message });
      return;
    }
    const caller = verdict.follower;
    stats.follows++;
    const s = new FeedStream({ id: nextId++, caller, call, reader, stats });
    streams.set(s.id, s);
    const closed = () => {
      if (s.closed) return;
      s.close();
      streams.delete(s.id);
      src.log.info({ leader: caller }, "a leader stopped following this replica's reports; its clusters come back in a few seconds unless it follows again");
    };
    call.on("end", () => {
      closed();
      call.end();
    });
    call.on("error", closed);
    call.on("cancelled", closed);
    s.open(heardNow());
    src.log.info({ leader: caller }, "a leader follows this replica's reports");
  };

  // Every second: what each stream's replica hears, a word on idle streams, and no stream but the
  // Lease holder's, none while leading. An ended stream's say is withdrawn at once (not after
  // handed-clusters' grace): this replica writes those clusters' entries again, as with no leader.
  // A stream the tick refuses is judged again once the event loop has taken the messages waiting
  // for it (setImmediate runs after the poll phase, where the election thread's word on the Lease
  // arrives): after a long busy turn, the tick may run before the word it has been sent meanwhile,
  // and ending the leader's stream on that stale view would cost a full snapshot to follow again.
  const end = (s: FeedStream): void => {
    if (streams.get(s.id) !== s) return;
    const verdict = judge(s.caller);
    if (verdict.follow) return;
    streams.delete(s.id);
    src.handed.withdraw(s.id);
    stats.ended++;
    src.log.info({ leader: s.caller, reason: verdict.message }, "ended a leader's follow stream; this replica writes its clusters' status again");
    s.end(verdict.code, verdict.message);
  };
  const tick = (): void => {
    if (streams.size === 0) return;
    const refused = [...streams.values()].filter((s) => !judge(s.caller).follow);
    if (refused.length > 0) setImmediate(() => refused.forEach(end));
    const heard = heardNow();
    const now = Date.now();
    for (const s of streams.values()) {
      if (refused.includes(s)) continue;
      s.hears(heard);
      s.heartbeat(now, FEED_TICK_MS);
    }
  };
  const timer = setInterval(tick, FEED_TICK_MS);
  timer.unref();

  return {
    stats,
    /** Leaders following this replica now. */
    streams: () => streams.size,
    /** Reports waiting for room on the streams (one per (cluster, Work) and stream at most). */
    backlog: () => [...streams.values()].reduce((n, s) => n + s.pending, 0),
    definition: PeerStatusService,
    implementation: { follow },
    stop: () => {
      clearInterval(timer);
      for (const s of [...streams.values()]) s.end(GrpcStatus.UNAVAILABLE, `${src.identity} is stopping`);
      streams.clear();
    },
  };
}
