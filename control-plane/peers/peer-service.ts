// The PeerMetrics service every replica serves on the hub's mTLS listener (issue 22): the leader
// collects the summaries this replica's agents sent. Only a control-plane replica's certificate
// may call it (agents' and admins' certificates are signed by the same CA: their O tells them apart).
import { type ServerUnaryCall, status as GrpcStatus } from "@grpc/grpc-js";
import type { Logger } from "pino";
import { type CollectRequest, type CollectResponse, PeerMetricsService, PeerSummary } from "../../shared/gen/flotilla/v1alpha1/peer.ts";
import { CONTROL_PLANE_ORGANIZATION, replicaOfSubject } from "../../shared/pki.ts";
import { summaryToWire } from "../../shared/workload-metrics-wire.ts";
import { RpcError, unaryHandler } from "../rpc.ts";
import { fitting, type SummaryLog } from "./summary-log.ts";

/** The most an answer carries, well under the 8 MiB the leader takes. */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
/** The largest age on the wire (uint32 ms). */
const MAX_AGE_ON_WIRE = 0xffff_ffff;

export interface PeerServiceStats {
  collects: number;
  refused: number;
  summariesSent: number;
}

export function peerMetricsService(opts: { log: SummaryLog; maxAgeMs: number; logger: Logger; now?: () => number }) {
  const now = opts.now ?? Date.now;
  const stats: PeerServiceStats = { collects: 0, refused: 0, summariesSent: 0 };
  const collect = async (call: ServerUnaryCall<CollectRequest, CollectResponse>): Promise<CollectResponse> => {
    const subject = call.getAuthContext()?.sslPeerCertificate?.subject;
    const caller = replicaOfSubject(subject);
    if (caller === undefined) {
      stats.refused++;
      // Debug: any agent could call it in a loop; flotilla_peer_collect_served_total{outcome="refused"} counts them.
      opts.logger.debug({ subject: subject?.CN }, "PeerMetrics call refused: not a control-plane replica");
      throw new RpcError(GrpcStatus.PERMISSION_DENIED, `PeerMetrics is for control-plane replicas: it needs a client certificate with O=${CONTROL_PLANE_ORGANIZATION}`);
    }
    stats.collects++;
    const t = now();
    // A cursor from another epoch is another process's: start from the beginning.
    const after = call.request.epoch === opts.log.epoch ? call.request.after : 0;
    const page = opts.log.page(after, call.request.limit, t, opts.maxAgeMs);
    const wire: PeerSummary[] = page.summaries.map((e) => {
      const { workload, wantedHash, windowStartMs, windowEndMs, problems } = e.report;
      return { cluster: e.cluster, metrics: summaryToWire(e.report.summary, { workload, wantedHash, windowStartMs, windowEndMs, problems }), ageMs: Math.min(MAX_AGE_ON_WIRE, Math.max(0, t - e.at)) };
    });
    // Summaries with long metric keys could make a page too large for the caller: the rest waits for the next page.
    const n = fitting(wire.map((w) => PeerSummary.encode(w).finish().length), MAX_ANSWER_BYTES);
    stats.summariesSent += n;
    const last = page.summaries[n - 1];
    return { epoch: opts.log.epoch, next: n === page.summaries.length || last === undefined ? page.next : last.seq, more: page.more || n < page.summaries.length, summaries: wire.slice(0, n) };
  };
  return {
    stats,
    definition: PeerMetricsService,
    implementation: { collect: unaryHandler(collect, (err) => opts.logger.warn({ err: err instanceof Error ? err.message : String(err) }, "PeerMetrics call failed")) },
  };
}
