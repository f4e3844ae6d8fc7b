// What an agent session tells the rest of the control plane, and counts of what it did.
import type { WorkloadMetricsReport } from "../../shared/workload-metrics-wire.ts";
import type { ServerDuplexStream } from "@grpc/grpc-js";
import type { Logger } from "pino";
import type { AgentMessage, ControlMessage, Heartbeat, InterpreterCustomizations, MetricsWanted, ServiceExportReport, ServiceExportsSynced, WorkStatus } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import type { RateLimiter } from "../../shared/rate-limiter.ts";
import type { WorkStore } from "../works/work-store.ts";
import type { DeletionBudget, DeletionWindow } from "./deletion-brake.ts";
import { DELETION_HELD } from "./outbound-deletions.ts";
import { counter } from "../../shared/metrics.ts";
import type { InboundGate } from "./inbound-gate.ts";

export const bytesSent = counter("flotilla_stream_bytes_sent_total", "Manifest bytes of the WorkUpserts sent to a cluster.", ["cluster"]);
export const bytesReceived = counter("flotilla_stream_bytes_received_total", "Manifest status bytes of the WorkStatuses a cluster sent.", ["cluster"]);

/** What a session reports to the rest of the control plane. */
export interface SessionEvents {
  status(cluster: string, status: WorkStatus): void;
  /** problems: the claims left out as not sane, for the Cluster's status (empty when none). */
  heartbeat(cluster: string, heartbeat: Heartbeat, problems: string[]): void;
  /**
   * Whether the control plane's own record (an accepted report, in memory or in the binding's
   * status) says the cluster held this Work. Without it only the store and the stream count.
   */
  recorded?(cluster: string, key: string): boolean;
  /**
   * Why a Work the store lacks is gone for the cluster, or undefined when its absence is no
   * intent to delete (the agent keeps it). Without it every absent Work is deleted.
   */
  deletionIntent?(cluster: string, key: string): { reason: string; preserve: boolean } | undefined;
  /**
   * The Works the agent says it holds, once per stream after its Hello: a Work it no longer holds
   * has been removed there, even if the report saying so was lost with a hub that died.
   */
  holds?(cluster: string, keys: ReadonlySet<string>): void;
  /** The brake held a deletion for the cluster. */
  deletionHeld?(cluster: string, key: string): void;
  /** An agent's summary of a workload it was asked for (issue 22), within bounds. */
  workloadMetrics?(cluster: string, report: WorkloadMetricsReport): void;
  /** Issue 40: an agent's report of one of its cluster's ServiceExports, within bounds. */
  serviceExport?(cluster: string, report: ServiceExportReport): void;
  /** Issue 40: every export the agent's cluster holds, once its watches have listed. */
  serviceExportsSynced?(cluster: string, exports: string[]): void;
  /** Issue 25: the window to spread a reconnect over, told the agent in SyncDone (admission-gate.ts); none: unset. */
  reconnectSpreadMs?(): number;
}

/** The report that shows a held deletion on the binding, as the agent's own would show a state. */
export function heldReport(key: string, message: string): WorkStatus {
  return { workKey: key, observedHash: "", applied: true, available: false, reason: DELETION_HELD, message, manifests: [], deleted: false };
}

/** Counters of one session, for tests and metrics. */
export interface SessionStats {
  upserts: number;
  deletes: number;
  manifestBytes: number;
  /** WorkStatuses taken (within bounds, about the cluster's Works). */
  statuses: number;
  /** Interpreter customization sets sent. */
  customizations: number;
  /** MetricsWanted lists sent, and workload summaries taken. */
  metricsWanted: number;
  workloadMetrics: number;
  /** ServiceExportReports taken (issue 40). */
  serviceExports: number;
}

/** What one agent stream's session is given by the hub. */
export interface AgentSessionOptions {
  cluster: string;
  call: ServerDuplexStream<AgentMessage, ControlMessage>;
  works: WorkStore;
  events: SessionEvents;
  log: Logger;
  /** The stream proved who it is: the hub makes it the cluster's session. */
  onHello: () => void;
  onClosed: () => void;
  /** The token bucket on the cluster's messages (the hub keeps one per cluster). */
  bucket?: RateLimiter;
  /** A stream that has not said Hello this long is closed (default 30 s). */
  helloTimeoutMs?: number;
  /** --max-cluster-nodes: a heartbeat claiming more nodes counts no capacity (heartbeat-claims.ts). */
  maxClusterNodes?: number;
  /** The brake's budget (default DEFAULT_DELETION_BUDGET) and the cluster's window, kept by the hub across its streams. */
  deletionBudget?: DeletionBudget;
  deletionWindow?: DeletionWindow;
  /** Member API requests (issue 41) this cluster may have in flight at once (default 64). */
  memberApiMaxRequests?: number;
  /** The interpreter customizations agents run, as sent (default: none). */
  customizations?: () => InterpreterCustomizations;
  /** The workloads this cluster's agent summarises (default: none). */
  metricsWanted?: () => MetricsWanted;
}

/** Issue 40: passes an agent's export report, or its list of exports, on within bounds; true for a report passed on. */
export function passExports(gate: InboundGate, events: SessionEvents, cluster: string, kind: { $case: "serviceExport"; value: ServiceExportReport } | { $case: "serviceExportsSynced"; value: ServiceExportsSynced }): boolean {
  if (kind.$case === "serviceExportsSynced") {
    const exports = gate.serviceExportsSynced(kind.value);
    if (exports !== undefined) events.serviceExportsSynced?.(cluster, exports);
    return false;
  }
  const report = gate.serviceExport(kind.value);
  if (report !== undefined) events.serviceExport?.(cluster, report);
  return report !== undefined;
}
