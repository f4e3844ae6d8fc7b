// Flotilla on a test fleet: the control plane and one agent per member as real processes, with
// real mTLS between them. Used by end-to-end tests and by the local demo (`up`).
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CustomObjectsApi } from "@kubernetes/client-node";
import { createCa, issueAdminCertificate, issueAgentCertificate, issueCertificate } from "../../shared/pki.ts";
import { allSettledOrThrow } from "./all-settled.ts";
import type { Cluster } from "./cluster.ts";
import { nodeCompileCacheDir } from "./compile-cache.ts";
import type { Fleet } from "./fleet.ts";
import { freePort } from "./free-port.ts";
import { isPortClash } from "./port-retry.ts";
import { type HubProxy, startHubProxy } from "./hub-proxy.ts";
import { ManagedProcess } from "./managed-process.ts";
import { argsKnownBy } from "./previous-version.ts";
import { ensureTestBundles } from "./test-bundles.ts";
import { waitFor } from "./wait.ts";

const flotillaBin = fileURLToPath(new URL("../../bin/flotilla.ts", import.meta.url));

/**
 * Which Flotilla a process runs: this checkout's (the default), or a previous version's
 * (previous-version.ts), which is started without the flags it does not know.
 */
export interface FlotillaVersion {
  flotillaBin: string;
  /** The flags each command knows; undefined: every flag this test environment passes. */
  flags?: Map<string, Set<string>>;
}

/** This checkout's Flotilla: its processes run from bundles of the sources (test-bundles.ts). */
export const CURRENT_VERSION: FlotillaVersion = { flotillaBin };

export interface FlotillaOptions {
  /** The agent's entry point (default: this checkout's agent bundle, or an older version's flotillaBin), e.g. the production bundle dist/bundle/agent.mjs. */
  agentBin?: string;
  /** Node.js flags before the agent's entry point, e.g. ["--optimize-for-size"] (which NODE_OPTIONS does not take). */
  agentNodeArgs?: string[];
  /** Serve the web dashboard from the first control plane (--dashboard-address on 127.0.0.1). */
  dashboard?: boolean;
  /** Serve the member API from the first control plane (--member-api-address on 127.0.0.1; issue 41). */
  memberApi?: boolean;
  /** Agents' heartbeat period (default 1s). */
  heartbeatInterval?: string;
  /** Control plane's cluster failure threshold (default 5s in tests). */
  clusterFailureThreshold?: string;
  /** `--cluster-success-threshold` (default 0s in tests, so a recovered cluster is Ready at once). */
  clusterSuccessThreshold?: string;
  /** `--cluster-status-update-frequency`: heartbeat time and capacity alone are written this often (default 1s in tests). */
  clusterStatusUpdateFrequency?: string;
  /** `--cluster-lease-renew-interval` (default 1s in tests). */
  clusterLeaseRenewInterval?: string;
  /** Extra labels / spec per member Cluster object; a spec given replaces defaultClusterSpec's. */
  clusterSpecs?: Record<string, { labels?: Record<string, string>; spec?: Record<string, unknown> }>;
  /** Members left without a Cluster object or an agent (for registration tests). */
  unregistered?: string[];
  /** `--graceful-eviction-period` of the control plane (default 3s in tests). */
  gracefulEvictionPeriod?: string;
  /** `--agent-cert-validity` of the control plane (default 24h). */
  agentCertValidity?: string;
  /** `--require-acceptance` of the control plane: a Cluster receives nothing until accepted. */
  requireAcceptance?: boolean;
  logLevel?: string;
  /**
   * Agents dial a TCP forwarder in front of every replica's hub (as behind a Service), so they
   * reconnect to a live replica when theirs dies; the admin endpoint stays the first replica.
   */
  hubProxy?: boolean;
  /** More flags for every control-plane replica (e.g. `--deletion-budget-min=3`). */
  controlPlaneArgs?: string[];
  /** Every agent's --max-reconnect-backoff (default 2s; the product's default is 30s). */
  maxReconnectBackoff?: string;
  /** More flags for every agent (e.g. `--kept-recheck-interval=2s`, `--metrics-interval=2s`). */
  agentArgs?: string[];
  /** The Flotilla the first control plane and the agents run (default this checkout's). */
  version?: FlotillaVersion;
}

/** Flotilla running on a fleet. */
export interface Flotilla {
  fleet: Fleet;
  certsDir: string;
  /** Where the control plane's and agents' logs go (`control-plane-<run>.log`, `agent-<member>.log`). */
  logsDir: string;
  hubPort: number;
  /** The port agents dial: the hub proxy's with `hubProxy`, else hubPort. */
  agentHubPort: number;
  /** The control plane's registration listener (bootstrap tokens). */
  registrationPort: number;
  /** The first control plane's admission webhook (127.0.0.1, configured by URL); replicas serve none. */
  webhookPort: number;
  /** The first control plane's dashboard port, with `dashboard` (else undefined). */
  dashboardPort: number | undefined;
  /** The first control plane's member API port, with `memberApi` (else undefined). */
  memberApiPort: number | undefined;
  controlPlane: ManagedProcess;
  controlPlaneHealthPort: number;
  agents: Map<string, { process: ManagedProcess; healthPort: number }>;
  /** Starts the first control plane again (its ports and identity), on `version` (default the fleet's). */
  startControlPlane(version?: FlotillaVersion): Promise<void>;
  stopControlPlane(): Promise<void>;
  /** `bootstrapToken` registers instead of using a signed certificate file; `fromSecret` uses the credentials Secret only. */
  /**
   * `member` runs the agent, as cluster `member`, against another member's apiserver (two agents
   * sharing one member: give each its own `stateNamespace`).
   */
  startAgent(member: string, opts?: AgentStartOptions): Promise<void>;
  /**
   * Signs a new certificate for a member's agent, bound to its Cluster's current uid (a Cluster
   * deleted and created again revokes the old one), as `flotilla certs agent` would; restart the
   * agent to use it.
   */
  reissueAgentCertificate(member: string): Promise<void>;
  /** Starts another control-plane replica on its own ports (HA tests), on `version` (default the fleet's); stopped by stop(). */
  startReplica(version?: FlotillaVersion): Promise<{ process: ManagedProcess; hubPort: number; healthPort: number }>;
  /** Metrics of any process serving /metrics on a loopback port. */
  metricsAt(port: number): Promise<Record<string, number>>;
  stopAgent(member: string): Promise<void>;
  /** Prometheus-text metrics of a process, parsed to name{labels} → value. */
  agentMetrics(member: string): Promise<Record<string, number>>;
  controlPlaneMetrics(): Promise<Record<string, number>>;
  /** The control plane (once started), then each agent in `agents`; running or already exited. */
  processes(): ManagedProcess[];
  stop(): Promise<void>;
}

export interface AgentStartOptions {
  certCluster?: string;
  hubPort?: number;
  bootstrapToken?: string;
  fromSecret?: boolean;
  renewBefore?: string;
  waitHealthy?: boolean;
  /** The fleet member whose apiserver the agent serves (default: the one it is named for). */
  member?: string;
  /** `--state-namespace` of the agent (default flotilla-system). */
  stateNamespace?: string;
  /** The Flotilla the agent runs (default the fleet's). */
  version?: FlotillaVersion;
  /** More flags for this agent, after the fleet's agentArgs (e.g. `--member-api-writes`). */
  args?: string[];
}

/**
 * Starts the control plane against fleet.control, registers every member as a Cluster, and
 * starts their agents; resolves when every Cluster is Ready.
 */
export async function startFlotilla(fleet: Fleet, opts: FlotillaOptions = {}): Promise<Flotilla> {
  const certsDir = join(fleet.root, "flotilla-certs");
  const logsDir = join(fleet.root, "flotilla-logs");
  await Promise.all([mkdir(certsDir, { recursive: true, mode: 0o700 }), mkdir(logsDir, { recursive: true })]);
  const ca = await createCa("flotilla-test-ca");
  const hub = await issueCertificate(ca, { commonName: "flotilla-hub", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"], usage: "server" });
  const files: [string, string][] = [["ca.crt", ca.certPem], ["ca.key", ca.keyPem], ["hub.crt", hub.certPem], ["hub.key", hub.keyPem]];
  // flotillactl finds the Admin API and an admin certificate here (DESIGN §10: no flags needed).
  const admin = await issueAdminCertificate(ca, "admin");
  files.push(["admin.crt", admin.certPem], ["admin.key", admin.keyPem]);
  // Picked again when another process takes one of them before the first control plane binds it
  // (a lost port race, not a fault of the code under test); fixed from then on, restarts reuse them.
  let hubPort = await freePort();
  const proxy: HubProxy | undefined = opts.hubProxy ? await startHubProxy([hubPort]) : undefined;
  let agentHubPort = proxy?.port ?? hubPort;
  let registrationPort = await freePort();
  let webhookPort = await freePort();
  let dashboardPort = opts.dashboard ? await freePort() : undefined;
  let memberApiPort = opts.memberApi ? await freePort() : undefined;
  files.push(["admin-endpoint", `127.0.0.1:${hubPort}\n`]);
  await Promise.all(files.map(([f, text]) => writeFile(join(certsDir, f), text, { mode: 0o600 })));

  let controlPlaneHealthPort = await freePort();
  const repickPorts = async () => {
    [hubPort, registrationPort, webhookPort, controlPlaneHealthPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
    dashboardPort = opts.dashboard ? await freePort() : undefined;
    memberApiPort = opts.memberApi ? await freePort() : undefined;
    agentHubPort = hubPort;
    await writeFile(join(certsDir, "admin-endpoint"), `127.0.0.1:${hubPort}\n`, { mode: 0o600 });
  };
  const env = { ...process.env, LOG_LEVEL: opts.logLevel ?? process.env.FLOTILLA_TEST_LOG_LEVEL ?? "info", NODE_COMPILE_CACHE: nodeCompileCacheDir() };
  const node = process.execPath;
  const bundles = await ensureTestBundles();
  // This checkout's processes start from its bundles; an older version's from its own sources.
  const controlPlaneBin = (version: FlotillaVersion) => (version === CURRENT_VERSION ? bundles.flotilla : version.flotillaBin);
  let controlPlane: ManagedProcess | undefined;
  const agents = new Map<string, { process: ManagedProcess; healthPort: number }>();
  const members = new Map(fleet.members.map((m) => [m.name, m]));
  let cpRuns = 0;

  // Each replica has a fixed identity (its Lease holder, status field manager and user agent),
  // kept across restarts as a pod's name is: "control-plane", "replica-1", …
  const fleetVersion = opts.version ?? CURRENT_VERSION;
  const spawnControlPlane = (version: FlotillaVersion, grpcPort: number, healthPort: number, logName: string, identity: string, registrationListen = "", webhookListen = "", dashboardListen = "", memberApiListen = "") =>
    ManagedProcess.start({
      ready: () => httpOk(healthPort, "/readyz"),
      name: "control-plane",
      command: node,
      args: argsKnownBy(version.flags?.get("control-plane"), [
        controlPlaneBin(version), "control-plane",
        `--kubeconfig=${fleet.control.kubeconfigPath}`,
        `--grpc-listen=127.0.0.1:${grpcPort}`,
        `--health-listen=127.0.0.1:${healthPort}`,
        `--ca-cert=${join(certsDir, "ca.crt")}`,
        `--tls-cert=${join(certsDir, "hub.crt")}`,
        `--tls-key=${join(certsDir, "hub.key")}`,
        `--ca-key=${join(certsDir, "ca.key")}`,
        `--registration-listen=${registrationListen}`,
        `--webhook-listen=${webhookListen}`,
        // The control cluster's apiserver presents its webhook client certificate: only it may call.
        ...(webhookListen === "" || fleet.control.webhookClient === undefined ? [] : [`--webhook-client-ca=${fleet.control.webhookClient.caCert}`, `--webhook-client-names=${fleet.control.webhookClient.name}`]),
        ...(dashboardListen === "" ? [] : [`--dashboard-address=${dashboardListen}`]),
        ...(memberApiListen === "" ? [] : [`--member-api-address=${memberApiListen}`]),
        `--agent-cert-validity=${opts.agentCertValidity ?? "24h"}`,
        `--cluster-failure-threshold=${opts.clusterFailureThreshold ?? "5s"}`,
        `--cluster-success-threshold=${opts.clusterSuccessThreshold ?? "0s"}`,
        `--graceful-eviction-period=${opts.gracefulEvictionPeriod ?? "3s"}`,
        ...(opts.requireAcceptance ? ["--require-acceptance"] : []),
        `--cluster-status-update-frequency=${opts.clusterStatusUpdateFrequency ?? "1s"}`,
        `--cluster-lease-renew-interval=${opts.clusterLeaseRenewInterval ?? "1s"}`,
        "--leader-elect-lease-duration=4s",
        "--leader-elect-renew-deadline=3s",
        "--leader-elect-retry-period=500ms",
        `--identity=${identity}`,
        ...(opts.controlPlaneArgs ?? []),
      ]),
      env,
      logFile: join(logsDir, logName),
    });

  const startControlPlane = async (version = fleetVersion) => {
    cpRuns++;
    controlPlane = spawnControlPlane(version, hubPort, controlPlaneHealthPort, `control-plane-${cpRuns}.log`, "control-plane", `127.0.0.1:${registrationPort}`, `127.0.0.1:${webhookPort}`, dashboardPort === undefined ? "" : `127.0.0.1:${dashboardPort}`, memberApiPort === undefined ? "" : `127.0.0.1:${memberApiPort}`);
    await controlPlane.guard(waitFor(() => httpOk(controlPlaneHealthPort, "/readyz"), { what: "control plane /readyz", timeoutMs: 60_000 }));
  };

  const replicas: ManagedProcess[] = [];
  const startReplica = async (version = fleetVersion) => {
    // Its ports are picked again when another process took one first (a lost race, not the code under test).
    for (let attempt = 1; ; attempt++) {
      const [grpcPort, healthPort, memberApi] = [await freePort(), await freePort(), opts.memberApi ? await freePort() : undefined];
      const p = spawnControlPlane(version, grpcPort, healthPort, `control-plane-replica-${replicas.length + 1}.log`, `replica-${replicas.length + 1}`, "", "", "", memberApi === undefined ? "" : `127.0.0.1:${memberApi}`);
      replicas.push(p);
      try {
        await p.guard(waitFor(() => httpOk(healthPort, "/readyz"), { what: "replica /readyz", timeoutMs: 60_000 }));
      } catch (err) {
        if (attempt >= 3 || !isPortClash(err)) throw err;
        await p.stop();
        replicas.splice(replicas.indexOf(p), 1);
        continue;
      }
      proxy?.add(grpcPort);
      return { process: p, hubPort: grpcPort, healthPort };
    }
  };

  const startAgent = async (member: string, o: AgentStartOptions = {}) => {
    const version = o.version ?? fleetVersion;
    const cluster = members.get(o.member ?? member) as Cluster;
    const certName = o.certCluster ?? member;
    const healthPort = await freePort();
    const p = ManagedProcess.start({
      ready: () => httpOk(healthPort, "/healthz"),
      name: `agent-${member}`,
      command: node,
      args: [...(opts.agentNodeArgs ?? []), ...argsKnownBy(version.flags?.get("agent"), [
        o.version === undefined && opts.agentBin !== undefined ? opts.agentBin : version === CURRENT_VERSION ? bundles.agent : version.flotillaBin, "agent",
        `--cluster-name=${member}`,
        `--hub-address=127.0.0.1:${o.hubPort ?? agentHubPort}`,
        "--hub-server-name=localhost",
        `--kubeconfig=${cluster.kubeconfigPath}`,
        `--ca-cert=${join(certsDir, "ca.crt")}`,
        ...(o.bootstrapToken !== undefined || o.fromSecret
          ? [...(o.bootstrapToken ? [`--bootstrap-token=${o.bootstrapToken}`] : []), `--registration-address=127.0.0.1:${registrationPort}`, ...(o.renewBefore ? [`--renew-before=${o.renewBefore}`] : [])]
          : [`--tls-cert=${join(certsDir, `${certName}.crt`)}`, `--tls-key=${join(certsDir, `${certName}.key`)}`]),
        `--health-listen=127.0.0.1:${healthPort}`,
        `--heartbeat-interval=${opts.heartbeatInterval ?? "1s"}`,
        // Back on the hub within about 2 s of it listening again, not up to 30 s later (tests restart control planes often).
        `--max-reconnect-backoff=${opts.maxReconnectBackoff ?? "2s"}`,
        ...(o.stateNamespace !== undefined ? [`--state-namespace=${o.stateNamespace}`] : []),
        ...(opts.agentArgs ?? []),
        ...(o.args ?? []),
      ])],
      env,
      logFile: join(logsDir, `agent-${member}.log`),
    });
    agents.set(member, { process: p, healthPort });
    if (o.waitHealthy === false) return;
    await p.guard(waitFor(() => httpOk(healthPort, "/healthz"), { what: `agent ${member} /healthz`, timeoutMs: 30_000 }));
  };

  const stopAgent = async (member: string) => {
    await agents.get(member)?.process.stop();
    agents.delete(member);
  };

  // Agents, replicas and the control plane end at once: each still gets its SIGTERM (and its
  // orderly shutdown), but no one waits for another's.
  const stop = async () => {
    await Promise.all([...[...agents.keys()].map(stopAgent), ...replicas.map((r) => r.stop()), controlPlane?.stop()]);
    await proxy?.close();
  };

  const custom = fleet.control.kubeConfig().makeApiClient(CustomObjectsApi);
  // Bound to the Cluster's uid, as `flotilla certs agent` signs them: the hub refuses certificates without one.
  const writeAgentCertificate = async (member: string, uid: string) => {
    const pair = await issueAgentCertificate(ca, member, uid);
    await Promise.all([writeFile(join(certsDir, `${member}.crt`), pair.certPem, { mode: 0o600 }), writeFile(join(certsDir, `${member}.key`), pair.keyPem, { mode: 0o600 })]);
  };
  const reissueAgentCertificate = async (member: string) => {
    const c = (await custom.getClusterCustomObject({ group: "flotilla.dev", version: "v1alpha1", plural: "clusters", name: member })) as { metadata: { uid: string } };
    await writeAgentCertificate(member, c.metadata.uid);
  };

  try {
    for (let attempt = 1; ; attempt++) {
      try {
        await startControlPlane();
        break;
      } catch (err) {
        // Behind a hub proxy the ports are the proxy's to know: no second pick there.
        if (attempt >= 3 || proxy !== undefined || !isPortClash(err)) throw err;
        await controlPlane?.stop();
        await repickPorts();
      }
    }
    const registered = fleet.members.filter((m) => !(opts.unregistered ?? []).includes(m.name));
    // Each member on its own: its Cluster, its certificate (bound to the Cluster's uid), its agent.
    await allSettledOrThrow(
      registered.map(async (m) => {
        const extra = opts.clusterSpecs?.[m.name] ?? {};
        const spec = extra.spec ?? defaultClusterSpec(m.name);
        const created = (await custom.createClusterCustomObject({
          group: "flotilla.dev",
          version: "v1alpha1",
          plural: "clusters",
          body: { apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name: m.name, labels: extra.labels ?? {} }, spec },
        })) as { metadata: { uid: string } };
        await writeAgentCertificate(m.name, created.metadata.uid);
        await startAgent(m.name);
      }),
    );
    await waitFor(
      async () => {
        const list = (await custom.listClusterCustomObject({ group: "flotilla.dev", version: "v1alpha1", plural: "clusters" })) as { items: { status?: { conditions?: { type: string; status: string }[] } }[] };
        return list.items.length === registered.length && list.items.every((c) => c.status?.conditions?.some((x) => x.type === "Ready" && x.status === "True"));
      },
      { what: "every member Cluster Ready", timeoutMs: 60_000, intervalMs: 100 },
    );
  } catch (err) {
    await stop();
    throw err;
  }

  return {
    fleet,
    certsDir,
    logsDir,
    hubPort,
    agentHubPort,
    registrationPort,
    webhookPort,
    dashboardPort,
    memberApiPort,
    get controlPlane() {
      return controlPlane as ManagedProcess;
    },
    controlPlaneHealthPort,
    agents,
    startControlPlane,
    stopControlPlane: async () => controlPlane?.stop(),
    startAgent,
    startReplica,
    reissueAgentCertificate,
    metricsAt: metrics,
    stopAgent,
    agentMetrics: async (member) => metrics(agents.get(member)?.healthPort ?? 0),
    controlPlaneMetrics: () => metrics(controlPlaneHealthPort),
    processes: () => [...(controlPlane ? [controlPlane] : []), ...[...agents.values()].map((a) => a.process)],
    stop,
  };
}

/**
 * The region and zone of a test member's Cluster when a test gives no spec: member1 eu/eu-1,
 * member2 us/us-1, member3 eu/eu-2, member4 us/us-2, … (the regions alternate, each region's
 * zones count up), so DNS names have a zone and region level on every fleet of two or more.
 */
export function defaultClusterSpec(member: string): { region?: string; zone?: string } {
  const n = Number(/^member(\d+)$/.exec(member)?.[1] ?? 0);
  if (n < 1) return {};
  const region = n % 2 === 1 ? "eu" : "us";
  return { region, zone: `${region}-${Math.ceil(n / 2)}` };
}

async function httpOk(port: number, path: string): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(5_000) })).ok;
  } catch {
    return false;
  }
}

async function metrics(port: number): Promise<Record<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
  const out: Record<string, number> = {};
  for (const line of text.split("\n")) {
    const m = /^(\S+)\s+(\S+)$/.exec(line.trim());
    if (m) out[m[1] as string] = Number(m[2]);
  }
  return out;
}
