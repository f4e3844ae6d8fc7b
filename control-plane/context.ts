// What the control plane's parts share (clients, caches, in-memory stores, leadership, events),
// and the shape of a part as the assembly (control-plane.ts) starts and stops it.
import type { DeletionBudget } from "./hub/deletion-brake.ts";
import { EventEmitter } from "node:events";
import { type AgentCustomizationSet, EMPTY_AGENT_SET, encodeAgentSet } from "../shared/interpreter/agent-customizations.ts";
import type { ServiceDefinition, UntypedServiceImplementation } from "@grpc/grpc-js";
import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import type { Controller } from "../shared/controller.ts";
import { Discovery } from "../shared/discovery.ts";
import type { Heartbeat, InterpreterCustomizations, MetricsWanted, ServiceExportReport, WorkStatus } from "../shared/gen/flotilla/v1alpha1/agent.ts";
import type { WorkloadMetricsReport } from "../shared/workload-metrics-wire.ts";
import { KubeRest } from "../shared/kube-rest.ts";
import { Caches } from "./caches/caches.ts";
import { InterpreterRegistry } from "../shared/interpreter/registry.ts";
import { Registrar } from "./clusters/registration.ts";
import { TemplateInformers } from "./detector/template-informers.ts";
import type { QuotaGuard } from "./detector/template-placement.ts";
import { ScheduleOutcomes } from "./scheduling/schedule-outcomes.ts";
import { EventRecorder } from "./status/event-recorder.ts";
import { StatusStore } from "./status/status-store.ts";
import { WorkStore } from "./works/work-store.ts";
import { RevisionStore } from "./works/revision-store.ts";

export interface ControlPlaneOptions {
  kc: KubeConfig;
  log: Logger;
  /** host:port for the agent hub (port 0 picks one). */
  grpcListen: string;
  tls: { caPem: string; certPem: string; keyPem: string };
  /** host:port for /healthz, /readyz, /metrics; empty disables. */
  healthListen: string;
  installCrds: boolean;
  clusterFailureMs: number;
  clusterSuccessMs: number;
  /** How often the heartbeat time and capacity alone are written to a Cluster's status (the report interval). */
  clusterStatusUpdateMs: number;
  /** How often the replica that hears a cluster's agent renews the cluster's Lease. */
  clusterLeaseRenewMs: number;
  /** The namespace of the clusters' Leases (created at start if missing). */
  clusterLeaseNamespace: string;
  /** After a start or a leader change, a Ready cluster's old heartbeat is not judged for this long. */
  clusterStartupGraceMs: number;
  /** A not-Ready cluster keeps its Divided copy at least this long, and until the replacement is Available. */
  gracefulEvictionPeriodMs: number;
  /** --horizontal-pod-autoscaler-sync-period: how often each FederatedHPA runs (default 15 s). */
  federatedHpaSyncPeriodMs?: number;
  /** --concurrent-resource-template-syncs: the binding controller's workers (default 16). */
  templateSyncs?: number;
  /** --unschedulable-threshold (ms; 0: replicas never move off Unschedulable pods). */
  unschedulableThresholdMs?: number;
  /** --cluster-ready-settle-period: a cluster Ready again this long is told to remove what its placement dropped (default 10 s). */
  clusterReadySettleMs?: number;
  /** --dependency-release-grace-period: a dependency every parent let go this long loses its binding (default 10 s). */
  dependencyReleaseGraceMs?: number;
  /** --grpc-keepalive-interval and --grpc-keepalive-timeout of the agent hub (default 30 s and 10 s). */
  grpcKeepalive?: { intervalMs: number; timeoutMs: number };
  /** --binding-status-entries: over this many targets, a binding lists only the clusters not as desired (default 100). */
  bindingStatusEntries?: number;
  /** --max-status-bytes-per-cluster: what one cluster's Work statuses may hold in memory (default DEFAULT_CLUSTER_STATUS_BYTES). */
  maxStatusBytesPerCluster?: number;
  /** --max-cluster-nodes: the most nodes a heartbeat may claim (default CLAIM_BOUNDS.nodes). */
  maxClusterNodes?: number;
  /** The blast-radius brake (--deletion-budget-percent, --deletion-budget-min; a 60 s window). */
  deletionBudget?: DeletionBudget;
  /** Lease-based leader election; without it this replica always leads. */
  leaderElection?: {
    namespace: string;
    identity: string;
    leaseDurationMs: number;
    renewDeadlineMs: number;
    retryPeriodMs: number;
    /** Renew in a worker thread of its own, which agent traffic on the main thread cannot delay. */
    thread?: boolean;
  };
  /** Called when this replica loses leadership (the process should exit and be restarted). */
  onLostLeadership?: () => void;
  /** The token bucket on each cluster's agent messages (default: 200 a second, bursts of 2000). */
  agentMessageRate?: { qps: number; burst: number };
  /** New agent streams admitted per second per replica (issue 25, hub/admission-gate.ts); default: no limit. */
  agentAdmissions?: { perSecond: number; burst: number };
  /** Issue 42: with admissions limited, a new connection's TLS handshake waits for its admission too (hub/gated-listener.ts); default true. */
  agentAdmissionBeforeTls?: boolean;
  /** The largest gRPC message the hub accepts, in bytes (default 4 MiB). */
  maxReceiveMessageBytes?: number;
  /** Registration of new members and renewal of agent certificates; needs the CA's key. */
  registration?: { caKeyPem: string; listen: string; tokenNamespace: string; certValidityMs: number };
  /** The hub accepts agent certificates bound to no Cluster uid (which cannot be revoked); for migration only. */
  allowAgentCertsWithoutUid?: boolean;
  /** --require-acceptance: a new Cluster receives nothing until an admin accepts it (spec.hubAcceptsClient). */
  requireAcceptance?: boolean;
  /** --allow-no-execute-taint-policy (Karmada's webhook flag): a ClusterTaintPolicy may add NoExecute taints; without it such a policy is not applied. */
  allowNoExecuteTaintPolicy?: boolean;
  /** --enable-no-execute-taint-eviction (Karmada's): an untolerated NoExecute taint moves workloads off a cluster (gracefully); without it, it acts as NoSchedule. */
  enableNoExecuteTaintEviction?: boolean;
  /** --admin-revocation-list: the file of revoked admin and viewer certificates (shared/revocation-list.ts); undefined: none. */
  adminRevocationList?: string;
  /**
   * --peer-address: host:port where the other replicas reach this one's gRPC listener (written
   * into the cluster Leases it holds; the leader collects workload summaries there, peers/).
   * Undefined: none, and the leader sees only the summaries of agents streaming to itself.
   */
  peerAddress?: string;
  /**
   * The validating admission webhook (webhook/): --webhook-listen, and how the apiserver reaches
   * it (--webhook-url or --webhook-service; neither: the listen address). Undefined or an empty
   * listen: off, and a configuration applied earlier is left as it is.
   */
  webhook?: { listen: string; url?: string; service?: string; clientAuth?: { caPem: string; names: string[] } };
  /**
   * The read-only web dashboard (dashboard/, issue 24): --dashboard-address, --dashboard-url (the
   * address browsers use, in the login links; default https://<listen address>),
   * --dashboard-session-ttl. Undefined or an empty listen: off.
   */
  dashboard?: { listen: string; url?: string; sessionTtlMs: number };
  /**
   * The member API (member-api/, issue 41): --member-api-address, --member-api-url (where callers
   * reach it; default https://<listen address>), --member-api-max-requests-per-cluster. Undefined: off.
   */
  memberApi?: { listen: string; url?: string; maxRequestsPerCluster: number; headTimeoutMs?: number };
  /**
   * --cluster-profile-namespace (issue 41): where the leader publishes one SIG Multicluster
   * ClusterProfile per member Cluster (cluster-profiles/). Undefined or "": none published.
   */
  clusterProfileNamespace?: string;
}

/**
 * What one part tells the others, in this process. Listeners run synchronously, in the order the
 * parts subscribed (the order of the assembly's list).
 */
export interface ControlPlaneEvents {
  /** A template (by template key) or something it is rendered from changed. */
  templateChanged: [key: string];
  /** An agent's stream opened or closed on this replica. */
  agentStreamChanged: [cluster: string];
  /** An agent reported the state of one of its Works. */
  agentStatus: [cluster: string, status: WorkStatus];
  /** The Works an agent holds, from the Hello of each new stream. */
  agentHolds: [cluster: string, keys: ReadonlySet<string>];
  /** An agent's heartbeat arrived on this replica. */
  heartbeat: [cluster: string, heartbeat: Heartbeat, problems: string[]];
  /** A Cluster became Ready or not Ready. */
  clusterReadyChanged: [cluster: string];
  /** The blast-radius brake held a deletion of a Work for a cluster (this replica holds its stream). */
  deletionHeld: [cluster: string, key: string];
  /** The customizations agents run (ctx.agentCustomizations) changed: agents are sent the new set. */
  agentCustomizationsChanged: [];
  /** An agent's summary of a workload's pods for autoscaling arrived on this replica (issue 22). */
  workloadMetrics: [cluster: string, report: WorkloadMetricsReport];
  /** Issue 40: an agent's report of one of its ServiceExports arrived on this replica (within bounds). */
  serviceExport: [cluster: string, report: ServiceExportReport];
  /** Issue 40: an agent listed every export its cluster holds (its watches have synced). */
  serviceExportsSynced: [cluster: string, exports: string[]];
  /** A cluster's list in ctx.metricsWanted changed: its agent is sent the new one. */
  metricsWantedChanged: [cluster: string];
  /** The leader collected a summary another replica took from its agent, taken there at `at` (this replica's clock). */
  peerWorkloadMetrics: [cluster: string, report: WorkloadMetricsReport, at: number];
}

/** Everything the parts share. Built once by createContext; the parts never replace its members. */
export interface ControlPlaneContext {
  opts: ControlPlaneOptions;
  log: Logger;
  rest: KubeRest;
  caches: Caches;
  /** Informers on the template kinds that policies and bindings name (the detector's). */
  templates: TemplateInformers;
  /** The rendered Works per cluster (written by works/, served by hub/). */
  works: WorkStore;
  /** Agents' reports per Work (written by status/). */
  statuses: StatusStore;
  /** Writes Kubernetes Events, coalesced and rate-limited for the whole process (status/ and autoscaling-controller/ record through it). */
  recorder: EventRecorder;
  /** Why a template's schedule fell short (written by the detector, read by status/). */
  outcomes: ScheduleOutcomes;
  /** Signs agent certificates: registration and renewal; undefined without the CA's key. */
  registrar: Registrar | undefined;
  /** This replica's name: its Lease identity and its status field manager. */
  identity: string;
  isLeader(): boolean;
  events: EventEmitter<ControlPlaneEvents>;
  /** Each kind's interpreter: ResourceInterpreterCustomizations over the native ones (issue 21). */
  interpreters: InterpreterRegistry;
  /** Templates' rollout revisions (issue 23), from an informer; the leader's rollout controller writes them. */
  revisions: RevisionStore;
  /** What of the customizations runs in agents, as sent to them (written by interpreter/, served by hub/). */
  agentCustomizations: { set: AgentCustomizationSet; message: InterpreterCustomizations };
  /**
   * Per cluster, the workloads its agent summarises for autoscaling, as sent (build each with
   * shared/workload-metrics-wire.ts's metricsWanted, then emit metricsWantedChanged); served by hub/.
   */
  metricsWanted: Map<string, MetricsWanted>;
  /** Issue 26: what may hold a schedule back (set by quota/, asked by the detector's binding controller). */
  scheduleGuards: { quota?: QuotaGuard };
}

/** One concern's running part. Every member is optional; the assembly calls them in its order. */
export interface Part {
  /** Runs once the caches are synced, before any controller starts (in the assembly's order). */
  synced?(): Promise<void> | void;
  /** Controllers every replica runs. */
  controllers?: Controller[];
  /** Controllers only the leader runs. */
  leaderControllers?: Controller[];
  /** Runs when this replica starts leading, after the leader controllers started. */
  startedLeading?(): void;
  /** Services on the mTLS listener that agents and flotillactl reach. */
  services?: { definition: ServiceDefinition; implementation: UntypedServiceImplementation }[];
  /** Opens this part's own listeners, once the mTLS listener is bound. */
  serve?(): Promise<void>;
  /** Starts stopping; called before the mTLS listener shuts down and controllers stop. */
  stop?(): Promise<void> | void;
}

/**
 * Clients, caches and stores, not yet started; the leadership flag is the caller's, and so is the
 * write fence (a reason this replica may not write now: see LeaderElector.writeFence).
 */
export function createContext(opts: ControlPlaneOptions, isLeader: () => boolean, writeFence?: () => string | undefined): ControlPlaneContext {
  const { kc, log } = opts;
  const identity = opts.leaderElection?.identity ?? `replica-${process.pid}`;
  // The audit log of the control cluster tells the replicas apart by their user agent.
  const rest = new KubeRest(kc, { maxSockets: 32, userAgent: `flotilla-control-plane/${identity}`, writeFence });
  const caches = new Caches(kc, rest, log);
  caches.noExecuteEviction = opts.enableNoExecuteTaintEviction ?? false;
  const events = new EventEmitter<ControlPlaneEvents>();
  const templates = new TemplateInformers({ kc, rest, discovery: new Discovery(rest), log, onChange: (k) => events.emit("templateChanged", k) });
  const registrar =
    opts.registration === undefined
      ? undefined
      : new Registrar({
          rest,
          ca: { certPem: opts.tls.caPem, keyPem: opts.registration.caKeyPem },
          tokenNamespace: opts.registration.tokenNamespace,
          certValidityMs: opts.registration.certValidityMs,
          clusterNamed: (n) => caches.clusters.get(n),
          log: log.child({ component: "registration" }),
        });
  return {
    opts,
    log,
    rest,
    caches,
    templates,
    works: new WorkStore(),
    revisions: new RevisionStore({ rest, namespace: opts.clusterLeaseNamespace, informer: caches.controllerRevisions, secrets: caches.revisionSecrets }),
    statuses: new StatusStore(opts.maxStatusBytesPerCluster === undefined ? {} : { maxBytesPerCluster: opts.maxStatusBytesPerCluster }),
    recorder: new EventRecorder({ rest, log: log.child({ component: "events" }) }),
    outcomes: new ScheduleOutcomes(),
    registrar,
    identity,
    isLeader,
    events,
    interpreters: new InterpreterRegistry(),
    agentCustomizations: { set: EMPTY_AGENT_SET, message: encodeAgentSet(EMPTY_AGENT_SET) },
    metricsWanted: new Map(),
    scheduleGuards: {},
  };
}
