import { type ClientDuplexStream, credentials, Metadata, status as GrpcStatus } from "@grpc/grpc-js";
import type { Logger } from "pino";
import { CoalescingOutbox } from "../../shared/coalescing-outbox.ts";
import { FEATURES } from "../../shared/protocol.ts";
import { AGENT_MAX_RECONNECT_BACKOFF_MS, AGENT_MIN_RECONNECT_BACKOFF_MS, RECONNECT_ELSEWHERE_METADATA, reconnectDelay, RETRY_AFTER_METADATA, retryAfterOf } from "../../shared/reconnect.ts";
import {
  type AgentMessage,
  AgentHubClient,
  type ControlMessage,
  type Heartbeat,
  type Hello,
  type InterpreterCustomizations,
  type LiveRequest,
  type LiveResponse,
  type MetricsWanted,
  type ServiceExportReport,
  type ServiceExportsSynced,
  type WorkloadMetrics,
  type WorkStatus,
  type WorkUpsert,
} from "../../shared/gen/flotilla/v1alpha1/agent.ts";

const MAX_CONTENT_KEYS = 1000; // keys per ContentRequest (the hub's bound)
/** Outbox keys of workload summaries (no work key starts with NUL). */
const METRICS = "\u0000metrics/";
/** Outbox keys of ServiceExport reports (issue 40), and of the list that follows them. */
const EXPORT = "\u0000export/";
const EXPORTS_SYNCED = "\u0000exports-synced";

export interface HubHandlers {
  hello(): Hello;
  upsert(u: WorkUpsert): void;
  /** `preserve`: keep the objects, unmanaged (preserveResourcesOnDeletion). */
  /** The Work is gone for this cluster; reason: the intent the hub gave (logged with each deletion). */
  delete(key: string, preserve: boolean, reason: string): void;
  syncDone(workCount: number): void;
  /** The latest status of a Work, or undefined when there is nothing to say. */
  status(key: string): WorkStatus | undefined;
  /** The member's live objects, for the hub (flotillactl diff). */
  live(req: LiveRequest): Promise<LiveResponse>;
  /** The fleet's interpreter customizations that run in the agent (sent before the Works they judge). */
  customizations?(c: InterpreterCustomizations): void;
  /** The workloads to summarise for autoscaling (the whole list). */
  metricsWanted?(m: MetricsWanted): void;
  /** The newest summary of a workload, or undefined when there is nothing to say. */
  workloadMetrics?(key: string): WorkloadMetrics | undefined;
  /** Issue 40: the report of one ServiceExport ("namespace/name"), or undefined when there is nothing to say. */
  serviceExport?(key: string): ServiceExportReport | undefined;
  /** Issue 40: every export the member holds, or undefined while the agent's watches have not listed. */
  serviceExportsSynced?(): ServiceExportsSynced | undefined;
  /** Issue 41: a member API frame; `write` sends on the stream it came on, `flushed` once it left. */
  memberApi?(frame: Extract<ControlMessage["kind"], { $case: `memberApi${string}` }>, write: (m: AgentMessage, flushed: () => void) => void): void;
  /** The stream ended (what was asked on it is over). */
  streamEnded?(): void;
}

export interface HubConnectionOptions {
  address: string;
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
  /** The name the hub's certificate carries, when it differs from the address's host. */
  serverName?: string;
  handlers: HubHandlers;
  log: Logger;
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

/**
 * The agent's one stream to the hub: connects, says Hello, applies what comes, sends statuses
 * through a coalescing outbox (latest status per Work; back-pressure respected), and reconnects
 * with exponential backoff and full jitter when the stream ends.
 */
export class HubConnection {
  private client: AgentHubClient;
  private readonly channelOptions: Record<string, string | number>;
  /** The client of the previous credentials, closed once its stream has ended. */
  private retired: AgentHubClient | undefined;
  private readonly opts: HubConnectionOptions;
  private credentials: { cert: Buffer; key: Buffer };
  private stream: ClientDuplexStream<AgentMessage, ControlMessage> | undefined;
  private outbox: CoalescingOutbox | undefined;
  private attempt = 0;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private synced = false;
  /** What the hub of the current stream declared in its SyncDone (none before it, or from an older hub). */
  private hubFeatures: readonly string[] = [];
  /** The window a hub last told this agent to spread its first reconnect over (SyncDone; issue 25). */
  private spreadMs: number | undefined;
  /** Keys to ask the hub for, sent together once the current turn of the event loop ends. */
  private readonly contentKeys = new Set<string>();
  /** For tests and metrics: streams opened, manifest bytes and upserts received, streams the hub refused with a retry-after (its admission gate). */
  connects = 0;
  manifestBytes = 0;
  upserts = 0;
  refusals = 0;

  constructor(opts: HubConnectionOptions) {
    this.opts = opts;
    this.credentials = { cert: opts.cert, key: opts.key };
    const channelOptions: Record<string, string | number> = {
      "grpc.keepalive_time_ms": 20_000,
      "grpc.keepalive_timeout_ms": 10_000,
      // A Work is one template's objects (etcd caps an object at 1.5 MiB): anything far larger is not the hub's.
      "grpc.max_receive_message_length": 16 * 1024 * 1024,
      // grpc-js backs off up to 120 s by default; the control plane's startup grace counts on less.
      "grpc.initial_reconnect_backoff_ms": AGENT_MIN_RECONNECT_BACKOFF_MS,
      "grpc.max_reconnect_backoff_ms": opts.maxBackoffMs ?? AGENT_MAX_RECONNECT_BACKOFF_MS,
      // Its own connection: a new channel (reconnectElsewhere) must not reuse the old one's.
      "grpc.use_local_subchannel_pool": 1,
    };
    if (opts.serverName) channelOptions["grpc.ssl_target_name_override"] = opts.serverName;
    this.channelOptions = channelOptions;
    this.client = new AgentHubClient(opts.address, credentials.createSsl(opts.ca, opts.key, opts.cert), channelOptions);
  }

  /** Uses a renewed certificate from the next stream on; the current stream goes on undisturbed. */
  updateCredentials(cert: Buffer, key: Buffer): void {
    this.credentials = { cert, key };
    this.newChannel();
  }

  /** The next stream goes over a new connection (the old channel closes once its stream ended). */
  private newChannel(): void {
    this.retired?.close();
    this.retired = this.client;
    this.client = new AgentHubClient(this.opts.address, credentials.createSsl(this.opts.ca, this.credentials.key, this.credentials.cert), this.channelOptions);
  }

  /** Asks the hub for a new certificate for this cluster, authenticated by the current one. */
  renew(csrPem: string, timeoutMs = 30_000): Promise<string> {
    return new Promise((resolve, reject) => {
      this.client.renew({ csr: csrPem }, new Metadata(), { deadline: Date.now() + timeoutMs }, (err, res) => (err ? reject(err) : resolve(res.certificate)));
    });
  }

  /** True between the end of a resync and the end of the stream. */
  get connected(): boolean {
    return this.synced;
  }

  start(): void {
    this.stopped = false;
    this.open();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.stream?.cancel();
    this.client.close();
    this.retired?.close();
  }

  /** Ends the current stream so that a new one starts with a fresh Hello (and the hub resyncs). */
  resync(): void {
    this.stream?.cancel();
  }

  /** Queues a Work's status (the newest one is sent when the stream has room). */
  reportStatus(key: string): void {
    this.outbox?.mark(key);
  }

  /** Queues a workload's summary (the newest one is sent when the stream has room). */
  reportMetrics(workloadKey: string): void {
    this.outbox?.mark(METRICS + workloadKey);
  }

  /** Queues the report of a ServiceExport (issue 40; the newest one is sent when the stream has room), if the hub takes it. */
  reportExport(key: string): void {
    if (this.hubTakesExports) this.outbox?.mark(EXPORT + key);
  }

  /** Queues the list of every export, after the reports queued before it, if the hub takes it. */
  reportExportsSynced(): void {
    if (this.hubTakesExports) this.outbox?.mark(EXPORTS_SYNCED);
  }

  /** Whether the hub of this stream said, in its SyncDone, that it takes export reports (an older hub ends a stream on them). */
  get hubTakesExports(): boolean {
    return this.hubFeatures.includes(FEATURES.mcs);
  }

  /**
   * Asks the hub for a Work's contents on the open stream. Without one the request is dropped: the
   * next Hello asks for it (the runner gives the Work no hash until its contents arrive).
   */
  requestContents(key: string): void {
    if (this.stream === undefined) return;
    if (this.contentKeys.size === 0) setImmediate(() => this.flushContentRequests());
    this.contentKeys.add(key);
  }

  private flushContentRequests(): void {
    const keys = [...this.contentKeys];
    this.contentKeys.clear();
    for (let i = 0; i < keys.length; i += MAX_CONTENT_KEYS) {
      this.stream?.write({ kind: { $case: "contentRequest", value: { workKeys: keys.slice(i, i + MAX_CONTENT_KEYS) } } });
    }
  }

  /** Sends a heartbeat now if the stream has room (a missed one is replaced by the next). */
  heartbeat(hb: Heartbeat): void {
    if (this.synced) this.stream?.write({ kind: { $case: "heartbeat", value: hb } });
  }

  private open(): void {
    if (this.stopped) return;
    const { handlers, log } = this.opts;
    this.retired?.close();
    this.retired = undefined;
    const stream = this.client.connect();
    this.stream = stream;
    this.connects++;
    // One writer per stream: the member API counts by it what it queued on this stream.
    const memberApiWrite = (m: AgentMessage, flushed: () => void) => void stream.write(m, flushed);
    const outbox = new CoalescingOutbox((key) => {
      if (key.startsWith(EXPORT)) {
        const r = handlers.serviceExport?.(key.slice(EXPORT.length));
        return r === undefined || stream.write({ kind: { $case: "serviceExport", value: r } });
      }
      if (key === EXPORTS_SYNCED) {
        const m = handlers.serviceExportsSynced?.();
        return m === undefined || stream.write({ kind: { $case: "serviceExportsSynced", value: m } });
      }
      if (key.startsWith(METRICS)) {
        const m = handlers.workloadMetrics?.(key.slice(METRICS.length));
        return m === undefined || stream.write({ kind: { $case: "workloadMetrics", value: m } });
      }
      const s = handlers.status(key);
      return s === undefined ? true : stream.write({ kind: { $case: "workStatus", value: s } });
    });
    this.outbox = outbox;
    stream.on("drain", () => outbox.drained());
    stream.on("data", (m: ControlMessage) => {
      const kind = m.kind;
      switch (kind?.$case) {
        case "workUpsert":
          this.upserts++;
          for (const b of kind.value.manifests) this.manifestBytes += b.byteLength;
          handlers.upsert(kind.value);
          break;
        case "workDelete":
          handlers.delete(kind.value.workKey, kind.value.preserve, kind.value.reason || "Unspecified");
          break;
        case "interpreterCustomizations":
          handlers.customizations?.(kind.value);
          break;
        case "metricsWanted":
          handlers.metricsWanted?.(kind.value);
          break;
        case "liveRequest":
          void handlers.live(kind.value).then((res) => stream.write({ kind: { $case: "liveResponse", value: res } }));
          break;
        case "memberApiRequest": case "memberApiCredit": case "memberApiCancel": case "memberApiData":
          handlers.memberApi?.(kind, memberApiWrite);
          break;
        case "syncDone":
          this.synced = true;
          this.hubFeatures = kind.value.hubFeatures;
          this.attempt = 0;
          // Remembered across streams: a hub that says nothing (older) leaves the last word standing.
          if (kind.value.reconnectSpreadMs !== undefined) this.spreadMs = kind.value.reconnectSpreadMs;
          log.info({ works: kind.value.workCount }, "synced with the hub");
          handlers.syncDone(kind.value.workCount);
          break;
      }
    });
    let ended = false;
    const ended_ = (why: string, code?: number, retryAfterMs?: number) => {
      if (ended) return;
      ended = true;
      this.synced = false;
      this.hubFeatures = [];
      outbox.close();
      handlers.streamEnded?.();
      if (this.stream === stream) this.stream = undefined;
      if (this.stopped) return;
      // A hub that refused with a retry-after (its admission gate) gave this agent a slot: it comes
      // back then, and its own backoff does not grow meanwhile.
      const delay = reconnectDelay({ attempt: this.attempt, minBackoffMs: this.opts.minBackoffMs ?? AGENT_MIN_RECONNECT_BACKOFF_MS, maxBackoffMs: this.opts.maxBackoffMs ?? AGENT_MAX_RECONNECT_BACKOFF_MS, ...(retryAfterMs === undefined ? {} : { retryAfterMs }), ...(this.spreadMs === undefined ? {} : { spreadMs: this.spreadMs }), random: Math.random() });
      if (retryAfterMs === undefined) this.attempt++;
      else this.refusals++;
      const level = code === GrpcStatus.PERMISSION_DENIED || code === GrpcStatus.UNAUTHENTICATED ? "error" : retryAfterMs === undefined ? "warn" : "info";
      log[level]({ why, code, retryInMs: delay }, "hub stream ended; reconnecting");
      this.timer = setTimeout(() => this.open(), delay);
    };
    stream.on("error", (err: Error & { code?: number; details?: string; metadata?: Metadata }) => {
      const unavailable = err.code === GrpcStatus.UNAVAILABLE;
      // A replica over its share: a new connection, which the Service may route to another.
      if (unavailable && (err.metadata?.get(RECONNECT_ELSEWHERE_METADATA).length ?? 0) > 0) this.newChannel();
      ended_(err.details ?? err.message, err.code, unavailable ? retryAfterOf(err.metadata?.get(RETRY_AFTER_METADATA)) : undefined);
    });
    stream.on("end", () => ended_("the hub closed the stream"));
    stream.write({ kind: { $case: "hello", value: handlers.hello() } });
  }
}
