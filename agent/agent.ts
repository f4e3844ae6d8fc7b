// Assembles the agent: the applied records and customizations it keeps in its member, the
// member's watches (member-watches.ts), the work runner, the metrics poller, the hub stream with
// its handlers (hub-handlers.ts), certificate renewal, heartbeats and the health server; stop()
// in reverse.
import { ownerOf } from "./judge/owner.ts";
import { readFile } from "node:fs/promises";
import { Discovery } from "../shared/discovery.ts";
import { startHealthServer } from "../shared/health-server.ts";
import { KubeRest } from "../shared/kube-rest.ts";
import { clusterUidOfCertificate } from "../shared/agent-pki.ts";
import { AppliedStore } from "./applied/applied-store.ts";
import { CertificateRenewer, CredentialStore } from "./hub/credentials.ts";
import { HubConnection } from "./hub/hub-connection.ts";
import { WorkRunner } from "./work/work-runner.ts";
import { AgentCustomizations } from "./interpreter/customizations.ts";
import { KubeMetricsSource } from "./metrics/metrics-source.ts";
import { WorkloadMetricsPoller } from "./metrics/workload-metrics.ts";
import { registerAgentMetrics } from "./agent-metrics.ts";
import type { AgentOptions, RunningAgent } from "./agent-options.ts";
import { hubHandlers } from "./hub-handlers.ts";
import { startMemberWatches } from "./member-watches.ts";
import { McsSync } from "./mcs/mcs-sync.ts";
import { MemberApiProxy } from "./member-api/member-api-proxy.ts";

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

  const member = startMemberWatches({ kc, rest, log, enqueue: (key) => runner.controller.enqueue(key) });
  const { objects, hpas, endpoints, heartbeats } = member;
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

  // Issue 40: the member's exports, reported over the stream, and the imports' IPs and status.
  const mcs = new McsSync({ kc, rest, log, cluster: opts.clusterName, clustersetId: opts.clustersetId ?? `flotilla-${ownerOf(ca, opts.clusterName).split("/")[0]}`, send: { report: (k) => connection.reportExport(k), synced: () => connection.reportExportsSynced() } });
  // Issue 41: callers' requests to this member, carried over the stream, made as the caller.
  const memberApi = new MemberApiProxy({ kc, cluster: opts.clusterName, allowWrites: opts.memberApi?.allowWrites ?? false, maxRequests: opts.memberApi?.maxRequests ?? 64, log });
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
    handlers: hubHandlers({ clusterName: opts.clusterName, rest, discovery, runner, metrics, customizations, mcs, memberApi, reportMetrics: (k) => connection.reportMetrics(k), heartbeat: () => void sendHeartbeat() }),
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
  void mcs.start();
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
      memberApi.destroy();
      await runner.controller.stop();
      await mcs.stop();
      await applied.flush().catch(() => undefined);
      member.stop();
      rest.close();
      await health?.close();
    },
  };
}
