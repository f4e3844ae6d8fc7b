// bench:fleet: one real control plane on a real control cluster, serving N simulated agents
// (fleet-sim-agent.ts: the real agent's HubConnection over mTLS, each with its own certificate and
// Cluster, no member behind it) run in W worker processes. Per N, on a fresh control cluster:
//   connect: all N connect and sync;                         → connectAllS
//   fanout: 1 ConfigMap for all N, then an update of it;     → fanoutP50/P99/MaxMs, updateP99Ms
//   writes: M more templates, one at a time (each reaches all N before the next), control-cluster
//     writes from the apiserver's apiserver_request_total besides the bench's own M, the Leases,
//     the Cluster status and refused requests, per template;  → controlWritesPerTemplate
//   idle: every write over --idle seconds, less the rate measured before any Cluster existed
//     (leader election, the apiserver's own Leases);          → heartbeatWritesPerS
//   the control plane's RSS then and its CPU so far;         → rssMiB, cpuS
//   reconnect storm: every agent's channel closed at once (--storm connections: new TCP and TLS,
//     as after a network cut: the agents live on and reconnect as after any stream end, with the
//     spread a hub told them) or stream cancelled (--storm streams), nothing changed; until all N
//     synced again, and the manifest bytes they received;   → reconnectAllS, reconnectManifestBytes
//     meanwhile the leader's Lease, polled from outside: leader changes (restarts included) and the
//     longest gap between renewals, and the most Clusters Ready=False at once (issue 25);
//                                                              → stormLeaderChanges, stormRenewGapMaxMs, stormNotReadyMax
//   restart: one agent restarts as the real agent does (restartHello); manifest bytes it received.
// With --templates T it measures memory instead: T templates under one policy for all N clusters,
// and the control plane's RSS once every agent acknowledged all T × N Works.
// Prints one line per N with each figure next to issue 12's goal; --json FILE writes them, keyed
// by N. Never fails on a time: exits non-zero only when a run could not complete, saying what.
//   node test/bench/fleet-scale.ts --agents 1000[,5000,…] [--workers W] [--templates T] [--json FILE]
//     [--changes M] [--idle S] [--background S] [--storm connections|streams] [--heartbeat-interval S]
//     [--timeout S] [--log-level L] [--keep-logs] [--control-plane-args=--flag=v,…] [--replicas R]
//     [--bundle] [--control-plane-node-args "FLAGS"] [--control-plane-env "K=V …"] [--heap-snapshot]
// --bundle runs the control plane from the bundle the image runs (test/env/test-bundles.ts: the same
// esbuild bundle, not minified) instead of the TypeScript sources; --control-plane-node-args puts
// Node.js flags on its command line, as the image's FLOTILLA_NODE_ARGS does; --control-plane-env
// sets variables in its environment alone (glibc's MALLOC_ARENA_MAX, say), not the simulator's;
// --heap-snapshot takes the control plane's heap snapshot after the idle window (heap-snapshot.ts)
// and prints its live objects by constructor (slow: the snapshot of a 500 MiB heap takes minutes).
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { RESOURCES } from "../../shared/api/resources.ts";
import { collectionPath, KubeRest, objectPath, type ResourceInfo } from "../../shared/kube-rest.ts";
import { workKey } from "../../shared/work-key.ts";
import { CLUSTER_PROFILES } from "../../control-plane/cluster-profiles/profile-controller.ts";
import { CLUSTER_FINALIZER } from "../../control-plane/clusters/registration.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { ensureTestBundles } from "../env/test-bundles.ts";
import { apiserverWrites, diffWrites, formatWrites, isBackgroundWrite as isBackground, totalWrites } from "./apiserver-metrics.ts";
import { type BenchReplicas, startBenchReplicas } from "./fleet-replicas.ts";
import { arrivalDelays, type FleetFigures, figuresLine, type MemoryFigures, memoryLine, quantile } from "./fleet-figures.ts";
import type { Receipt } from "./fleet-sim-agent.ts";
import { AgentWorkers } from "./fleet-workers.ts";
import { envPairs, positiveInt, words } from "./bench-args.ts";
import { heapBreakdown, printBreakdown, takeSnapshot } from "./heap-snapshot.ts";
import { memoryParts as partsOf, partsLine } from "./hub-floor-figures.ts";
import { keepFlotillaLogs } from "./keep-logs.ts";
import { totalCpuSeconds } from "./rss.ts";
import { leaseFigures, watchLease } from "./lease-watch.ts";

const { values } = parseArgs({
  options: {
    agents: { type: "string", default: "1000" },
    workers: { type: "string", default: "2" },
    templates: { type: "string" },
    json: { type: "string" },
    changes: { type: "string", default: "20" },
    idle: { type: "string", default: "60" },
    background: { type: "string", default: "20" },
    storm: { type: "string", default: "connections" },
    "heartbeat-interval": { type: "string", default: "10" },
    timeout: { type: "string", default: "900" },
    "log-level": { type: "string", default: "info" },
    "keep-logs": { type: "boolean", default: false },
    /** Extra control-plane flags, e.g. --control-plane-args=--leader-elect=false (comma-separated). */
    "control-plane-args": { type: "string", default: "" },
    /** Control-plane replicas behind one round-robin address (a Service); agents spread by fair share. */
    replicas: { type: "string", default: "1" },
    bundle: { type: "boolean", default: false },
    "control-plane-node-args": { type: "string", default: "" },
    "control-plane-env": { type: "string", default: "" },
    "heap-snapshot": { type: "boolean", default: false },
  },
});
const counts = (values.agents ?? "").split(",").map((v) => positiveInt("agents", v.trim()));
const W = positiveInt("workers", values.workers);
const T = values.templates === undefined ? undefined : positiveInt("templates", values.templates);
const M = positiveInt("changes", values.changes);
const idleMs = positiveInt("idle", values.idle) * 1000;
const backgroundMs = positiveInt("background", values.background) * 1000;
const heartbeatMs = positiveInt("heartbeat-interval", values["heartbeat-interval"]) * 1000;
const timeoutMs = positiveInt("timeout", values.timeout) * 1000;
if (values.storm !== "streams" && values.storm !== "connections") throw new Error("--storm is connections or streams");
const storm: "streams" | "connections" = values.storm;
const logLevel = values["log-level"] as string;
const R = positiveInt("replicas", values.replicas);

const NAMESPACE = "fleet-bench";
const FIELD_MANAGER = "flotilla-bench";
const LABEL = "fleet-bench";
const configMaps: ResourceInfo = { apiVersion: "v1", kind: "ConfigMap", plural: "configmaps", namespaced: true };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const epochNow = () => performance.timeOrigin + performance.now();
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const say = (line: string) => console.log(`  ${line}`);

/** Polls until done() answers true (a failed poll counts as not done: the control plane may be restarting); throws `what` after the timeout. */
async function until(what: string, done: () => Promise<boolean>, intervalMs = 250): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError = "";
  for (;;) {
    try {
      if (await done()) return;
    } catch (err) {
      lastError = `; last poll failed: ${err instanceof Error ? err.message : String(err)}`;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not done within ${secs(timeoutMs)}${lastError}`);
    await sleep(intervalMs);
  }
}

/** Runs fn over items with at most `limit` calls in flight. */
async function pool<Item, R>(items: Item[], limit: number, fn: (item: Item) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const run = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as Item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, run));
  return out;
}


function configMap(name: string, data: Record<string, string>): unknown {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: NAMESPACE, labels: { [LABEL]: "yes" } }, data };
}

/** How many agents each replica holds, "replica 1: 340, replica 2: 330, …". */
async function spread(cp: BenchReplicas): Promise<string> {
  return (await cp.perReplica("flotilla_connected_agents")).map((c, i) => `replica ${i + 1}: ${c ?? "?"}`).join(", ");
}

/** Everything one run at N agents has started. */
interface Run {
  fleet: Fleet;
  cp: BenchReplicas;
  rest: KubeRest;
  workers: AgentWorkers;
  n: number;
  /** Control-cluster writes per second before any Cluster existed. */
  backgroundPerS: number;
  connectAllS: number;
}

/** CPU seconds so far of the control plane's replicas, the forwarder in front of them, the simulator's workers and the control cluster's processes (a phase's limit, issue 42). */
async function partsCpu(run: Run): Promise<{ controlPlane: number; forwarder: number; simulator: number; controlCluster: number }> {
  return {
    controlPlane: (await run.cp.usage()).cpuS,
    forwarder: await totalCpuSeconds(run.cp.proxyPids),
    simulator: await totalCpuSeconds(run.workers.pids),
    controlCluster: await totalCpuSeconds(run.fleet.control.processes.map((p) => p.pid)),
  };
}

/** What each part took of the machine's two cores over a phase. */
function cpuLine(phase: string, before: Awaited<ReturnType<typeof partsCpu>>, after: Awaited<ReturnType<typeof partsCpu>>, wallS: number): string {
  const during = (k: keyof typeof after) => (after[k] - before[k]).toFixed(1);
  return `${phase} CPU over ${wallS.toFixed(1)} s (${(2 * wallS).toFixed(1)} CPU s on 2 cores): control plane ${during("controlPlane")} s${R > 1 ? `, the forwarder ${during("forwarder")} s` : ""}, the simulator's workers ${during("simulator")} s, the control apiserver and etcd ${during("controlCluster")} s`;
}

/** Where the control plane publishes ClusterProfiles: its --cluster-profile-namespace ("" when off). */
function profileNamespace(): string {
  const set = (values["control-plane-args"] as string).split(",").filter((a) => a.startsWith("--cluster-profile-namespace="));
  return set.length === 0 ? "flotilla-system" : (set.at(-1) as string).slice("--cluster-profile-namespace=".length);
}

/** Starts the control cluster, the control plane and N connected agents. */
async function startRun(n: number, started: { fleet?: Fleet; cp?: BenchReplicas; rest?: KubeRest; workers?: AgentWorkers }): Promise<Run> {
  const t = performance.now();
  const fleet = (started.fleet = await startFleet({ members: 0 }));
  // The name keepFlotillaLogs looks for: a failed run keeps them.
  const dir = join(fleet.root, "flotilla-logs");
  await mkdir(dir, { recursive: true });
  const cpArgs = (values["control-plane-args"] as string).split(",").filter((a) => a !== "");
  const nodeArgs = words(values["control-plane-node-args"]);
  if (values["heap-snapshot"] === true) nodeArgs.push("--heapsnapshot-signal=SIGUSR2", `--diagnostic-dir=${dir}`);
  const bin = values.bundle === true ? (await ensureTestBundles()).flotilla : undefined;
  const env = envPairs("control-plane-env", values["control-plane-env"]);
  const cp = (started.cp = await startBenchReplicas(fleet.control, dir, logLevel, cpArgs, R, { ...(bin === undefined ? {} : { bin }), nodeArgs, env }));
  const rest = (started.rest = new KubeRest(fleet.control.kubeConfig(), { maxSockets: 32 }));
  const how = `${bin === undefined ? "from the sources" : "from the bundle"}${nodeArgs.length > 0 ? `, node ${nodeArgs.join(" ")}` : ""}${Object.keys(env).length > 0 ? `, ${Object.entries(env).map(([k, v]) => `${k}=${v}`).join(" ")}` : ""}`;
  say(`control cluster and ${R === 1 ? "control plane" : `${R} control-plane replicas behind one address`} (${how}) up in ${secs(performance.now() - t)} (logs in ${dir})`);

  // Writes with no Cluster at all: what the idle window's count is measured against.
  const bg0 = await apiserverWrites(rest);
  await sleep(backgroundMs);
  const bg = diffWrites(bg0, await apiserverWrites(rest));
  const backgroundPerS = totalWrites(bg) / (backgroundMs / 1000);
  say(`background before any Cluster: ${backgroundPerS.toFixed(2)} writes/s (${formatWrites(bg) || "none"})`);

  const names = Array.from({ length: n }, (_, i) => `sim-${String(i + 1).padStart(5, "0")}`);
  let t0 = performance.now();
  const uids = await pool(names, 32, async (name) => {
    const c = await rest.request<{ metadata: { uid: string } }>("POST", collectionPath(RESOURCES.cluster), {
      body: { apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name }, spec: {} },
    });
    return c.metadata.uid;
  });
  const clustersMs = performance.now() - t0;
  t0 = performance.now();
  const workers = (started.workers = new AgentWorkers(W, (i) => join(dir, `agents-${i}.log`)));
  const per = Math.ceil(n / W);
  const setups = await workers.all<{ ms: number }>((i) => ({
    type: "setup",
    agents: names.slice(i * per, (i + 1) * per).map((name, j) => ({ name, uid: uids[i * per + j] as string })),
    ca: cp.first.ca,
    hubCaPem: cp.first.ca.certPem,
    address: cp.address,
    serverName: cp.first.serverName,
    heartbeatMs,
    logFile: join(dir, `agents-${i}.json.log`),
    logLevel: "warn",
  }));
  say(`setup: ${n} Clusters created in ${secs(clustersMs)}; ${n} keys + certificates in ${W} workers in ${secs(performance.now() - t0)} (slowest worker ${secs(Math.max(...setups.map((s) => s.ms)))})`);

  const tc = epochNow();
  await workers.all({ type: "connect" });
  await until(`all ${n} agents synced`, async () => (await workers.summary(tc)).syncedSince === n).catch(async (err: unknown) => {
    const s = await workers.summary(tc);
    const connected = await cp.metric("flotilla_connected_agents");
    const u = await cp.usage();
    throw new Error(`${err instanceof Error ? err.message : String(err)} (${s.synced} synced, ${s.connects} streams opened; the control plane counts ${connected} connected agents, has used ${u.cpuS.toFixed(1)} CPU s, RSS ${u.rssMiB.toFixed(1)} MiB; see the agents' logs for why streams ended)`);
  });
  const s = await workers.summary(tc);
  const connectAllS = (s.lastSyncAt - tc) / 1000;
  const connected = await cp.metric("flotilla_connected_agents");
  say(`connect: all ${n} synced in ${connectAllS.toFixed(1)} s (${s.connects} streams opened); the control plane counts ${connected} connected agents${R > 1 ? ` (${await spread(cp)})` : ""}; ${cp.restarts()} control-plane restarts so far`);
  if (connected !== n) throw new Error(`the control plane counts ${connected} connected agents, not ${n}: the simulated agents do not each hold their own connection`);
  t0 = performance.now();
  await until(`all ${n} Clusters Ready`, async () => {
    const list = await rest.get<{ items: { status?: { conditions?: { type: string; status: string }[] } }[] }>(collectionPath(RESOURCES.cluster), { resourceVersion: "0" });
    return list.items.filter((c) => c.status?.conditions?.some((x) => x.type === "Ready" && x.status === "True")).length === n;
  }, Math.max(1000, n / 5)); // a list of 10,000 Clusters is 15 MB: not too often
  say(`all ${n} Clusters Ready ${secs(performance.now() - t0)} after that`);
  // The leader's one-time writes per new Cluster (its cleanup finalizer, its ClusterProfile) come
  // with the fleet's creation, not with templates or time: the figures wait until they are done.
  t0 = performance.now();
  await until(`every Cluster's finalizer and ClusterProfile written`, async () => {
    const clusters = await rest.get<{ items: { metadata: { finalizers?: string[] } }[] }>(collectionPath(RESOURCES.cluster), { resourceVersion: "0" });
    if (clusters.items.filter((c) => c.metadata.finalizers?.includes(CLUSTER_FINALIZER) === true).length < n) return false;
    const namespace = profileNamespace();
    if (namespace === "") return true;
    const profiles = await rest.get<{ items: unknown[] }>(collectionPath(CLUSTER_PROFILES, namespace), { resourceVersion: "0" });
    return profiles.items.length >= n;
  }, Math.max(1000, n / 5));
  say(`every Cluster's finalizer and ClusterProfile written ${secs(performance.now() - t0)} after that`);

  await rest.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: NAMESPACE } } });
  // No placement: every Cluster.
  await rest.apply(objectPath(RESOURCES.propagationPolicy, NAMESPACE, "fleet"), {
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "PropagationPolicy",
    metadata: { name: "fleet", namespace: NAMESPACE },
    spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", labelSelector: { matchLabels: { [LABEL]: "yes" } } }] },
  }, FIELD_MANAGER);
  return { fleet, cp, rest, workers, n, backgroundPerS, connectAllS };
}

/** Per agent, the arrivals of a ConfigMap's Work. */
async function receipts(run: Run, name: string): Promise<Receipt[][]> {
  const key = workKey({ apiVersion: "v1", kind: "ConfigMap", namespace: NAMESPACE, name });
  return (await run.workers.all<Receipt[][]>({ type: "receipts", key })).flat();
}

/** Waits until every agent received a new hash of the ConfigMap's Work after t0; the delays (ms). */
async function arrivals(run: Run, name: string, t0: number, previous?: Receipt[][]): Promise<number[]> {
  let delays: (number | undefined)[] = [];
  await until(`${name} at all ${run.n} agents`, async () => {
    delays = arrivalDelays(await receipts(run, name), t0, previous && ((i) => previous[i]?.at(-1)?.hash));
    return delays.every((d) => d !== undefined);
  }, 100);
  return delays as number[];
}

/** Waits until the control plane's status write counters hold still for 3 s (at most 60 s). */
async function settle(run: Run): Promise<void> {
  const read = async () => ((await run.cp.metric("flotilla_binding_status_writes_total")) ?? 0) + ((await run.cp.metric("flotilla_template_status_writes_total")) ?? 0);
  const start = Date.now();
  let [last, stillSince] = [Number.NaN, start];
  await until("the control plane's status writes holding still", async () => {
    const now = await read();
    if (now !== last) [last, stillSince] = [now, Date.now()];
    return Date.now() - stillSince >= 3000 || Date.now() - start > 60_000;
  }, 500);
}

async function measure(run: Run): Promise<FleetFigures> {
  const { rest, workers, n } = run;
  // ---- fanout and update of one template --------------------------------------------------
  await settle(run);
  let t0 = epochNow();
  const fanCpu0 = await partsCpu(run);
  await rest.request("POST", collectionPath(configMaps, NAMESPACE), { body: configMap("fanout", { v: "1" }) });
  const fan = await arrivals(run, "fanout", t0);
  say(cpuLine("fanout", fanCpu0, await partsCpu(run), (epochNow() - t0) / 1000));
  const created = await receipts(run, "fanout");
  say(`fanout: 1 ConfigMap → all ${n}: p50 ${quantile(fan, 0.5).toFixed(0)} ms, p99 ${quantile(fan, 0.99).toFixed(0)} ms, max ${Math.max(...fan).toFixed(0)} ms`);
  await settle(run);
  t0 = epochNow();
  await rest.mergePatch(objectPath(configMaps, NAMESPACE, "fanout"), { data: { v: "2" } }, FIELD_MANAGER);
  const upd = await arrivals(run, "fanout", t0, created);
  say(`update: p50 ${quantile(upd, 0.5).toFixed(0)} ms, p99 ${quantile(upd, 0.99).toFixed(0)} ms, max ${Math.max(...upd).toFixed(0)} ms`);

  // ---- control-cluster writes per template --------------------------------------------------
  await settle(run);
  const w0 = await apiserverWrites(rest);
  for (let i = 0; i < M; i++) {
    const name = `change-${String(i).padStart(3, "0")}`;
    t0 = epochNow();
    await rest.request("POST", collectionPath(configMaps, NAMESPACE), { body: configMap(name, { i: String(i) }) });
    await arrivals(run, name, t0);
  }
  await settle(run);
  const writes = diffWrites(w0, await apiserverWrites(rest));
  const perTemplate = (totalWrites(writes, (k) => !isBackground(k)) - M) / M;
  say(`writes: ${M} templates, each at all ${n} before the next: ${formatWrites(writes)}; besides the bench's ${M} and the background: ${perTemplate.toFixed(2)} per template`);

  // ---- idle: heartbeats alone -----------------------------------------------------------------
  const i0 = await apiserverWrites(rest);
  await sleep(idleMs);
  const idle = diffWrites(i0, await apiserverWrites(rest));
  const idlePerS = totalWrites(idle) / (idleMs / 1000);
  const heartbeatWritesPerS = Math.max(0, idlePerS - run.backgroundPerS);
  say(`idle ${secs(idleMs)}: ${idlePerS.toFixed(2)} writes/s (${formatWrites(idle)}), ${run.backgroundPerS.toFixed(2)}/s of them background → ${heartbeatWritesPerS.toFixed(2)}/s from heartbeats`);
  const usage = await run.cp.usage();
  say(`control plane memory after the idle window: ${await memoryParts(run, usage.rssMiB)}`);
  if (values["heap-snapshot"] === true) {
    const heap = await heapBreakdown(await takeSnapshot(run.cp.first.process.pid, join(run.fleet.root, "flotilla-logs")));
    printBreakdown(`control plane at ${n} agents:`, heap, 30);
  }

  // ---- reconnect storm, nothing changed ----------------------------------------------------------
  const s0 = await workers.summary();
  const restarts0 = run.cp.restarts();
  const lease = watchLease(rest, "/apis/coordination.k8s.io/v1/namespaces/flotilla-system/leases/flotilla-control-plane");
  // Clusters judged NotReady meanwhile (a list of 10,000 Clusters is 15 MB: not too often).
  let notReadyMax = 0;
  let watching = true;
  const readiness = (async () => {
    while (watching) {
      const list = await rest.get<{ items: { status?: { conditions?: { type: string; status: string }[] } }[] }>(collectionPath(RESOURCES.cluster), { resourceVersion: "0" }).catch(() => ({ items: [] }));
      notReadyMax = Math.max(notReadyMax, list.items.filter((c) => c.status?.conditions?.some((x) => x.type === "Ready" && x.status === "False")).length);
      await sleep(Math.max(1000, n / 2));
    }
  })();
  const cpu0 = await partsCpu(run);
  const stormWrites0 = await apiserverWrites(rest);
  t0 = epochNow();
  await workers.all({ type: "cut", how: storm });
  await until(`all ${n} agents synced again after the storm`, async () => (await workers.summary(t0)).syncedSince === n);
  const leaseSeen = leaseFigures(await lease.stop());
  watching = false;
  await readiness;
  const stormRestarts = run.cp.restarts() - restarts0;
  const admissions = await run.cp.metric("flotilla_agent_admissions_refused_total");
  say(`storm: the leader's Lease renewed ${leaseSeen.renewals} times, gaps p99 ${leaseSeen.gapP99Ms} ms, max ${leaseSeen.gapMaxMs} ms; ${leaseSeen.leaderChanges} leader changes, ${stormRestarts} control-plane restarts; ${admissions ?? "?"} admissions refused so far; at most ${notReadyMax} Clusters Ready=False at once`);
  const s1 = await workers.summary(t0);
  const reconnectAllS = (s1.lastSyncAt - t0) / 1000;
  const cpu1 = await partsCpu(run);
  say(`storm: control-cluster writes ${formatWrites(diffWrites(stormWrites0, await apiserverWrites(rest)))}`);
  say(cpuLine("storm", cpu0, cpu1, (epochNow() - t0) / 1000));
  const reconnectManifestBytes = s1.manifestBytes - s0.manifestBytes;
  const resynced = (await workers.all<number[]>({ type: "syncTimes" })).flat().map((at) => at - t0);
  say(`reconnect storm (${storm}): all ${n} synced again in ${reconnectAllS.toFixed(1)} s (p50 ${quantile(resynced, 0.5).toFixed(0)} ms, p99 ${quantile(resynced, 0.99).toFixed(0)} ms), ${s1.connects - s0.connects} streams opened, ${reconnectManifestBytes} manifest bytes received${R > 1 ? `; ${await spread(run.cp)}` : ""}`);

  // ---- one agent restarts ---------------------------------------------------------------------
  await settle(run);
  const restart = await workers.one<{ manifestBytes: number; held: number }>(0, { type: "restart", index: 0, timeoutMs });
  say(`restart of one agent holding ${restart.held} Works: ${restart.manifestBytes} manifest bytes received`);

  const fin = await run.cp.usage();
  say(`control plane${R > 1 ? ` (the largest of ${R} replicas; CPU of all)` : ""}: RSS ${usage.rssMiB.toFixed(1)} MiB after the idle window, ${fin.rssMiB.toFixed(1)} MiB at the end; CPU ${fin.cpuS.toFixed(1)} s in all; ${run.cp.restarts()} restarts`);
  return {
    connectAllS: round(run.connectAllS, 2),
    fanoutP50Ms: round(quantile(fan, 0.5), 0),
    fanoutP99Ms: round(quantile(fan, 0.99), 0),
    fanoutMaxMs: round(Math.max(...fan), 0),
    updateP99Ms: round(quantile(upd, 0.99), 0),
    controlWritesPerTemplate: round(perTemplate, 2),
    heartbeatWritesPerS: round(heartbeatWritesPerS, 2),
    rssMiB: round(usage.rssMiB, 1),
    cpuS: round(usage.cpuS, 1),
    reconnectAllS: round(reconnectAllS, 2),
    reconnectManifestBytes,
    restartManifestBytes: restart.manifestBytes,
    stormLeaderChanges: leaseSeen.leaderChanges + stormRestarts,
    stormRenewGapMaxMs: leaseSeen.gapMaxMs,
    stormNotReadyMax: notReadyMax,
  };
}

/**
 * The control plane's RSS in parts, from its /metrics (summed over replicas): V8's heap (used of
 * total), external memory (Buffers, ArrayBuffers), and the rest (code, native allocations V8 is
 * not told of: TLS and HTTP/2 sessions, allocator slack).
 */
async function memoryParts(run: Run, rssMiB: number): Promise<string> {
  const [heapUsed, heapTotal, external] = await Promise.all(["nodejs_heap_size_used_bytes", "nodejs_heap_size_total_bytes", "nodejs_external_memory_bytes"].map((m) => run.cp.metric(m)));
  const perAgent = `${((rssMiB * 1024) / run.n).toFixed(1)} KiB of RSS per agent`;
  // With replicas the metrics are summed and the RSS is the largest one's: no parts to give.
  if (heapUsed === undefined || heapTotal === undefined || external === undefined || R > 1) return `RSS ${rssMiB.toFixed(1)} MiB (${perAgent})`;
  return `${partsLine(partsOf({ rss: rssMiB * 1024 * 1024, heapUsed, heapTotal, external }), "MiB")} (${perAgent})`;
}

async function measureMemory(run: Run, templates: number): Promise<MemoryFigures> {
  const t0 = performance.now();
  const names = Array.from({ length: templates }, (_, i) => `mem-${String(i).padStart(5, "0")}`);
  await pool(names, 16, (name) => run.rest.request("POST", collectionPath(configMaps, NAMESPACE), { body: configMap(name, { name }) }));
  say(`${templates} ConfigMaps created in ${secs(performance.now() - t0)}`);
  let last = 0;
  await until(`all ${run.n} agents holding ${templates} Works`, async () => {
    const s = await run.workers.summary();
    if (s.held - last >= run.n * 1000) say(`  … ${s.held} Works held at ${secs(performance.now() - t0)}`);
    last = s.held - last >= run.n * 1000 ? s.held : last;
    return s.minHeld >= templates && s.synced === run.n;
  }, 1000);
  const loadS = (performance.now() - t0) / 1000;
  const s = await run.workers.summary();
  await settle(run);
  const usage = await run.cp.usage();
  say(`control plane restarts: ${run.cp.restarts()}`);
  return { agents: run.n, templates, works: s.held, loadS: round(loadS, 1), rssMiB: round(usage.rssMiB, 1), cpuS: round(usage.cpuS, 1) };
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

const results: Record<string, FleetFigures | MemoryFigures> = {};
const lines: string[] = [];
let failure: string | undefined;
console.log(`bench:fleet: agents ${counts.join(", ")} in ${W} workers${R > 1 ? `; ${R} control-plane replicas behind one round-robin address` : ""}${T === undefined ? "" : `, ${T} templates (memory mode)`}; heartbeat every ${secs(heartbeatMs)}; control plane with its default cluster and leader-election flags (failure threshold 30s, lease renewal 60s, status report 5m)${values["control-plane-args"] ? `, and ${values["control-plane-args"]}` : ""}; storm: ${storm}`);
for (const n of counts) {
  console.log(`N=${n}`);
  const started: { fleet?: Fleet; cp?: BenchReplicas; rest?: KubeRest; workers?: AgentWorkers } = {};
  try {
    const run = await startRun(n, started);
    if (T === undefined) {
      const f = await measure(run);
      results[String(n)] = f;
      lines.push(figuresLine(n, f));
    } else {
      const f = await measureMemory(run, T);
      results[`${n}x${T}`] = f;
      lines.push(memoryLine(f));
    }
    console.log(lines.at(-1));
    if (values["keep-logs"]) await keepFlotillaLogs(started.fleet);
  } catch (err) {
    failure = `N=${n}: ${err instanceof Error ? err.message : String(err)}`;
    console.error(failure);
    if (started.cp) console.error(`control plane log tail:\n${started.cp.first.process.tail(15)}`);
    await keepFlotillaLogs(started.fleet);
  } finally {
    started.rest?.close();
    await started.workers?.stop();
    await started.cp?.stop();
    await started.fleet?.stop();
  }
  if (failure !== undefined) break;
}
console.log("");
for (const l of lines) console.log(l);
if (values.json !== undefined) {
  await writeFile(values.json, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`wrote ${values.json}`);
}
if (failure !== undefined) {
  console.error(`could not complete: ${failure}`);
  process.exitCode = 1;
}
// Whatever keep-alive handle is left must not hold the process (everything started is stopped).
process.exit();
