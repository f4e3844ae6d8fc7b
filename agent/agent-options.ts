// What the agent is started with (main.ts builds it from the flags), and what a started agent offers
// its caller and tests.
import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import type { AppliedStore } from "./applied/applied-store.ts";
import type { RegistrationOptions } from "./hub/credentials.ts";
import type { HubConnection } from "./hub/hub-connection.ts";
import type { AgentCustomizations } from "./interpreter/customizations.ts";
import type { WorkRunner } from "./work/work-runner.ts";

export interface AgentOptions {
  kc: KubeConfig;
  log: Logger;
  clusterName: string;
  hubAddress: string;
  hubServerName?: string;
  /** The hub's CA, and the agent's certificate files; without them it uses (or fills) the credentials Secret. */
  tls: { caFile: string; certFile?: string; keyFile?: string };
  /** The Secret in stateNamespace where a registered agent keeps its key and certificate. */
  credentialsSecret: string;
  /** Registration with a bootstrap token, when there are no credentials yet. */
  registration?: RegistrationOptions;
  /** Renew a registered agent's certificate this long before it expires. */
  renewBeforeMs: number;
  stateNamespace: string;
  heartbeatMs: number;
  /** How often the wanted workloads' pods are summarised (metrics.k8s.io has no watch). */
  metricsIntervalMs?: number;
  /** --horizontal-pod-autoscaler-cpu-initialization-period and …-initial-readiness-delay (default 5 min and 30 s). */
  hpaReadiness?: { cpuInitializationPeriodMs: number; initialReadinessDelayMs: number };
  healthListen: string;
  workers: number;
  /** --kept-recheck-interval: how often a Work whose removal keeps a Namespace or CRD is tried again (default 30 s). */
  keptRecheckMs?: number;
  /** --clusterset-id (issue 40): the clusterset.k8s.io ClusterProperty; default from the fleet's CA. */
  clustersetId?: string;
  /** --max-reconnect-backoff: the longest wait between attempts to reach the hub (default and most AGENT_MAX_RECONNECT_BACKOFF_MS). */
  maxReconnectBackoffMs?: number;
  /** Issue 41: --member-api-writes (callers' writes, exec, port-forward through the member API) and --member-api-max-requests. */
  memberApi?: { allowWrites: boolean; maxRequests: number };
}

export interface RunningAgent {
  connection: HubConnection;
  customizations: AgentCustomizations;
  runner: WorkRunner;
  applied: AppliedStore;
  healthPort: number | undefined;
  stop(): Promise<void>;
}
