// `flotilla agent`: runs in a member cluster, pulls its Works from the hub, applies them.
import { FlagError, type FlagSpec, type FlagValues, positiveFlag } from "../shared/flags.ts";
import { loadKubeConfig } from "../shared/kubeconfig.ts";
import { createLogger } from "../shared/logger.ts";
import { waitForSignal } from "../shared/signals.ts";
import { maxReconnectBackoffProblem } from "../shared/reconnect.ts";
import { startAgent } from "./agent.ts";
import type { RegistrationOptions } from "./hub/credentials.ts";

export const agentFlags: FlagSpec[] = [
  { name: "cluster-name", type: "string", env: "FLOTILLA_CLUSTER_NAME", required: true, help: "the member cluster this agent serves; must match its client certificate" },
  { name: "hub-address", type: "string", env: "FLOTILLA_HUB_ADDRESS", required: true, help: "host:port of the control plane's agent hub" },
  { name: "hub-server-name", type: "string", env: "FLOTILLA_HUB_SERVER_NAME", help: "the name in the hub's certificate, when it differs from the address's host" },
  { name: "ca-cert", type: "string", env: "FLOTILLA_CA_CERT", required: true, help: "PEM file of the CA that signed the hub's certificate" },
  { name: "tls-cert", type: "string", env: "FLOTILLA_TLS_CERT", help: "PEM file of this agent's client certificate (CN = cluster name); without it the agent uses --credentials-secret" },
  { name: "tls-key", type: "string", env: "FLOTILLA_TLS_KEY", help: "PEM file of this agent's private key" },
  { name: "credentials-secret", type: "string", default: "flotilla-agent-credentials", help: "Secret in --state-namespace where a registered agent keeps its key and certificate" },
  { name: "bootstrap-token", type: "string", env: "FLOTILLA_BOOTSTRAP_TOKEN", help: "register this cluster with this token (from `flotillactl token create`) when it has no credentials yet" },
  { name: "registration-address", type: "string", env: "FLOTILLA_REGISTRATION_ADDRESS", help: "host:port of the control plane's registration listener (default: the hub's host, port 9444)" },
  { name: "region", type: "string", env: "FLOTILLA_REGION", help: "the cluster's region, set on its Cluster at registration" },
  { name: "zone", type: "string", env: "FLOTILLA_ZONE", help: "the cluster's zone, set at registration" },
  { name: "provider", type: "string", env: "FLOTILLA_PROVIDER", help: "the cluster's provider, set at registration" },
  { name: "renew-before", type: "duration", default: "720h", help: "renew a registered agent's certificate this long before it expires (and never before half its life)" },
  { name: "kubeconfig", type: "string", env: "KUBECONFIG", help: "kubeconfig of the member cluster (default: in-cluster service account, else ~/.kube/config)" },
  { name: "state-namespace", type: "string", default: "flotilla-system", help: "namespace in the member where the agent keeps its applied-work records" },
  { name: "heartbeat-interval", type: "duration", default: "10s", help: "how often the agent reports cluster health and capacity" },
  { name: "metrics-interval", type: "duration", default: "15s", help: "how often the agent summarises the pods of the workloads the hub autoscales (metrics.k8s.io has no watch)" },
  { name: "horizontal-pod-autoscaler-cpu-initialization-period", type: "duration", default: "5m", help: "for this long after a pod starts, its CPU sample counts toward a FederatedHPA only while it is Ready and the sample was taken one metrics window after its last readiness change (kube-controller-manager's flag and default, as Karmada's; the agent applies it, since the summaries it sends carry no per-pod times)" },
  { name: "horizontal-pod-autoscaler-initial-readiness-delay", type: "duration", default: "30s", help: "past the CPU initialization period, a pod that is not Ready counts toward a FederatedHPA's CPU only if it became not Ready later than this after it started, so was Ready once (kube-controller-manager's flag and default, as Karmada's)" },
  { name: "health-listen", type: "string", default: "0.0.0.0:8081", help: 'host:port for /healthz, /readyz, /metrics ("" disables)' },
  { name: "workers", type: "int", default: "8", help: "Works applied in parallel" },
  { name: "max-reconnect-backoff", type: "duration", default: "30s", help: "the longest the agent backs off between attempts to reach the hub (exponential from 500ms with full jitter, for its connection and its stream; a hub's retry-after or reconnect spread, which the hub sets, is waited for as told); at most 30s, which the control plane counts on when it judges clusters after a restart" },
  { name: "clusterset-id", type: "string", env: "FLOTILLA_CLUSTERSET_ID", help: 'the clusterset this cluster belongs to, written as the About API\'s ClusterProperty clusterset.k8s.io (KEP-2149; the cluster\'s own id, cluster.clusterset.k8s.io, is --cluster-name); default "flotilla-" and 16 hex of the SHA-256 of the fleet\'s CA certificate, the same in every member of the fleet' },
  { name: "member-api-writes", type: "bool", env: "FLOTILLA_MEMBER_API_WRITES", default: "false", help: "let admins of the control plane write to this member through its member API (issue 41): create, update, patch, delete, exec, attach, port-forward and proxy, always as the caller (impersonated flotilla:admin:<user> in group flotilla:admins, so this member's RBAC decides and its audit log names them). Off: every such request is answered 403; reads go on" },
  { name: "member-api-max-requests", type: "int", default: "64", help: "member API requests (issue 41) this agent carries at once, watches and log streams included; more are answered 429 with Retry-After" },
  { name: "kept-recheck-interval", type: "duration", default: "30s", help: "a removed Work whose Namespace or CRD is kept (it holds objects Flotilla does not manage or another Work places; the binding says which) is tried again this often, and goes once they are gone" },
];

/** --max-reconnect-backoff, refused outside what the control plane allows for (maxReconnectBackoffProblem). */
function maxReconnectBackoffFlag(flags: FlagValues): number {
  const v = flags["max-reconnect-backoff"] as number;
  const problem = maxReconnectBackoffProblem(v);
  if (problem !== undefined) throw new FlagError(`--max-reconnect-backoff ${problem}`);
  return v;
}

/** Registration options from the flags, when a bootstrap token is given. */
function registrationOf(flags: FlagValues): RegistrationOptions | undefined {
  const token = flags["bootstrap-token"] as string | undefined;
  if (token === undefined || token === "") return undefined;
  const hub = flags["hub-address"] as string;
  const host = hub.lastIndexOf(":") > 0 ? hub.slice(0, hub.lastIndexOf(":")) : hub;
  const str = (name: string) => (flags[name] as string | undefined) || undefined;
  return {
    address: str("registration-address") ?? `${host}:9444`,
    ...(str("hub-server-name") ? { serverName: str("hub-server-name") } : {}),
    token,
    ...(str("region") ? { region: str("region") } : {}),
    ...(str("zone") ? { zone: str("zone") } : {}),
    ...(str("provider") ? { provider: str("provider") } : {}),
  };
}

/** Runs the agent until SIGTERM/SIGINT. */
export async function runAgent(flags: FlagValues): Promise<void> {
  const log = createLogger("flotilla-agent").child({ cluster: flags["cluster-name"] });
  if (Boolean(flags["tls-cert"]) !== Boolean(flags["tls-key"])) throw new FlagError("--tls-cert and --tls-key go together");
  const agent = await startAgent({
    kc: loadKubeConfig(flags.kubeconfig as string | undefined),
    log,
    clusterName: flags["cluster-name"] as string,
    hubAddress: flags["hub-address"] as string,
    hubServerName: flags["hub-server-name"] as string | undefined,
    tls: { caFile: flags["ca-cert"] as string, certFile: flags["tls-cert"] as string | undefined, keyFile: flags["tls-key"] as string | undefined },
    credentialsSecret: flags["credentials-secret"] as string,
    registration: registrationOf(flags),
    renewBeforeMs: flags["renew-before"] as number,
    stateNamespace: flags["state-namespace"] as string,
    heartbeatMs: flags["heartbeat-interval"] as number,
    metricsIntervalMs: flags["metrics-interval"] as number,
    hpaReadiness: {
      cpuInitializationPeriodMs: flags["horizontal-pod-autoscaler-cpu-initialization-period"] as number,
      initialReadinessDelayMs: flags["horizontal-pod-autoscaler-initial-readiness-delay"] as number,
    },
    healthListen: flags["health-listen"] as string,
    workers: flags.workers as number,
    keptRecheckMs: positiveFlag(flags, "kept-recheck-interval"),
    clustersetId: (flags["clusterset-id"] as string | undefined) || undefined,
    maxReconnectBackoffMs: maxReconnectBackoffFlag(flags),
    memberApi: { allowWrites: flags["member-api-writes"] as boolean, maxRequests: positiveFlag(flags, "member-api-max-requests") ?? 64 },
  });
  log.info({ healthPort: agent.healthPort }, "agent started");
  await waitForSignal();
  log.info("stopping");
  await agent.stop();
}
