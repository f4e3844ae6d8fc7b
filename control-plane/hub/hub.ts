import { Metadata, type ServerDuplexStream, type ServerUnaryCall, status as GrpcStatus, type UntypedServiceImplementation } from "@grpc/grpc-js";
import type { Logger } from "pino";
import type { Cluster } from "../../shared/api/types.ts";
import type { AgentMessage, ControlMessage, InterpreterCustomizations, MetricsWanted, RenewRequest, RenewResponse } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { clusterOfSubject, clusterUidOfSubject } from "../../shared/pki.ts";
import { RECONNECT_ELSEWHERE_METADATA, RETRY_AFTER_METADATA } from "../../shared/reconnect.ts";
import { overShare } from "./fair-share.ts";
import { AgentSession } from "./agent-session.ts";
import type { SessionEvents } from "./session-events.ts";
import { DEFAULT_DELETION_BUDGET, type DeletionBudget, DeletionWindow } from "./deletion-brake.ts";
import type { RateLimiter } from "../../shared/rate-limiter.ts";
import { DEFAULT_INBOUND_RATE, type InboundRate, inboundBucket } from "./inbound-gate.ts";
import { certificateRefusal } from "./certificate-refusal.ts";
import { type AdmissionRate, reconnectSpreadMs } from "./admission-gate.ts";
import { AgentAdmissions } from "./agent-admissions.ts";
import { RpcError, unaryHandler } from "../rpc.ts";
import type { WorkStore } from "../works/work-store.ts";

/** Streams of one cluster that may wait for their Hello at once; more are refused (RESOURCE_EXHAUSTED). */
const MAX_STREAMS_AWAITING_HELLO = 4;

/** Signs a renewed certificate for a connected agent (the clusters part's Registrar). */
export interface CertificateRenewer {
  renew(cluster: string, uid: string | undefined, csr: string): Promise<string>;
}

/**
 * The AgentHub service: binds each stream to the cluster its client certificate names, refuses
 * streams until the Works are computed from synced caches, and keeps one session per cluster.
 */
export class Hub {
  private readonly sessions = new Map<string, AgentSession>();
  private readonly works: WorkStore;
  private readonly events: SessionEvents & { connected(cluster: string, connected: boolean): void };
  private readonly log: Logger;
  private readonly clusterNamed: (cluster: string) => Cluster | undefined;
  private readonly registrar: CertificateRenewer | undefined;
  private readonly rate: InboundRate;
  /** One token bucket per cluster, so that a new stream does not start with a full one. */
  private readonly buckets = new Map<string, RateLimiter>();
  /** Each cluster's deletion window, across its streams: a reconnect does not start a new one. */
  private readonly deletionWindows = new Map<string, DeletionWindow>();
  private readonly helloTimeoutMs: number | undefined;
  private readonly maxClusterNodes: number | undefined;
  private readonly memberApiMaxRequests: number | undefined;
  /** Streams per cluster that have not said Hello yet: a peer cannot hold many open for free. */
  private readonly awaitingHello = new Map<string, number>();
  private readonly allowCertsWithoutUid: boolean;
  private readonly deletionBudget: DeletionBudget | undefined;
  private readonly customizations: (() => InterpreterCustomizations) | undefined;
  private readonly metricsWanted: ((cluster: string) => MetricsWanted) | undefined;
  /** New agents admitted per second, streams and (gated-listener.ts) connections before TLS alike. */
  readonly admissions: AgentAdmissions;
  private readonly clusterCount: () => number;
  /** Streams sent to reconnect elsewhere: this replica held more than its share (fair-share.ts). */
  sentElsewhere = 0;
  /** The replicas this one knows of, itself included (set by the clusters part, from the cluster Leases; default 1: never refuse for share). */
  replicaCount: () => number = () => 1;

  constructor(opts: {
    works: WorkStore;
    events: SessionEvents & { connected(cluster: string, connected: boolean): void };
    clusterNamed: (cluster: string) => Cluster | undefined;
    /** Signs renewed certificates; without it (no CA key) Renew is refused. */
    registrar?: CertificateRenewer;
    /** The token bucket on each agent's messages (default DEFAULT_INBOUND_RATE). */
    rate?: InboundRate;
    /** How long a new stream may take to say Hello (default 30 s). */
    helloTimeoutMs?: number;
    /** --max-cluster-nodes (heartbeat-claims.ts). */
    maxClusterNodes?: number;
    /** --member-api-max-requests-per-cluster (issue 41; default 64). */
    memberApiMaxRequests?: number;
    /** Accept agent certificates bound to no Cluster uid (not revocable; for migration only). */
    allowCertsWithoutUid?: boolean;
    /** The blast-radius brake's budget per cluster (default DEFAULT_DELETION_BUDGET). */
    deletionBudget?: DeletionBudget;
    /** The interpreter customizations agents run, as sent (default: none). */
    customizations?: () => InterpreterCustomizations;
    /**
     * The workloads each cluster's agent summarises for autoscaling (issue 22), as sent
     * (shared/workload-metrics-wire.ts's metricsWanted); default: none. Call
     * metricsWantedChanged(cluster) when a cluster's list changes.
     */
    metricsWanted?: (cluster: string) => MetricsWanted;
    /** Issue 25: new streams admitted per second (default: no limit); beyond it, UNAVAILABLE with retry-after-ms. */
    admission?: AdmissionRate;
    /** The fleet's size (Clusters), for the reconnect spread told each agent (default: the agents streaming here). */
    clusterCount?: () => number;
    /** The longest reconnect spread told an agent (default 15 s: half the default cluster failure threshold). */
    reconnectSpreadCapMs?: number;
    log: Logger;
  }) {
    this.admissions = new AgentAdmissions(opts.admission);
    this.clusterCount = opts.clusterCount ?? (() => this.sessions.size);
    const spreadCapMs = opts.reconnectSpreadCapMs ?? 15_000;
    this.metricsWanted = opts.metricsWanted;
    this.memberApiMaxRequests = opts.memberApiMaxRequests;
    this.customizations = opts.customizations;
    this.deletionBudget = opts.deletionBudget;
    this.allowCertsWithoutUid = opts.allowCertsWithoutUid ?? false;
    this.works = opts.works;
    this.clusterNamed = opts.clusterNamed;
    this.registrar = opts.registrar;
    this.rate = opts.rate ?? DEFAULT_INBOUND_RATE;
    this.helloTimeoutMs = opts.helloTimeoutMs;
    this.maxClusterNodes = opts.maxClusterNodes;
    // Agents are told the window to spread a reconnect over only when admissions are limited.
    this.events = this.admissions.limited ? { ...opts.events, reconnectSpreadMs: () => reconnectSpreadMs(this.clusterCount(), this.admissions.rate, spreadCapMs) } : opts.events;
    this.log = opts.log;
  }

  /** The grpc-js implementation of AgentHub. */
  service(): UntypedServiceImplementation {
    return {
      connect: (call: ServerDuplexStream<AgentMessage, ControlMessage>) => this.connect(call),
      renew: unaryHandler<RenewRequest, RenewResponse>(async (call) => ({ certificate: await this.renew(call) })),
    };
  }

  /** How long until the storm this replica is in has come back (0: none): AgentAdmissions.backlogMs. */
  admissionBacklogMs(): number {
    return this.admissions.backlogMs();
  }

  /** Streams refused by the admission gate (told to come back later), for metrics. */
  get refusedAdmissions(): number {
    return this.admissions.refused;
  }

  /** Clusters with a live stream. */
  connectedClusters(): string[] {
    return [...this.sessions.keys()].sort();
  }

  session(cluster: string): AgentSession | undefined {
    return this.sessions.get(cluster);
  }

  /** Ends a cluster's stream (its Cluster is gone: unjoined). */
  disconnect(cluster: string, why: string): void {
    this.sessions.get(cluster)?.fail(GrpcStatus.PERMISSION_DENIED, why);
    this.buckets.delete(cluster);
    // A window still counting is kept: a cluster joined again under the name gets no new allowance.
    if (this.deletionWindows.get(cluster)?.idle() === true) this.deletionWindows.delete(cluster);
  }

  /** The interpreter customizations changed: every agent that takes them and holds another set is sent the new one. */
  customizationsChanged(): void {
    for (const s of this.sessions.values()) s.listChanged("customizations");
  }

  /** The cluster's MetricsWanted changed: its agent, if it takes lists and holds another, is sent the new one. */
  metricsWantedChanged(cluster: string): void {
    this.sessions.get(cluster)?.listChanged("metricsWanted");
  }

  /** Closes every stream (shutdown): agents reconnect to another replica or later. */
  closeAll(): void {
    for (const s of [...this.sessions.values()]) s.fail(GrpcStatus.UNAVAILABLE, "control plane is shutting down");
  }

  private connect(call: ServerDuplexStream<AgentMessage, ControlMessage>): void {
    const cluster = clusterOfSubject(call.getAuthContext()?.sslPeerCertificate?.subject);
    if (cluster === undefined) {
      call.emit("error", { code: GrpcStatus.UNAUTHENTICATED, details: "a client certificate issued to an agent (O=flotilla:agents) is required" });
      return;
    }
    const refused = this.refusal(cluster, clusterUidOfSubject(call.getAuthContext()?.sslPeerCertificate?.subject));
    if (refused !== undefined) {
      call.emit("error", { code: GrpcStatus.PERMISSION_DENIED, details: refused });
      return;
    }
    if (!this.works.synced) {
      call.emit("error", { code: GrpcStatus.UNAVAILABLE, details: "the control plane's caches are not synced yet; retry" });
      return;
    }
    // More than its share here: a new connection goes to a random replica (the Service), maybe another.
    if (overShare({ connectedHere: this.sessions.size, clusters: this.clusterCount(), replicas: this.replicaCount(), alreadyHere: this.sessions.has(cluster) })) {
      this.sentElsewhere++;
      const metadata = new Metadata();
      metadata.set(RECONNECT_ELSEWHERE_METADATA, "1");
      metadata.set(RETRY_AFTER_METADATA, String(250 + Math.floor(Math.random() * 750)));
      call.emit("error", { code: GrpcStatus.UNAVAILABLE, details: `this replica holds ${this.sessions.size} agents, more than its share among ${this.replicaCount()} replicas; reconnect elsewhere`, metadata });
      return;
    }
    // After the checks that cost nothing: only a stream that may connect takes an admission (or used its connection's).
    const admission = this.admissions.admitStream(call.getPeer());
    if (!admission.admit) {
      const metadata = new Metadata();
      metadata.set(RETRY_AFTER_METADATA, String(admission.retryAfterMs));
      call.emit("error", { code: GrpcStatus.UNAVAILABLE, details: `this replica admits ${this.admissions.rate.perSecond} agents per second; retry in ${admission.retryAfterMs} ms`, metadata });
      return;
    }
    const waiting = this.awaitingHello.get(cluster) ?? 0;
    if (waiting >= MAX_STREAMS_AWAITING_HELLO) {
      call.emit("error", { code: GrpcStatus.RESOURCE_EXHAUSTED, details: `${waiting} streams of cluster ${cluster} have not said Hello yet; retry later` });
      return;
    }
    this.awaitingHello.set(cluster, waiting + 1);
    let awaiting = true;
    const helloOrClose = () => {
      if (!awaiting) return;
      awaiting = false;
      const n = (this.awaitingHello.get(cluster) ?? 1) - 1;
      if (n > 0) this.awaitingHello.set(cluster, n);
      else this.awaitingHello.delete(cluster);
    };
    const log = this.log.child({ cluster });
    const session: AgentSession = new AgentSession({
      cluster,
      call,
      works: this.works,
      events: this.events,
      log,
      bucket: this.bucketOf(cluster),
      helloTimeoutMs: this.helloTimeoutMs,
      ...(this.maxClusterNodes === undefined ? {} : { maxClusterNodes: this.maxClusterNodes }),
      ...(this.deletionBudget ? { deletionBudget: this.deletionBudget } : {}),
      deletionWindow: this.deletionWindowOf(cluster),
      ...(this.memberApiMaxRequests === undefined ? {} : { memberApiMaxRequests: this.memberApiMaxRequests }),
      ...(this.customizations ? { customizations: this.customizations } : {}),
      ...(this.metricsWanted ? { metricsWanted: () => this.metricsWanted?.(cluster) ?? { contentHash: "", workloads: [] } } : {}),
      // Only a stream that passed its Hello replaces the cluster's current one.
      onHello: () => {
        helloOrClose();
        this.admissions.back(cluster);
        const previous = this.sessions.get(cluster);
        this.sessions.set(cluster, session);
        previous?.fail(GrpcStatus.ABORTED, "a newer stream for this cluster replaced this one");
        this.events.connected(cluster, true);
      },
      onClosed: () => {
        helloOrClose();
        if (this.sessions.get(cluster) === session) {
          this.sessions.delete(cluster);
          this.admissions.lost(cluster);
          this.events.connected(cluster, false);
          log.info("agent disconnected");
        }
      },
    });
  }

  private deletionWindowOf(cluster: string): DeletionWindow {
    let w = this.deletionWindows.get(cluster);
    if (w === undefined) {
      w = new DeletionWindow(this.deletionBudget ?? DEFAULT_DELETION_BUDGET);
      this.deletionWindows.set(cluster, w);
    }
    return w;
  }

  private bucketOf(cluster: string): RateLimiter {
    let b = this.buckets.get(cluster);
    if (b === undefined) {
      b = inboundBucket(this.rate);
      this.buckets.set(cluster, b);
    }
    return b;
  }

  /** Why a certificate for this cluster (bound to this registration uid, if any) may not connect. */
  private refusal(cluster: string, uid: string | undefined): string | undefined {
    const refused = certificateRefusal(cluster, uid, this.clusterNamed(cluster), this.allowCertsWithoutUid);
    if (refused === undefined && uid === undefined) this.log.warn({ cluster }, "accepted an agent certificate bound to no Cluster uid (it cannot be revoked; re-issue it with flotilla certs agent --kubeconfig)");
    return refused;
  }

  private async renew(call: ServerUnaryCall<RenewRequest, RenewResponse>): Promise<string> {
    const subject = call.getAuthContext()?.sslPeerCertificate?.subject;
    const cluster = clusterOfSubject(subject);
    if (cluster === undefined) throw new RpcError(GrpcStatus.UNAUTHENTICATED, "renewal needs the agent's current certificate");
    if (this.registrar === undefined) throw new RpcError(GrpcStatus.UNIMPLEMENTED, "this control plane cannot sign certificates (started without --ca-key)");
    const refused = this.refusal(cluster, clusterUidOfSubject(subject));
    if (refused !== undefined) throw new RpcError(GrpcStatus.PERMISSION_DENIED, refused);
    return this.registrar.renew(cluster, clusterUidOfSubject(subject), call.request.csr);
  }
}
