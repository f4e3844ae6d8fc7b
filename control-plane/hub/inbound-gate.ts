// What one agent stream lets in (DESIGN §7): a token bucket on its cluster's messages, shared by
// the cluster's streams so that reconnecting does not refill it (the session pauses reading while
// in debt, so HTTP/2 flow control pushes back on the agent and its queue on the hub stays bounded), the bounds on every field, and the rule that a report counts only for
// Works the hub sent to that cluster. Dropped reports are counted and logged at most every 10 s.
import type { Logger } from "pino";
import type { ContentRequest, Heartbeat, MetricsWanted, ServiceExportReport, ServiceExportsSynced, WorkloadMetrics, WorkStatus } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { reportOf, type WorkloadMetricsReport } from "../../shared/workload-metrics-wire.ts";
import { type Clock, realClock } from "../../shared/clock.ts";
import { counter } from "../../shared/metrics.ts";
import { type RateLimiter, TokenBucketLimiter } from "../../shared/rate-limiter.ts";
import { type CheckedHeartbeat, CLAIM_BOUNDS, checkHeartbeat } from "./heartbeat-claims.ts";
import { checkContentRequest, checkServiceExport, checkServiceExportsSynced, checkWorkloadMetrics, checkWorkStatus } from "./message-bounds.ts";
import { admitWorkloadMetrics, type WantedIndex, wantedIndex } from "./metrics-admission.ts";
import { admitReport } from "./report-admission.ts";

/** Messages a second an agent may send, and how many it may send at once after a quiet spell. */
export interface InboundRate {
  qps: number;
  burst: number;
}

export const DEFAULT_INBOUND_RATE: InboundRate = { qps: 200, burst: 2000 };
const WARN_EVERY_MS = 10_000;

/** The token bucket of one cluster's messages. */
export function inboundBucket(rate: InboundRate, clock: Clock = realClock): RateLimiter {
  return new TokenBucketLimiter(rate.qps, rate.burst, clock);
}

const rejected = counter("flotilla_hub_rejected_reports_total", "Agent reports dropped by the hub: about a Work not sent to the agent's cluster (NotSentToCluster), a workload it was not asked to summarise (NotWanted), or out of bounds (OutOfBounds).", ["reason"]);
const throttled = counter("flotilla_hub_throttled_messages_total", "Agent messages that found the stream's token bucket empty (reading paused).", ["cluster"]);
const ignoredContentKeys = counter("flotilla_hub_content_requests_ignored_total", "Keys of agents' ContentRequests the hub ignored: not a Work of the agent's cluster, or out of bounds.", ["cluster"]);
const unwantedMetricKeys = counter("flotilla_hub_unwanted_metric_keys_total", "Metric keys of agents' workload summaries the hub left out: not wanted for that workload.", ["cluster"]);
const badClaims = counter("flotilla_hub_heartbeat_claims_dropped_total", "Heartbeat claims left out as not sane (negative, unparseable, absurd).", ["cluster"]);

export class InboundGate {
  private readonly cluster: string;
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly bucket: RateLimiter;
  private readonly inStore: (key: string) => boolean;
  private readonly recorded: (key: string) => boolean;
  /** Works sent on this stream and not confirmed deleted since. */
  private readonly sentKeys = new Set<string>();
  private lastWarn = Number.NEGATIVE_INFINITY;
  private unwarned = 0;
  private readonly wanted: () => MetricsWanted;
  private readonly maxNodes: number;
  private index: { hash: string; index: WantedIndex } | undefined;

  constructor(opts: {
    cluster: string;
    log: Logger;
    bucket: RateLimiter;
    inStore: (key: string) => boolean;
    recorded: (key: string) => boolean;
    /** The workloads the agent was asked to summarise (default: none). */
    wanted?: () => MetricsWanted;
    clock?: Clock;
    /** --max-cluster-nodes (default CLAIM_BOUNDS.nodes). */
    maxNodes?: number;
  }) {
    this.maxNodes = opts.maxNodes ?? CLAIM_BOUNDS.nodes;
    this.wanted = opts.wanted ?? (() => ({ contentHash: "", workloads: [] }));
    this.cluster = opts.cluster;
    this.log = opts.log;
    this.clock = opts.clock ?? realClock;
    this.bucket = opts.bucket;
    this.inStore = opts.inStore;
    this.recorded = opts.recorded;
  }

  /** Takes a token for a message that arrived; the ms to stop reading for (0: read on). */
  arrived(): number {
    const wait = this.bucket.when(this.cluster);
    if (wait > 0) throttled.inc({ cluster: this.cluster });
    return wait;
  }

  /** The hub sent this Work to the agent. */
  sent(key: string): void {
    this.sentKeys.add(key);
  }

  /** The report to pass on (long messages cut), or undefined when it is dropped. */
  workStatus(s: WorkStatus): WorkStatus | undefined {
    const checked = checkWorkStatus(s);
    if (!checked.ok) return this.drop("OutOfBounds", { why: checked.reason });
    const key = checked.value.workKey;
    const v = admitReport({ inStore: this.inStore(key), sentOnStream: this.sentKeys.has(key), recorded: this.recorded(key) });
    if (!v.accept) return this.drop(v.reason, { work: key });
    if (checked.value.deleted) this.sentKeys.delete(key);
    return checked.value;
  }

  /**
   * The keys of a ContentRequest the hub answers: only Works of this cluster in the store. An
   * agent asks only for Works the hub sent it, so any other key (made up, another cluster's) is
   * ignored and counted; so is a request out of bounds, whole.
   */
  contentRequest(r: ContentRequest): string[] {
    const checked = checkContentRequest(r);
    if (!checked.ok) {
      ignoredContentKeys.inc({ cluster: this.cluster }, r.workKeys.length);
      this.warn({ why: checked.reason }, "ignored an agent's content request");
      return [];
    }
    const keys = [...new Set(checked.value.workKeys)];
    const known = keys.filter((k) => this.inStore(k));
    const unknown = keys.length - known.length;
    if (unknown > 0) {
      ignoredContentKeys.inc({ cluster: this.cluster }, unknown);
      this.warn({ unknown }, "ignored content requests for Works not in the cluster's set");
    }
    return known;
  }

  /** The summary to pass on (unwanted keys left out, problems cut), or undefined when it is dropped. */
  workloadMetrics(m: WorkloadMetrics): WorkloadMetricsReport | undefined {
    const checked = checkWorkloadMetrics(m);
    if (!checked.ok) return this.drop("OutOfBounds", { why: checked.reason });
    const wanted = this.wanted();
    if (this.index?.hash !== wanted.contentHash) this.index = { hash: wanted.contentHash, index: wantedIndex(wanted) };
    const v = admitWorkloadMetrics(checked.value, this.index.index);
    if (!v.accept) return this.drop(v.reason, { workload: checked.value.workload });
    if (v.unwantedKeys > 0) {
      unwantedMetricKeys.inc({ cluster: this.cluster }, v.unwantedKeys);
      this.warn({ unwantedKeys: v.unwantedKeys }, "left unwanted metric keys out of an agent's workload summary");
    }
    return reportOf(v.value);
  }

  /** A ServiceExportReport to pass on (issue 40), or undefined when it is out of bounds and dropped. */
  serviceExport(r: ServiceExportReport): ServiceExportReport | undefined {
    const checked = checkServiceExport(r);
    return checked.ok ? checked.value : this.drop("OutOfBounds", { why: checked.reason });
  }

  /** The exports a ServiceExportsSynced lists, or undefined when it is out of bounds and dropped. */
  serviceExportsSynced(m: ServiceExportsSynced): string[] | undefined {
    const checked = checkServiceExportsSynced(m);
    return checked.ok ? checked.value.exports : this.drop("OutOfBounds", { why: checked.reason });
  }

  /** The heartbeat with insane claims left out, and what was left out. */
  heartbeat(hb: Heartbeat): CheckedHeartbeat {
    const checked = checkHeartbeat(hb, this.maxNodes);
    if (checked.problems.length > 0) {
      badClaims.inc({ cluster: this.cluster }, checked.problems.length);
      this.warn({ problems: checked.problems.slice(0, 5) }, "left insane claims out of an agent's heartbeat");
    }
    return checked;
  }

  private drop(reason: string, details: Record<string, unknown>): undefined {
    rejected.inc({ reason });
    this.warn({ reason, ...details }, "dropped an agent's report");
    return undefined;
  }

  /** Logs at most once every WARN_EVERY_MS, with the count of what went unlogged meanwhile. Never object contents. */
  private warn(details: Record<string, unknown>, msg: string): void {
    const now = this.clock.now();
    if (now - this.lastWarn < WARN_EVERY_MS) {
      this.unwarned++;
      return;
    }
    this.log.warn({ ...details, unloggedSinceLast: this.unwarned }, msg);
    this.lastWarn = now;
    this.unwarned = 0;
  }
}
