import { type ServerDuplexStream, status as GrpcStatus, type UntypedServiceImplementation } from "@grpc/grpc-js";
import type { Logger } from "pino";
import type { AgentMessage, ControlMessage } from "../shared/gen/flotilla/v1alpha1/agent.ts";
import { clusterOfSubject } from "../shared/pki.ts";
import { AgentSession, type SessionEvents } from "./agent-session.ts";
import type { WorkStore } from "./work-store.ts";

/**
 * The AgentHub service: binds each stream to the cluster its client certificate names, refuses
 * streams until the Works are computed from synced caches, and keeps one session per cluster.
 */
export class Hub {
  private readonly sessions = new Map<string, AgentSession>();
  private readonly works: WorkStore;
  private readonly events: SessionEvents & { connected(cluster: string, connected: boolean): void };
  private readonly log: Logger;
  private readonly clusterExists: (cluster: string) => boolean;

  constructor(opts: {
    works: WorkStore;
    events: SessionEvents & { connected(cluster: string, connected: boolean): void };
    clusterExists: (cluster: string) => boolean;
    log: Logger;
  }) {
    this.works = opts.works;
    this.clusterExists = opts.clusterExists;
    this.events = opts.events;
    this.log = opts.log;
  }

  /** The grpc-js implementation of AgentHub. */
  service(): UntypedServiceImplementation {
    return { connect: (call: ServerDuplexStream<AgentMessage, ControlMessage>) => this.connect(call) };
  }

  /** Clusters with a live stream. */
  connectedClusters(): string[] {
    return [...this.sessions.keys()].sort();
  }

  session(cluster: string): AgentSession | undefined {
    return this.sessions.get(cluster);
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
    if (!this.clusterExists(cluster)) {
      call.emit("error", { code: GrpcStatus.PERMISSION_DENIED, details: `cluster ${JSON.stringify(cluster)} is not registered (no Cluster object)` });
      return;
    }
    if (!this.works.synced) {
      call.emit("error", { code: GrpcStatus.UNAVAILABLE, details: "the control plane's caches are not synced yet; retry" });
      return;
    }
    const log = this.log.child({ cluster });
    const session: AgentSession = new AgentSession({
      cluster,
      call,
      works: this.works,
      events: this.events,
      log,
      // Only a stream that passed its Hello replaces the cluster's current one.
      onHello: () => {
        const previous = this.sessions.get(cluster);
        this.sessions.set(cluster, session);
        previous?.fail(GrpcStatus.ABORTED, "a newer stream for this cluster replaced this one");
        this.events.connected(cluster, true);
      },
      onClosed: () => {
        if (this.sessions.get(cluster) === session) {
          this.sessions.delete(cluster);
          this.events.connected(cluster, false);
          log.info("agent disconnected");
        }
      },
    });
  }
}
