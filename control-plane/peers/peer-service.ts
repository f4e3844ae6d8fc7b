// The PeerMetrics service every replica serves on the hub's mTLS listener (issue 22): the leader
// collects the summaries this replica's agents sent. Only a control-plane replica's certificate
// may call it (agents' and admins' certificates are signed by the same CA: their O tells them apart).
import { type ServerUnaryCall, status as GrpcStatus } from "@grpc/grpc-js";
import type { Logger } from "pino";
import { type CollectRequest, type CollectResponse, PeerMetricsService } from "../../shared/gen/flotilla/v1alpha1/peer.ts";
import { CONTROL_PLANE_ORGANIZATION, replicaOfSubject } from "../../shared/pki.ts";
import { summaryToWire } from "../../shared/workload-metrics-wire.ts";
import { RpcError, unaryHandler } from "../rpc.ts";
import type { SummaryLog } from "./summary-log.ts";

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
      opts.logger.warn({ subject: subject?.CN }, "PeerMetrics call refused: not a control-plane replica");
      throw new RpcError(GrpcStatus.PERMISSION_DENIED, `PeerMetrics is for control-plane replicas: it needs a client certificate with O=${CONTROL_PLANE_ORGANIZATION}`);
    }
    stats.collects++;
    const t = now();
    // A cursor from another epoch is another process's: start from the beginning.
    const after = call.request.epoch === opts.log.epoch ? call.request.after : 0;
    const page = opts.log.page(after, call.request.limit, t, opts.maxAgeMs);
    stats.summariesSent += page.summaries.length;
    return {
      epoch: opts.log.epoch,
      next: page.next,
      more: page.more,
      summaries: page.summaries.map((e) => {
        const { workload, wantedHash, windowStartMs, windowEndMs, problems } = e.report;
        return { cluster: e.cluster, metrics: summaryToWire(e.report.summary, { workload, wantedHash, windowStartMs, windowEndMs, problems }), ageMs: Math.min(MAX_AGE_ON_WIRE, Math.max(0, t - e.at)) };
      }),
    };
  };
  return {
    stats,
    definition: PeerMetricsService,
    implementation: { collect: unaryHandler(collect, (err) => opts.logger.warn({ err: err instanceof Error ? err.message : String(err) }, "PeerMetrics call failed")) },
  };
}
