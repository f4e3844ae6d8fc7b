// The peers part (issue 22): in an HA control plane agents stream to any replica, and the
// FederatedHPA runs on the leader. Every replica logs the summaries its own agents send and
// serves them (PeerMetrics.Collect); the leader collects them from the replicas that hold cluster
// Leases, every few seconds, into its metrics store (the peerWorkloadMetrics event).
import { randomUUID } from "node:crypto";
import { counterOf, gaugeOf } from "../../shared/metrics.ts";
import { issueReplicaCertificate } from "../../shared/pki.ts";
import type { ControlPlaneContext, Part } from "../context.ts";
import type { ClusterLease } from "../clusters/cluster-leases.ts";
import { wantedIndex } from "../hub/metrics-admission.ts";
import { PeerCollector } from "./peer-collector.ts";
import { ReplicaCredentials } from "./peer-credentials.ts";
import { peerMetricsService } from "./peer-service.ts";
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

export function startPeers(ctx: ControlPlaneContext, links: { leases: () => readonly ClusterLease[]; lease: (cluster: string) => ClusterLease | undefined }): Part {
  const log = ctx.log.child({ component: "peers" });
  const summaries = new SummaryLog(randomUUID());
  ctx.events.on("workloadMetrics", (cluster, report) => summaries.record(cluster, report, Date.now()));
  const service = peerMetricsService({ log: summaries, maxAgeMs: MAX_AGE_MS, logger: log });
  const caKeyPem = ctx.opts.registration?.caKeyPem;
  const collector =
    caKeyPem === undefined
      ? undefined
      : new PeerCollector({
          identity: ctx.identity,
          credentials: new ReplicaCredentials({ caPem: ctx.opts.tls.caPem, mint: (validityMs) => issueReplicaCertificate({ certPem: ctx.opts.tls.caPem, keyPem: caKeyPem }, ctx.identity, validityMs) }),
          leases: links.leases,
          holderOf: (cluster) => links.lease(cluster)?.spec?.holderIdentity,
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
  return {
    services: [{ definition: service.definition, implementation: service.implementation }],
    startedLeading: () => {
      if (collector === undefined) log.warn("without --ca-key this replica cannot sign itself a certificate for the other replicas: its FederatedHPAs see only the clusters streaming to it");
      collector?.start();
    },
    stop: () => collector?.stop(),
  };
}
