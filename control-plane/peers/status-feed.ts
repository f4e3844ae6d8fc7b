// Issue 42, on every replica: PeerStatus.Follow, which the leader calls to follow this replica's
// agents' reports (feed-stream.ts sends them), so that it writes every cluster's status entries in
// its single apply. While a leader says it takes a cluster, this replica writes none of its
// entries (status/handed-clusters.ts). Only a control-plane replica's certificate may follow, and
// not while this replica leads itself.
import { type ServerDuplexStream, status as GrpcStatus } from "@grpc/grpc-js";
import type { Logger } from "pino";
import type { WorkStatus } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { type FollowRequest, type FollowUpdate, PeerStatusService } from "../../shared/gen/flotilla/v1alpha1/peer.ts";
import { replicaOfSubject } from "../../shared/pki.ts";
import { type FeedStats, FeedStream } from "./feed-stream.ts";

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
  /** Where the leaders' say goes (status/handed-clusters.ts). */
  handed: { said(stream: number, clusters: ReadonlySet<string>): void; withdraw(stream: number): void };
  log: Logger;
}

export interface StatusFeedStats extends FeedStats {
  follows: number;
  refused: number;
}

export function peerStatusService(src: FeedSource) {
  const stats: StatusFeedStats = { follows: 0, refused: 0, reportsSent: 0, trimmed: 0 };
  const streams = new Map<number, FeedStream>();
  let nextId = 1;
  src.statuses.onChange((cluster, key) => {
    for (const s of streams.values()) s.changed(cluster, key);
  });
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
    const caller = replicaOfSubject(call.getAuthContext()?.sslPeerCertificate?.subject);
    const refuse = (code: GrpcStatus, details: string) => {
      stats.refused++;
      call.emit("error", { code, details });
    };
    if (caller === undefined) {
      src.log.debug("PeerStatus.Follow refused: not a control-plane replica");
      refuse(GrpcStatus.PERMISSION_DENIED, "PeerStatus is for control-plane replicas: it needs a client certificate with O=flotilla:control-plane");
      return;
    }
    if (src.leading()) {
      refuse(GrpcStatus.FAILED_PRECONDITION, `${src.identity} leads: it writes its own clusters' status`);
      return;
    }
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

  // Every second: what each stream's replica hears, a word on idle streams, and no stream while leading.
  const tick = (): void => {
    if (streams.size === 0) return;
    if (src.leading()) {
      for (const s of [...streams.values()]) {
        streams.delete(s.id);
        src.handed.withdraw(s.id);
        s.end(GrpcStatus.FAILED_PRECONDITION, `${src.identity} leads now`);
      }
      return;
    }
    const heard = heardNow();
    const now = Date.now();
    for (const s of streams.values()) {
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
