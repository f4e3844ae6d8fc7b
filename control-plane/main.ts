// `flotilla control-plane`: the detector, scheduler, Work cache, status and health controllers, and the agent hub.
import { DEFAULT_DELETION_BUDGET, type DeletionBudget } from "./hub/deletion-brake.ts";
import { readFile } from "node:fs/promises";
import { hostname } from "node:os";
import { FlagError, type FlagSpec, type FlagValues } from "../shared/flags.ts";
import { loadKubeConfig } from "../shared/kubeconfig.ts";
import { createLogger } from "../shared/logger.ts";
import { AGENT_RECONNECT_WORST_CASE_MS } from "../shared/reconnect.ts";
import { waitForSignal } from "../shared/signals.ts";
import { startControlPlane } from "./control-plane.ts";
import type { ControlPlaneOptions } from "./context.ts";
import { peerAddress } from "./peers/peer-address.ts";
import { webhookEndpoint } from "./webhook/webhook-configuration.ts";
import { splitHostPort as splitListen } from "../shared/listen-address.ts";

export const controlPlaneFlags: FlagSpec[] = [
  { name: "kubeconfig", type: "string", env: "KUBECONFIG", help: "kubeconfig of the control cluster (default: in-cluster service account, else ~/.kube/config)" },
  { name: "grpc-listen", type: "string", default: "0.0.0.0:9443", help: "host:port of the agent hub (mTLS gRPC)" },
  { name: "ca-cert", type: "string", env: "FLOTILLA_CA_CERT", required: true, help: "PEM file of the CA that signs agent certificates (clients must present one)" },
  { name: "tls-cert", type: "string", env: "FLOTILLA_TLS_CERT", required: true, help: "PEM file of the hub's serving certificate" },
  { name: "tls-key", type: "string", env: "FLOTILLA_TLS_KEY", required: true, help: "PEM file of the hub's private key" },
  { name: "health-listen", type: "string", default: "0.0.0.0:8080", help: 'host:port for /healthz, /readyz, /metrics ("" disables)' },
  { name: "install-crds", type: "bool", default: "true", help: "server-side-apply Flotilla's CRDs at start" },
  { name: "cluster-failure-threshold", type: "duration", default: "30s", help: "a cluster without heartbeats this long becomes Ready=False" },
  { name: "cluster-success-threshold", type: "duration", default: "30s", help: "heartbeats must flow this long before a cluster that was not Ready is Ready again (Karmada's default; a new cluster is Ready at its first heartbeat): a flapping cluster gets nothing back, and a workload fails back to it only once it held" },
  { name: "cluster-startup-grace-period", type: "duration", help: "after the control plane starts or a replica takes over, a Ready cluster whose agent has not reconnected yet stays Ready this long (default: the failure threshold plus 60s, the longest an agent takes to reconnect; never less than the failure threshold)" },
  { name: "cluster-status-update-frequency", type: "duration", default: "5m", help: "a Cluster's lastHeartbeatTime and resourceSummary alone are written at most this often (kubelet's node-status-report-frequency); any other change (Ready, versions, nodes, API groups, conditions) is written at once. Liveness is in the cluster's Lease, so this may exceed the failure threshold" },
  { name: "cluster-lease-renew-interval", type: "duration", default: "60s", help: "the replica that holds a cluster's agent stream renews the cluster's Lease at the first heartbeat this long after the last renewal (at once when the agent moved to it); a lease lasts this plus the failure threshold, and the leader judges a cluster whose lease expired Ready=False. Heartbeat writes per cluster at the defaults: 1/60s (lease) + 1/5m (status) = 1 per 50 s, within the goal of 1 per 40 s" },
  { name: "cluster-lease-namespace", type: "string", default: "flotilla-cluster-lease", help: "namespace of the clusters' Leases, one per Cluster named as it (created if missing)" },
  { name: "graceful-eviction-period", type: "duration", default: "10m", help: "a not-Ready cluster keeps its Divided copy until its replacement elsewhere has been seen Available for at least this long without a break, and this long has passed since the eviction began (graceful eviction)" },
  { name: "unschedulable-threshold", type: "duration", default: "5m", help: "a Divided workload under dynamicWeight: AvailableReplicas or Aggregated whose pods in a cluster stay Unschedulable this long has those replicas moved to clusters with room (Karmada's descheduler threshold); the cluster keeps what it had until they run Available elsewhere, and takes no more of the workload for as long again. 0 turns moves off" },
  { name: "cluster-ready-settle-period", type: "duration", default: "10s", help: "a cluster Ready again (or new) is told to remove a Work its placement no longer names only once it has been Ready this long: the scheduler places it again first, so a cluster that comes back is asked again, not told to delete what it runs" },
  { name: "dependency-release-grace-period", type: "duration", default: "10s", help: "a dependency's binding (propagateDeps) is released, and its objects removed from the members, only once every parent has let it go this long on synced caches: a parent's binding deleted by hand and made again meanwhile releases nothing" },
  { name: "grpc-keepalive-interval", type: "duration", default: "30s", help: "the gRPC listener pings each connection (agents, flotillactl, other replicas) this often (etcd's flag name)" },
  { name: "grpc-keepalive-timeout", type: "duration", default: "10s", help: "a connection that does not answer a ping within this long is closed (etcd's flag name): the agent's stream ends, its Works stay in the member, and it resyncs when it is back" },
  { name: "concurrent-resource-template-syncs", type: "int", default: "16", help: "templates turned into ResourceBindings at once (Karmada's flag; its default is 5). Each is one write to the control cluster, so this bounds how fast a burst of templates gets its bindings: bench:propagate measured 200 templates' bindings done 4 s after the last template with 8, 1 s with 16" },
  { name: "max-cluster-nodes", type: "int", default: "65000", help: "the most nodes an agent's heartbeat may say its cluster has (GKE's largest clusters hold 65,000); a heartbeat saying more counts no nodes, and with them no capacity. Capacity counts only as far as the nodes said could hold it: at most 1024 cpu, 32Ti memory and 1024 pods a node (a claim above is left out, and the Cluster's status says so), so one agent cannot pull dynamically divided replicas to itself with an absurd claim" },
  { name: "max-status-bytes-per-cluster", type: "int", default: "67108864", help: "what the Work statuses of one cluster may hold in a replica's memory (about: strings and object statuses); past it, a report from that cluster is kept without its objects' .status, with at most 16 manifests and messages cut to 256 characters, and its message says so (flotilla_status_reports_over_budget_total counts them). One agent's reports then cost memory in proportion to the Works sent to it, whatever it sends" },
  { name: "binding-status-entries", type: "int", default: "100", help: "a ResourceBinding of more target clusters than this lists in status.aggregatedStatus only the clusters that are not as desired (applied, Healthy, no status word, the current Work), at most this many, with every cluster counted in status.aggregatedSummary; so its status stays far below etcd's limit at any fleet size. Every cluster's entry stays in memory: `flotillactl describe` (paged with --limit and --continue), explain, the dashboard and the template's .status read it. A cluster still to confirm a removal always keeps its entry" },
  { name: "deletion-budget-percent", type: "int", default: "50", help: "the blast-radius brake: deletions sent to one cluster within 60 s may remove at most this percent of what it held (or --deletion-budget-min, whichever is more); past it they are held, with a DeletionHeld condition, an Event and a metric, until `flotillactl deletions approve|reject`. 100 turns the brake off" },
  { name: "deletion-budget-min", type: "int", default: "20", help: "deletions per cluster within 60 s that the brake always allows, however few objects the cluster holds" },
  { name: "leader-elect", type: "bool", default: "true", help: "elect one leader among replicas (Lease) to run the controllers; every replica serves agents" },
  { name: "leader-elect-namespace", type: "string", default: "flotilla-system", help: "namespace of the leader Lease (created if missing)" },
  { name: "leader-elect-lease-duration", type: "duration", default: "15s", help: "how long a leader's lease lasts without renewal" },
  { name: "leader-elect-renew-deadline", type: "duration", default: "10s", help: "a leader that cannot renew for this long steps down (and the process exits)" },
  { name: "leader-elect-thread", type: "bool", default: "true", help: "run leader election (the Lease's renewals) in a worker thread of its own with its own connections to the apiserver, so that a reconnect storm of thousands of agents on the main thread cannot delay a renewal past the renew deadline; false: on the main thread, as before issue 25" },
  { name: "leader-elect-retry-period", type: "duration", default: "2s", help: "how often candidates try, and leaders renew" },
  { name: "identity", type: "string", env: "POD_NAME", help: "this replica's identity in the Lease (default: hostname_pid)" },
  { name: "ca-key", type: "string", env: "FLOTILLA_CA_KEY", help: "PEM file of the CA's private key: turns on registration with bootstrap tokens and certificate renewal, and lets the leader sign itself a certificate to reach the other replicas (their agents' workload metrics and status reports)" },
  { name: "registration-listen", type: "string", default: "0.0.0.0:9444", help: 'host:port of the registration listener (TLS, no client certificate; needs --ca-key; "" disables)' },
  { name: "token-namespace", type: "string", default: "flotilla-system", help: "namespace of the bootstrap token Secrets" },
  { name: "allow-agent-certs-without-uid", type: "bool", default: "false", help: "accept agent certificates bound to no Cluster uid (made by an older `flotilla certs agent`; they cannot be revoked), with a warning at every connect; for migration only" },
  { name: "require-acceptance", type: "bool", default: "false", help: "a new Cluster receives nothing until an admin accepts it (`flotillactl accept <cluster>` sets spec.hubAcceptsClient); its Accepted condition says so" },
  { name: "allow-no-execute-taint-policy", type: "bool", default: "false", help: "a ClusterTaintPolicy may add NoExecute taints (Karmada's flag of the same name); without it a policy with a NoExecute taint is not applied and gets a Warning Event NoExecuteNotAllowed" },
  { name: "enable-no-execute-taint-eviction", type: "bool", default: "false", help: "an untolerated NoExecute taint on a cluster moves workloads off it (Karmada's flag of the same name), gracefully: the new copy first, the old one after it is Available elsewhere and --graceful-eviction-period passed; without it a NoExecute taint acts as NoSchedule (nothing new goes there, nothing leaves)" },
  { name: "max-receive-message-size", type: "int", default: "4194304", help: "the largest gRPC message (bytes) the hub takes from an agent or flotillactl; a larger one ends that stream with RESOURCE_EXHAUSTED" },
  { name: "agent-message-rate", type: "int", env: "FLOTILLA_AGENT_MESSAGE_RATE", default: "200", help: "messages a second the agent of a cluster may send on average (its streams share one bucket); beyond it the hub stops reading that stream for a while (HTTP/2 flow control pushes back on the agent)" },
  { name: "max-agent-admissions-per-second", type: "int", default: "200", help: "new agent streams (connections and Hellos, each a resync) this replica admits per second, with a burst of as many; beyond it an agent is refused (UNAVAILABLE) with a retry-after-ms of its own slot in the queue and comes back then, and is told in SyncDone to spread its next reconnect over the fleet's size ÷ this rate (at most half --cluster-failure-threshold). While refused agents are due back, or more agents than this rate's burst were lost here and are not back, a Ready cluster this replica judges is not made NotReady for silence (that backlog, or the lost agents ÷ this rate, plus --cluster-failure-threshold). At 200, 10,000 agents are all back within 50 s on one replica; 0: no limit (issue 25)" },
  { name: "agent-admission-before-tls", type: "bool", default: "true", help: "with --max-agent-admissions-per-second above 0, the hub accepts connections to --grpc-listen itself and admits each at that rate, from the same bucket, before its TLS handshake (a connection admitted so pays for its first stream): in a reconnect storm the handshakes are spread at the rate rather than all run at once; beyond a minute of admissions waiting, a connection is closed before TLS. flotillactl and the other replicas' connections to the port wait in the same queue (nothing tells them from agents before TLS); false: streams alone are admitted, after TLS (issue 42)" },
  { name: "agent-message-burst", type: "int", env: "FLOTILLA_AGENT_MESSAGE_BURST", default: "2000", help: "messages the agent of a cluster may send at once after a quiet spell (a reconnect reports every Work)" },
  { name: "admin-revocation-list", type: "string", default: "", help: "file of revoked admin and viewer certificates, one a line: serial number (hex) or SHA-256 fingerprint (as `openssl x509 -fingerprint -sha256` prints it; colons optional), # comments; `flotilla certs revoke` appends to it. Read again within a second of a change, without a restart. While it cannot be read or has a bad line, every Admin API call is refused (logged; agents are served as ever). Empty: no list" },
  { name: "webhook-listen", type: "string", default: "", help: 'host:port of the validating admission webhook (HTTPS with --tls-cert): the apiserver sends it every create and update of a ResourceInterpreterCustomization, refused when a script lacks its function or conflicts with another customization of the same kind; the control plane applies the ValidatingWebhookConfiguration (failurePolicy Fail, caBundle the --ca-cert) at start. "" (the default) turns it off and leaves an existing configuration as it is' },
  { name: "webhook-url", type: "string", default: "", help: "https://host:port where the apiserver calls the webhook (default: the --webhook-listen address, which must then not be 0.0.0.0); the hub's certificate must name the host" },
  { name: "webhook-service", type: "string", default: "", help: "namespace/name[:port] of the Service the apiserver calls the webhook through (port default 443), instead of --webhook-url; the hub's certificate must name <name>.<namespace>.svc" },
  { name: "webhook-client-ca", type: "string", default: "", help: "PEM file of the CA whose client certificates may call the webhook: the listener then refuses any caller without one (the TLS handshake fails). The apiserver presents one when its AdmissionConfiguration gives the ValidatingAdmissionWebhook plugin a kubeConfigFile with a client certificate (docs/operations/webhook-authentication.md). \"\" (the default): callers are not authenticated, which a cluster whose apiserver cannot be configured needs" },
  { name: "webhook-client-names", type: "string", default: "", help: "comma-separated common names of the client certificates --webhook-client-ca signed that may call the webhook (the apiserver's); any other gets 403. \"\" (the default): any certificate that CA signed" },
  { name: "peer-address", type: "string", default: "", help: "host:port where the other control-plane replicas reach this one's gRPC listener (default: --grpc-listen's host, or $POD_IP with its port when it listens on every interface). The leader collects there, every 5 s, the workload metrics this replica's agents send, so its FederatedHPAs see every cluster, and follows their Work status reports, so it writes every cluster's status entries in one apply (written into the cluster Leases this replica holds; needs --ca-key on the leader, which signs itself a control-plane client certificate). Without an address, the leader counts the clusters streaming here as missing, and this replica writes their status entries itself" },
  { name: "horizontal-pod-autoscaler-sync-period", type: "duration", default: "15s", help: "how often the leader runs each FederatedHPA over the members' latest workload summaries (Karmada's flag and default, as kube-controller-manager's); a FederatedHPA created or changed runs at once" },
  { name: "dashboard-address", type: "string", default: "", help: 'host:port of the read-only web dashboard (HTTPS with --tls-cert; overview, topology, clusters, explain, live): a browser signs in with an admin or viewer client certificate, or with the one-time link `flotillactl dashboard` prints. "" (the default) turns it off' },
  { name: "dashboard-url", type: "string", default: "", help: "https://host:port where browsers reach the dashboard, used in the login links (default: https://<--dashboard-address>, with 127.0.0.1 for an address on every interface)" },
  { name: "member-api-address", type: "string", default: "", help: 'host:port of the member API (issue 41; HTTPS with --tls-cert): /clusters/<name>/ speaks the Kubernetes API of that member, carried over its agent\'s stream, so kubectl, client-go and k9s reach members the control plane cannot reach. Callers present an admin or viewer client certificate (as on the Admin API, with the revocation list); the agent impersonates flotilla:<role>:<user> in group flotilla:admins or flotilla:viewers, so the member\'s RBAC decides. Viewers only read, never Secrets. "" (the default) turns it off' },
  { name: "member-api-url", type: "string", default: "", help: "https://host:port where callers reach the member API, given to `flotillactl kubeconfig` and the ClusterProfiles (default: https://<--member-api-address>, with 127.0.0.1 for an address on every interface)" },
  { name: "member-api-max-requests-per-cluster", type: "int", default: "64", help: "member API requests one cluster may have in flight through this replica, watches and log streams included; more are answered 429 with Retry-After: 1" },
  { name: "dashboard-session-ttl", type: "duration", default: "1h", help: "how long a dashboard session lasts after its login link was used (the link itself works once, within two minutes)" },
  { name: "cluster-profile-namespace", type: "string", default: "flotilla-system", help: 'namespace where the leader publishes one ClusterProfile (SIG Multicluster\'s cluster inventory API, multicluster.x-k8s.io/v1alpha1, KEP-4322) per member Cluster, named as it and labelled x-k8s.io/cluster-manager=flotilla, for Argo CD, MultiKueue and Headlamp to find the fleet (created if missing); a profile another cluster manager labelled is never touched. "" turns it off and leaves the profiles already published as they are' },
  { name: "agent-cert-validity", type: "duration", default: "8760h", help: "how long the agent certificates it signs are valid (agents renew before they expire)" },
];

/** Runs the control plane until SIGTERM/SIGINT. */
export async function runControlPlane(flags: FlagValues): Promise<void> {
  const log = createLogger("flotilla-control-plane");
  const failureMs = flags["cluster-failure-threshold"] as number;
  const updateMs = positive(flags, "cluster-status-update-frequency");
  const startupGraceMs = (flags["cluster-startup-grace-period"] as number | undefined) ?? failureMs + AGENT_RECONNECT_WORST_CASE_MS;
  if (startupGraceMs < failureMs) {
    throw new FlagError(`--cluster-startup-grace-period (${startupGraceMs} ms) must be at least --cluster-failure-threshold (${failureMs} ms): agents need that long to be heard from again`);
  }
  const leaseRenewMs = positive(flags, "cluster-lease-renew-interval");
  const [caPem, certPem, keyPem] = await Promise.all(["ca-cert", "tls-cert", "tls-key"].map((f) => readFile(flags[f] as string, "utf8")));
  const peer = peerAddress(flags["peer-address"] as string, flags["grpc-listen"] as string, process.env.POD_IP);
  if (peer instanceof Error) throw new FlagError(peer.message);
  const caKeyFile = flags["ca-key"] as string | undefined;
  const caKeyPem = caKeyFile ? await readFile(caKeyFile, "utf8") : undefined;
  const cp = await startControlPlane({
    kc: loadKubeConfig(flags.kubeconfig as string | undefined),
    log,
    grpcListen: flags["grpc-listen"] as string,
    tls: { caPem: caPem as string, certPem: certPem as string, keyPem: keyPem as string },
    healthListen: flags["health-listen"] as string,
    installCrds: flags["install-crds"] as boolean,
    clusterFailureMs: failureMs,
    clusterSuccessMs: flags["cluster-success-threshold"] as number,
    clusterStatusUpdateMs: updateMs,
    clusterLeaseRenewMs: leaseRenewMs,
    clusterLeaseNamespace: flags["cluster-lease-namespace"] as string,
    clusterStartupGraceMs: startupGraceMs,
    gracefulEvictionPeriodMs: flags["graceful-eviction-period"] as number,
    unschedulableThresholdMs: flags["unschedulable-threshold"] as number,
    clusterReadySettleMs: positive(flags, "cluster-ready-settle-period"),
    dependencyReleaseGraceMs: positive(flags, "dependency-release-grace-period"),
    grpcKeepalive: { intervalMs: positive(flags, "grpc-keepalive-interval"), timeoutMs: positive(flags, "grpc-keepalive-timeout") },
    deletionBudget: deletionBudget(flags),
    bindingStatusEntries: positive(flags, "binding-status-entries"),
    maxStatusBytesPerCluster: positive(flags, "max-status-bytes-per-cluster"),
    maxClusterNodes: positive(flags, "max-cluster-nodes"),
    templateSyncs: templateSyncs(flags),
    federatedHpaSyncPeriodMs: positive(flags, "horizontal-pod-autoscaler-sync-period"),
    leaderElection: flags["leader-elect"]
      ? {
          namespace: flags["leader-elect-namespace"] as string,
          identity: (flags.identity as string | undefined) ?? `${hostname()}_${process.pid}`,
          leaseDurationMs: flags["leader-elect-lease-duration"] as number,
          renewDeadlineMs: flags["leader-elect-renew-deadline"] as number,
          retryPeriodMs: flags["leader-elect-retry-period"] as number,
          thread: flags["leader-elect-thread"] as boolean,
        }
      : undefined,
    registration:
      caKeyPem === undefined
        ? undefined
        : {
            caKeyPem,
            listen: flags["registration-listen"] as string,
            tokenNamespace: flags["token-namespace"] as string,
            certValidityMs: flags["agent-cert-validity"] as number,
          },
    allowAgentCertsWithoutUid: flags["allow-agent-certs-without-uid"] as boolean,
    requireAcceptance: flags["require-acceptance"] as boolean,
    allowNoExecuteTaintPolicy: flags["allow-no-execute-taint-policy"] as boolean,
    enableNoExecuteTaintEviction: flags["enable-no-execute-taint-eviction"] as boolean,
    adminRevocationList: (flags["admin-revocation-list"] as string | undefined) || undefined,
    webhook: await webhookFlags(flags),
    dashboard: dashboardFlags(flags),
    memberApi: memberApiFlags(flags),
    clusterProfileNamespace: flags["cluster-profile-namespace"] as string,
    ...(peer === undefined ? {} : { peerAddress: peer }),
    maxReceiveMessageBytes: positive(flags, "max-receive-message-size"),
    agentAdmissions: { perSecond: nonNegative(flags, "max-agent-admissions-per-second"), burst: nonNegative(flags, "max-agent-admissions-per-second") },
    agentAdmissionBeforeTls: flags["agent-admission-before-tls"] as boolean,
    agentMessageRate: { qps: positive(flags, "agent-message-rate"), burst: positive(flags, "agent-message-burst") },
    onLostLeadership: () => {
      log.error("lost leadership; exiting so that a fresh process competes again");
      process.exit(1);
    },
  });
  log.info({ grpcPort: cp.grpcPort, healthPort: cp.healthPort, webhookPort: cp.webhookPort, dashboardPort: cp.dashboardPort }, "control plane started");
  await waitForSignal();
  log.info("stopping");
  await cp.stop();
}

/** The webhook's flags, checked before anything starts; undefined when it is off. */
async function webhookFlags(flags: FlagValues): Promise<ControlPlaneOptions["webhook"]> {
  const listen = flags["webhook-listen"] as string;
  const url = (flags["webhook-url"] as string) || undefined;
  const service = (flags["webhook-service"] as string) || undefined;
  const clientCa = flags["webhook-client-ca"] as string;
  const names = (flags["webhook-client-names"] as string).split(",").map((n) => n.trim()).filter((n) => n !== "");
  if (listen === "") {
    if (url !== undefined || service !== undefined || clientCa !== "" || names.length > 0) throw new FlagError("--webhook-url, --webhook-service, --webhook-client-ca and --webhook-client-names need --webhook-listen");
    return undefined;
  }
  if (names.length > 0 && clientCa === "") throw new FlagError("--webhook-client-names needs --webhook-client-ca");
  const endpoint = webhookEndpoint({ listen, url, service });
  if (endpoint instanceof Error) throw new FlagError(endpoint.message);
  const clientAuth = clientCa === "" ? undefined : { caPem: await readFile(clientCa, "utf8"), names };
  return { listen, url, service, ...(clientAuth === undefined ? {} : { clientAuth }) };
}

/** The dashboard's flags, checked before anything starts; undefined when it is off. */
export function dashboardFlags(flags: FlagValues): { listen: string; url?: string; sessionTtlMs: number } | undefined {
  const l = listenerFlags(flags, "dashboard-address", "dashboard-url");
  return l === undefined ? undefined : { ...l, sessionTtlMs: positive(flags, "dashboard-session-ttl") };
}

/** The member API's flags, checked before anything starts; undefined when it is off. */
export function memberApiFlags(flags: FlagValues): ControlPlaneOptions["memberApi"] {
  const l = listenerFlags(flags, "member-api-address", "member-api-url");
  return l === undefined ? undefined : { ...l, maxRequestsPerCluster: positive(flags, "member-api-max-requests-per-cluster") };
}

/** An HTTPS listener's address and the URL its callers use (https://host[:port], no path); undefined when the address is "". */
function listenerFlags(flags: FlagValues, addressFlag: string, urlFlag: string): { listen: string; url?: string } | undefined {
  const listen = flags[addressFlag] as string;
  const url = ((flags[urlFlag] as string | undefined) ?? "").replace(/\/+$/, "");
  if (listen === "") {
    if (url !== "") throw new FlagError(`--${urlFlag} needs --${addressFlag}`);
    return undefined;
  }
  try {
    splitListen(listen, `--${addressFlag}`);
  } catch (err) {
    throw new FlagError((err as Error).message);
  }
  if (url !== "" && !/^https:\/\/[^/?#]+$/.test(url)) throw new FlagError(`--${urlFlag} ${JSON.stringify(url)} must be https://host[:port], with no path`);
  return { listen, ...(url === "" ? {} : { url }) };
}

/** --concurrent-resource-template-syncs: a whole number from 1. */
export function templateSyncs(flags: FlagValues): number {
  const v = flags["concurrent-resource-template-syncs"] as number;
  if (!Number.isInteger(v) || v < 1) throw new FlagError(`--concurrent-resource-template-syncs must be a whole number from 1 (got ${v})`);
  return v;
}

function nonNegative(flags: FlagValues, name: string): number {
  const v = flags[name] as number;
  if (!(v >= 0)) throw new FlagError(`--${name} must be 0 or more (got ${v})`);
  return v;
}

function positive(flags: FlagValues, name: string): number {
  const v = flags[name] as number;
  if (!(v > 0)) throw new FlagError(`--${name} must be above 0 (got ${v})`);
  return v;
}

/** The brake's budget from its flags; a negative number is refused. */
function deletionBudget(flags: FlagValues): DeletionBudget {
  const percent = flags["deletion-budget-percent"] as number;
  const min = flags["deletion-budget-min"] as number;
  if (!Number.isInteger(percent) || percent < 0) throw new FlagError(`--deletion-budget-percent must be a whole number from 0 (${percent} given); 100 or more turns the brake off`);
  if (!Number.isInteger(min) || min < 0) throw new FlagError(`--deletion-budget-min must be a whole number from 0 (${min} given)`);
  return { ...DEFAULT_DELETION_BUDGET, percent, min };
}
