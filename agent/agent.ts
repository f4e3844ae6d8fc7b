// Assembles the agent: the applied-record store, the work runner, the object watch, heartbeats
// and the hub stream.
import { ownerOf } from "./judge/owner.ts";
import { readFile } from "node:fs/promises";
import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import { Discovery } from "../shared/discovery.ts";
import { startHealthServer } from "../shared/health-server.ts";
import { KubeRest } from "../shared/kube-rest.ts";
import { clusterUidOfCertificate } from "../shared/agent-pki.ts";
import { AppliedStore } from "./applied/applied-store.ts";
import { CertificateRenewer, CredentialStore, type RegistrationOptions } from "./hub/credentials.ts";
import { HeartbeatSource } from "./heartbeat/heartbeat.ts";
import { HubConnection } from "./hub/hub-connection.ts";
import { AGENT_VERSION, helloOf } from "./hub/hello.ts";
import { readLive } from "./hub/live-objects.ts";
import { ObjectWatch } from "./applied/object-watch.ts";
import { UnschedulablePodWatch } from "./status/unschedulable-watch.ts";
import { WorkRunner } from "./work/work-runner.ts";
import { workOfService, worksOfPod } from "./work/member-events.ts";
import { HpaIndex } from "./apply/hpa-index.ts";
import { EndpointSliceIndex } from "./status/endpoint-slices.ts";
import { AgentCustomizations } from "./interpreter/customizations.ts";
import { KubeMetricsSource } from "./metrics/metrics-source.ts";
import { WorkloadMetricsPoller } from "./metrics/workload-metrics.ts";
import { registerAgentMetrics } from "./agent-metrics.ts";

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
  /** --max-reconnect-backoff: the longest wait between attempts to reach the hub (default and most AGENT_MAX_RECONNECT_BACKOFF_MS). */
  maxReconnectBackoffMs?: number;
}

export interface RunningAgent {
  connection: HubConnection;
  customizations: AgentCustomizations;
  runner: WorkRunner;
  applied: AppliedStore;
  healthPort: number | undefined;
  stop(): Promise<void>;
}

/** Starts the agent; resolves once its own caches are loaded and the stream is being opened. */
export async function startAgent(opts: AgentOptions): Promise<RunningAgent> {
  const { kc, log } = opts;
  const rest = new KubeRest(kc, { maxSockets: 16 });
  const discovery = new Discovery(rest);
  const applied = new AppliedStore({ rest, namespace: opts.stateNamespace, log });
  await applied.load();
  log.info({ works: applied.keys().length }, "applied records loaded");
  // The fleet's customizations as last received, before any Work is judged with them.
  const customizations = new AgentCustomizations({ rest, namespace: opts.stateNamespace, log });
  await customizations.load();

  const objects = new ObjectWatch({ kc, rest, log, onChange: (key) => runner.controller.enqueue(key) });
  const hpas = new HpaIndex({ kc, rest, log });
  const enqueue = (keys: string[]) => keys.forEach((k) => runner.controller.enqueue(k));
  // A Service's ready endpoints changed: its Work reports again.
  const endpoints = new EndpointSliceIndex({ kc, rest, log, onChange: (namespace, service) => enqueue(workOfService(objects, namespace, service)) });
  const heartbeats = new HeartbeatSource({ kc, rest, log, agentVersion: AGENT_VERSION });
  // A pod that becomes Unschedulable, or stops being so, changes its workload's report.
  const unschedulable = new UnschedulablePodWatch((namespace, labels) => enqueue(worksOfPod(objects, namespace, labels)));
  heartbeats.onPod((pod, deleted) => unschedulable.seen(pod, deleted));
  // The fleet's CA names the fleet in every object this agent applies (agent/judge/owner.ts).
  const ca = await readFile(opts.tls.caFile);
  const runner: WorkRunner = new WorkRunner({
    rest,
    discovery,
    applied,
    objects,
    hpas,
    endpoints,
    pods: heartbeats,
    log,
    workers: opts.workers,
    ...(opts.keptRecheckMs === undefined ? {} : { keptRecheckMs: opts.keptRecheckMs }),
    owner: ownerOf(ca, opts.clusterName),
    customized: (obj) => customizations.for(obj),
    report: (key) => connection.reportStatus(key),
    requestContents: (key) => connection.requestContents(key),
    resync: () => connection.resync(),
  });
  await heartbeats.start();
  // The workloads the hub wants summarised, polled over the heartbeat's pod cache.
  const metrics = new WorkloadMetricsPoller({
    source: new KubeMetricsSource(rest, discovery),
    pods: (namespace) => heartbeats.podsIn(namespace),
    intervalMs: opts.metricsIntervalMs ?? 15_000,
    ...(opts.hpaReadiness === undefined ? {} : { readiness: opts.hpaReadiness }),
    log: log.child({ component: "workload-metrics" }),
    changed: (key) => connection.reportMetrics(key),
  });

  const credentials = new CredentialStore({ rest, namespace: opts.stateNamespace, secretName: opts.credentialsSecret, caPem: ca, clusterName: opts.clusterName, log });
  const creds = await credentials.load({ certFile: opts.tls.certFile, keyFile: opts.tls.keyFile }, opts.registration);
  // Records say which registration each Work was applied under (issue 37, item 7).
  runner.registration = clusterUidOfCertificate(creds.certPem);
  runner.stampRegistration();
  const connection: HubConnection = new HubConnection({
    address: opts.hubAddress,
    serverName: opts.hubServerName,
    ...(opts.maxReconnectBackoffMs === undefined ? {} : { maxBackoffMs: opts.maxReconnectBackoffMs }),
    ca,
    cert: Buffer.from(creds.certPem),
    key: Buffer.from(creds.keyPem),
    log,
    handlers: {
      hello: () =>
        helloOf({
          clusterName: opts.clusterName,
          workHashes: runner.helloHashes(),
          earlierWorks: runner.earlierRegistrationWorks(),
          customizationsHash: customizations.hash,
          metricsWantedHash: metrics.hash,
        }),
      metricsWanted: (m) => metrics.want(m),
      workloadMetrics: (key) => metrics.latest(key),
      customizations: (c) => void customizations.receive(c).then((kinds) => runner.reinterpret(kinds)),
      upsert: (u) => runner.receive(u),
      delete: (k, preserve, reason) => runner.delete(k, preserve, reason),
      syncDone: () => {
        runner.afterSync();
        for (const k of metrics.keys()) connection.reportMetrics(k);
        void sendHeartbeat();
      },
      status: (k) => runner.status(k),
      live: (req) => readLive(rest, discovery, req),
    },
  });
  const sendHeartbeat = async () => {
    try {
      connection.heartbeat(await heartbeats.build());
    } catch (err) {
      log.warn({ err: String(err) }, "building a heartbeat failed");
    }
  };
  // Works held by hash are checked against the watch caches, not one read each: the runner starts
  // once the recorded kinds are listed (or after 30 s; until then reads go to the apiserver).
  let stopped = false;
  const watched = Date.now();
  void Promise.race([runner.watchRecorded(), new Promise((r) => setTimeout(r, 30_000).unref())]).then(() => {
    log.info({ ms: Date.now() - watched }, "watching the recorded kinds");
    if (!stopped) runner.controller.start();
  });
  connection.start();
  metrics.start();
  const renewer = creds.renewable
    ? new CertificateRenewer({
        clusterName: opts.clusterName,
        renewBeforeMs: opts.renewBeforeMs,
        renew: (csr) => connection.renew(csr),
        store: credentials,
        use: (c) => connection.updateCredentials(Buffer.from(c.certPem), Buffer.from(c.keyPem)),
        log,
      })
    : undefined;
  renewer?.start(creds.certPem);
  const beat = setInterval(() => void sendHeartbeat(), opts.heartbeatMs);

  registerAgentMetrics({ connection, runner, applied, customizations, metrics });
  const health = opts.healthListen === "" ? undefined : await startHealthServer(opts.healthListen, () => connection.connected);

  return {
    connection,
    customizations,
    runner,
    applied,
    healthPort: health?.port,
    stop: async () => {
      stopped = true;
      clearInterval(beat);
      metrics.stop();
      renewer?.stop();
      connection.stop();
      await runner.controller.stop();
      await applied.flush().catch(() => undefined);
      objects.stop();
      hpas.stop();
      endpoints.stop();
      heartbeats.stop();
      rest.close();
      await health?.close();
    },
  };
}
