// The peers part: in an HA control plane agents stream to any replica, and the FederatedHPA and
// the binding status writes run on the leader. Every replica logs the summaries its own agents
// send and serves them (PeerMetrics.Collect, issue 22); the leader collects them from the replicas
// that hold cluster Leases, every few seconds, into its metrics store (the peerWorkloadMetrics
// event). Every replica also serves its agents' Work status reports (PeerStatus.Follow, issue 42),
// which the leader follows and writes itself: one status write per binding, not one per replica.
import { randomUUID } from "node:crypto";
import { counterOf, gaugeOf } from "../../shared/metrics.ts";
import { issueReplicaCertificate } from "../../shared/pki.ts";
import type { ControlPlaneContext, Part } from "../context.ts";
import type { ClusterLease } from "../clusters/cluster-leases.ts";
import { wantedIndex } from "../hub/metrics-admission.ts";
import { PeerCollector } from "./peer-collector.ts";
import { DEFAULT_CLUSTER_STATUS_BYTES } from "../status/status-store.ts";
import { ReplicaCredentials } from "./peer-credentials.ts";
import { pendingBound } from "./pending-reports.ts";
import { peerMetricsService } from "./peer-service.ts";
import { peerStatusService } from "./status-feed.ts";
import { type StatusIntake, StatusFollower } from "./status-follower.ts";
import { SummaryLog } from "./summary-log.ts";

/** How often the leader collects: well inside the 60 s after which a summary counts as missing, and under the 15 s sync period. */
export const COLLECT_INTERVAL_MS = 5_000;
/** Each Collect call's deadline. */
export const COLLECT_TIMEOUT_MS = 3_000;
/** A summary older than this is not offered (the FederatedHPA's METRICS_MAX_AGE_MS). */
const MAX_AGE_MS = 60_000;
const PAGE_LIMIT = 1000;
const MAX_PAGES = 20;
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

export interface PeersLinks {
  leases: () => readonly ClusterLease[];
  lease: (cluster: string) => ClusterLease | undefined;
  /** Whether this replica speaks for the cluster: its agent streams here, or did last with nobody since. */
  heard: (cluster: string) => boolean;
  /** Whether the cluster's agent streams to this replica now. */
  streamsHere: (cluster: string) => boolean;
  /** The leader-election Lease's holder as this replica last observed it, while live (undefined: none, expired, or no election): the only replica that may follow it. */
  leaseHolder: (now: number) => string | undefined;
  /** The status part's records: the clusters this replica hands to a following leader, and (leading) those it takes. */
  handed: { said(stream: number, clusters: ReadonlySet<string>): void; withdraw(stream: number): void; readonly size: number };
  forwarded: StatusIntake & { counts(): { taken: number; carried: number }; stats: { unknownWork: number } };
}

export function startPeers(ctx: ControlPlaneContext, links: PeersLinks): Part {
  const log = ctx.log.child({ component: "peers" });
  const summaries = new SummaryLog(randomUUID());
  ctx.events.on("workloadMetrics", (cluster, report) => summaries.record(cluster, report, Date.now()));
  const service = peerMetricsService({ log: summaries, maxAgeMs: MAX_AGE_MS, logger: log });
  const feed = peerStatusService({ identity: ctx.identity, hears: links.heard, clusterNames: () => ctx.caches.clusters.list().map((c) => c.metadata.name ?? ""), statuses: ctx.statuses, leading: ctx.isLeader, leaseHolder: links.leaseHolder, handed: links.handed, log });
  const caKeyPem = ctx.opts.registration?.caKeyPem;
  const credentials = caKeyPem === undefined ? undefined : new ReplicaCredentials({ caPem: ctx.opts.tls.caPem, mint: (validityMs) => issueReplicaCertificate({ certPem: ctx.opts.tls.caPem, keyPem: caKeyPem }, ctx.identity, validityMs) });
  const holderOf = (cluster: string) => links.lease(cluster)?.spec?.holderIdentity;
  const follower =
    credentials === undefined
      ? undefined
      : new StatusFollower({ identity: ctx.identity, credentials, leases: links.leases, holderOf, streamsHere: links.streamsHere, leading: ctx.isLeader, intake: links.forwarded, log, maxPendingBytes: pendingBound(ctx.opts.maxStatusBytesPerCluster ?? DEFAULT_CLUSTER_STATUS_BYTES) });
  if (follower !== undefined) ctx.events.on("agentStreamChanged", () => follower.judge());
  const collector =
    credentials === undefined
      ? undefined
      : new PeerCollector({
          identity: ctx.identity,
          credentials,
          leases: links.leases,
          holderOf,
          wantedOf: (cluster) => {
            const w = ctx.metricsWanted.get(cluster);
            return w === undefined ? undefined : wantedIndex(w);
          },
          take: (cluster, report, at) => ctx.events.emit("peerWorkloadMetrics", cluster, report, at),
          log,
          intervalMs: COLLECT_INTERVAL_MS,
          timeoutMs: COLLECT_TIMEOUT_MS,
          maxAgeMs: MAX_AGE_MS,
          pageLimit: PAGE_LIMIT,
          maxPages: MAX_PAGES,
          maxResponseBytes: MAX_RESPONSE_BYTES,
        });
  const s = service.stats;
  counterOf("flotilla_peer_collect_served_total", "PeerMetrics.Collect calls this replica answered, by outcome (refused: not a control-plane certificate).", () => [[{ outcome: "ok" }, s.collects] as const, [{ outcome: "refused" }, s.refused] as const], ["outcome"]);
  counterOf("flotilla_peer_summaries_served_total", "Workload summaries this replica handed to the leader.", () => s.summariesSent);
  gaugeOf("flotilla_peer_summaries_logged", "Workload summaries this replica holds for the leader (one per cluster and workload).", () => summaries.size);
  if (collector !== undefined) {
    const c = collector.stats;
    counterOf("flotilla_peer_collect_calls_total", "Collect calls the leader made to other replicas, by outcome.", () => [[{ outcome: "ok" }, c.calls - c.failed] as const, [{ outcome: "failed" }, c.failed] as const], ["outcome"]);
    counterOf(
      "flotilla_peer_summaries_total",
      "Workload summaries the leader collected from other replicas, by outcome (taken, or dropped: not_holder, not_wanted, out_of_bounds, too_old).",
      () => [[{ outcome: "taken" }, c.taken] as const, [{ outcome: "not_holder" }, c.notHolder] as const, [{ outcome: "not_wanted" }, c.notWanted] as const, [{ outcome: "out_of_bounds" }, c.outOfBounds] as const, [{ outcome: "too_old" }, c.tooOld] as const],
      ["outcome"],
    );
    gaugeOf("flotilla_peer_replicas", "Other replicas the leader collected from in its last round.", () => c.peers);
  }
  statusMetrics(feed, follower, links);
  return {
    services: [
      { definition: service.definition, implementation: service.implementation },
      { definition: feed.definition, implementation: feed.implementation },
    ],
    startedLeading: () => {
      if (collector === undefined) log.warn("without --ca-key this replica cannot sign itself a certificate for the other replicas: its FederatedHPAs see only the clusters streaming to it, and each replica writes its own clusters' status");
      collector?.start();
      follower?.start();
    },
    stop: () => {
      collector?.stop();
      follower?.stop();
      feed.stop();
    },
  };
}

// Issue 42's metrics: what a replica forwards to a following leader, and what the leader takes.
function statusMetrics(feed: ReturnType<typeof peerStatusService>, follower: StatusFollower | undefined, links: PeersLinks): void {
  const s = feed.stats;
  counterOf("flotilla_peer_status_follows_served_total", "PeerStatus.Follow streams this replica accepted or refused (refused: not a control-plane certificate, not the leader Lease's holder as this replica sees it, or this replica leads).", () => [[{ outcome: "ok" }, s.follows] as const, [{ outcome: "refused" }, s.refused] as const], ["outcome"]);
  counterOf("flotilla_peer_status_follows_ended_total", "PeerStatus.Follow streams this replica ended: their leader no longer held the leader Lease as this replica saw it, or this replica leads now (their clusters' entries are its own to write again at once).", () => s.ended);
  gaugeOf("flotilla_peer_status_followers", "Leaders following this replica's reports now (PeerStatus.Follow streams).", () => feed.streams());
  counterOf("flotilla_peer_status_reports_forwarded_total", "Work status reports (or their absence) this replica sent to a following leader.", () => s.reportsSent);
  counterOf("flotilla_peer_status_reports_trimmed_total", "Reports forwarded without their objects' statuses but the template's own: larger than a replica forwards.", () => s.trimmed);
  gaugeOf("flotilla_peer_status_clusters_handed", "Clusters whose status entries this replica leaves to the leader now (it takes their reports).", () => links.handed.size);
  if (follower === undefined) return;
  const f = follower.stats;
  const taken = links.forwarded.stats;
  gaugeOf("flotilla_peer_status_streams", "Replicas whose reports the leader follows now.", () => follower.streams);
  counterOf("flotilla_peer_status_streams_total", "Follow streams the leader opened to other replicas, and those that failed (an error, or silent for 5 s).", () => [[{ outcome: "opened" }, f.opened] as const, [{ outcome: "failed" }, f.failed] as const], ["outcome"]);
  counterOf(
    "flotilla_peer_status_reports_total",
    "Work status reports the leader received from other replicas, by outcome (taken; pending: its cluster not taken yet; dropped: out_of_bounds, not_heard, unknown_work, pending_full: past the bytes a replica may have pending for one cluster, its stream closed).",
    () => [
      [{ outcome: "taken" }, f.taken] as const,
      [{ outcome: "pending" }, f.pending] as const,
      [{ outcome: "out_of_bounds" }, f.outOfBounds] as const,
      [{ outcome: "not_heard" }, f.notHeard] as const,
      [{ outcome: "unknown_work" }, taken.unknownWork] as const,
      [{ outcome: "pending_full" }, f.overPending] as const,
    ],
    ["outcome"],
  );
  gaugeOf("flotilla_peer_status_clusters", "Clusters of other replicas whose entries the leader writes, by state (taken: from their reports; carried: taken before, their entries kept as the binding says them).", () => {
    const c = links.forwarded.counts();
    return [[{ state: "taken" }, c.taken] as const, [{ state: "carried" }, c.carried] as const];
  }, ["state"]);
}
