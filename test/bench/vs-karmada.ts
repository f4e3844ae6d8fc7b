// Benchmark of Flotilla against Karmada v1.18.0 (pull mode), side by side in one run: the same
// members, the same workloads, both systems up the whole time, taking turns at going first.
// - Single-change latency: a ConfigMap template created, updated (data.v) and deleted in each
//   system's control apiserver under a PropagationPolicy (the same spec, each in its own API
//   group), each timed until every member's watch shows it; --samples N per operation, the
//   sides alternating which goes first; p50/p99 and the ratio Flotilla / Karmada.
// - Propagation: --templates T one-replica Deployments × every member, from the first apply until
//   they all exist in every member, are Available there, and every template's status in the
//   control apiserver shows the fleet's sum; --rounds R (default 2) in alternating order, new
//   namespaces each round; the efficiency Karmada time ÷ Flotilla time (above 1: Flotilla is
//   faster), control-apiserver writes per template (from each apiserver's apiserver_request_total)
//   and member writes.
// - Idle: each system's writes over --idle seconds with nothing changing (heartbeats, status).
// - Memory and CPU: RSS (now and peak) and CPU seconds of every process of both systems, their own
//   components apart from the etcd, kube-apiserver and kube-controller-manager that each runs as
//   its control apiserver, alike; and Node.js's floor beside the idle agents (node-floor.ts: a bare
//   node and one holding only a TLS gRPC channel to the hub, with the agent's Node flags).
// Both run at their product defaults: Flotilla from its production bundles with the agent chart's
// Node flags and the control plane's default heartbeat and status timings; Karmada as
// test/env/karmada.ts starts it (its defaults). Neither elects a leader (one replica each). One
// difference is set on purpose: Flotilla's deletion brake is off (--deletion-budget-percent=100),
// since the latency phase deletes an object per sample and Karmada has no such brake.
// Never fails on a time: it exits non-zero only when a run could not complete, saying why.
//   node test/bench/vs-karmada.ts [--samples N] [--templates T] [--rounds R] [--members K] [--timeout S]
//     [--propagate-timeout S] [--idle S] [--sources] [--log-level L] [--keep-logs]
// --log-level sets Flotilla's processes' (default warn); --keep-logs keeps Flotilla's and the
// clusters' logs, and Karmada's, after a run that did not fail too (a failed run always keeps them).
import { cp, mkdtemp, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { KubeConfig } from "@kubernetes/client-node";
import { bundleAll } from "../../scripts/bundle.ts";
import { KubeRest, objectPath, type ResourceInfo } from "../../shared/kube-rest.ts";
import type { ManagedProcess } from "../env/managed-process.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { flagValue, type Karmada, startKarmada } from "../env/karmada.ts";
import { addWrites, apiserverWrites, formatWrites, isLease, totalWrites, type WriteCounts, writesDiff, writesOf } from "./apiserver-metrics.ts";
import { keepFlotillaLogs } from "./keep-logs.ts";
import { FIELD_MANAGER, measurePhase, SAMPLE, samplePolicySpec, sampleCycle, type Times } from "./latency-fleet.ts";
import { pool } from "./latency-pool.ts";
import { untilStill } from "./latency-settle.ts";
import { Sightings } from "./latency-sightings.ts";
import { type BenchSupervisor, superviseFlotilla } from "./latency-supervise.ts";
import { formatTable, type Row } from "./latency-table.ts";
import { availableIn, awaitAll, BENCH_LABEL, benchDeployment, benchNames, deployments, reportMissing, secs, type Watched } from "./member-deployments.ts";
import { type NodeFloor, startNodeFloor } from "./node-floor.ts";
import { cpuSeconds, mib, peakRssBytes, rssBytes } from "./rss.ts";
import { controlWrites, isControlStack, memoryTable, type ProcessFigure, propagationTable, type PropagationRun, ratio, type System } from "./vs-karmada-figures.ts";

/** The agent chart's nodeOptions and nodeArgs. */
const AGENT_NODE_ARGS = ["--max-semi-space-size=1", "--optimize-for-size", "--single-threaded"];

const { values } = parseArgs({
  options: {
    samples: { type: "string", default: "30" },
    templates: { type: "string", default: "200" },
    rounds: { type: "string", default: "2" },
    members: { type: "string", default: "2" },
    timeout: { type: "string", default: "30" },
    "propagate-timeout": { type: "string", default: "600" },
    idle: { type: "string", default: "60" },
    sources: { type: "boolean", default: false },
    "log-level": { type: "string", default: "warn" },
    "keep-logs": { type: "boolean", default: false },
  },
});
const N = Number(values.samples);
const T = Number(values.templates);
const ROUNDS = Number(values.rounds);
const K = Number(values.members);
const timeoutMs = Number(values.timeout) * 1000;
const propagateTimeoutMs = Number(values["propagate-timeout"]) * 1000;
const idleMs = Number(values.idle) * 1000;
for (const [flag, v] of [["samples", N], ["templates", T], ["rounds", ROUNDS], ["members", K], ["timeout", timeoutMs], ["propagate-timeout", propagateTimeoutMs]] as const) {
  if (!Number.isInteger(v) || v < 1) throw new Error(`--${flag} wants a positive integer`);
}
if (!Number.isInteger(idleMs) || idleMs < 0) throw new Error("--idle wants an integer ≥ 0");

const APPLY_CONCURRENCY = 16;
const PODS_PER_NODE = 110;
const karmadaPolicies: ResourceInfo = { apiVersion: "policy.karmada.io/v1alpha1", kind: "PropagationPolicy", plural: "propagationpolicies", namespaced: true };
const flotillaPolicies: ResourceInfo = { apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", plural: "propagationpolicies", namespaced: true };

/** One system under test: its control apiserver and its processes. */
interface Side {
  system: System;
  control: KubeRest;
  /** The apiservers whose writes are the system's control writes (keys of the bench's apiserver map). */
  writeSources: string[];
  policies: ResourceInfo;
  /** Every process, its own components and its control apiserver's. */
  processes(): ManagedProcess[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Creates `namespace` in the side's control apiserver, with a PropagationPolicy of `spec` in it. */
async function prepareNamespace(side: Side, namespace: string, spec: Record<string, unknown>): Promise<void> {
  await side.control.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } } });
  await side.control.apply(
    objectPath(side.policies, namespace, "bench"),
    { apiVersion: side.policies.apiVersion, kind: "PropagationPolicy", metadata: { name: "bench", namespace }, spec },
    FIELD_MANAGER,
  );
}

/** Waits until an apiserver's writes besides Leases hold still for 3 s (at most 60 s), so trailing status writes are counted. */
async function settleWrites(rest: KubeRest): Promise<void> {
  await untilStill(async () => totalWrites(await apiserverWrites(rest), (k) => !isLease(k)));
}

/** Karmada's admin credentials pointed at its aggregated apiserver (same CA), for its /metrics. */
function aggregatedApiserverConfig(km: Karmada): KubeConfig {
  const p = km.processes.find((x) => x.name === "karmada-aggregated-apiserver");
  const port = p === undefined ? undefined : flagValue(p.args, "secure-port");
  if (port === undefined) throw new Error("Karmada's aggregated apiserver has no --secure-port");
  const kc = km.kubeConfig();
  const current = kc.getCurrentCluster();
  if (current === null) throw new Error("Karmada's kubeconfig has no current cluster");
  const out = new KubeConfig();
  out.loadFromOptions({
    clusters: kc.clusters.map((c) => (c.name === current.name ? { ...c, server: `https://127.0.0.1:${port}` } : c)),
    users: kc.users,
    contexts: kc.contexts,
    currentContext: kc.currentContext,
  });
  return out;
}

async function cpuOf(ps: ManagedProcess[]): Promise<Map<ManagedProcess, number>> {
  return new Map(await Promise.all(ps.map(async (p) => [p, await cpuSeconds(p.pid).catch(() => Number.NaN)] as const)));
}

/** Each side's CPU seconds between two readings: its own components, and its control apiserver's. */
function cpuLine(sides: Side[], before: Map<ManagedProcess, number>, after: Map<ManagedProcess, number>): string {
  const of = (side: Side, stack: boolean) =>
    side.processes().filter((p) => isControlStack(p.name) === stack).reduce((n, p) => n + ((after.get(p) ?? Number.NaN) - (before.get(p) ?? Number.NaN)), 0);
  const own = sides.map((s) => of(s, false));
  return `${sides.map((s, i) => `${s.system} ${(own[i] as number).toFixed(1)} s (control apiserver ${of(s, true).toFixed(1)} s)`).join(", ")}; ratio flotilla / karmada (own) ${ratio(own[0] as number, own[1] as number)}`;
}

async function memory(sides: Side[]): Promise<ProcessFigure[]> {
  const out: ProcessFigure[] = [];
  for (const side of sides) {
    for (const p of side.processes()) {
      if (!p.running) continue;
      out.push({ system: side.system, name: p.name, rssBytes: await rssBytes(p.pid), peakBytes: await peakRssBytes(p.pid) });
    }
  }
  return out;
}

/** "" or " (not running: …)" for processes of either side that exited. */
function exitedLine(sides: Side[]): string {
  const gone = sides.flatMap((s) => s.processes().filter((p) => !p.running).map((p) => `${s.system} ${p.name}`));
  return gone.length === 0 ? "" : ` (not running: ${gone.join(", ")})`;
}

/** Keeps Flotilla's, the clusters' and Karmada's logs (stop() removes their directories) and says where. */
async function keepLogs(fleet: Fleet | undefined, karmada: Karmada | undefined): Promise<void> {
  await keepFlotillaLogs(fleet, { clusters: true });
  if (karmada === undefined) return;
  const keep = await mkdtemp(join(tmpdir(), "flotilla-bench-karmada-logs-"));
  for (const f of (await readdir(karmada.dir).catch(() => [])).filter((x) => x.endsWith(".log"))) await cp(join(karmada.dir, f), join(keep, f)).catch(() => undefined);
  console.error(`Karmada's logs kept in ${keep}`);
}

let fleet: Fleet | undefined;
let flotilla: Flotilla | undefined;
let karmada: Karmada | undefined;
let supervisor: BenchSupervisor | undefined;
const rests: KubeRest[] = [];
const sightings: Sightings[] = [];
let floor: NodeFloor | undefined;
let failed = false;
try {
  const tStart = performance.now();
  const bundles = values.sources ? undefined : await bundleAll();
  const nodesPerMember = Math.ceil((2 * T * ROUNDS) / PODS_PER_NODE) + 1;
  fleet = await startFleet({ members: K, nodesPerMember });
  const fleetUp = performance.now();
  flotilla = await startFlotilla(fleet, {
    logLevel: values["log-level"],
    ...(bundles ? { version: { flotillaBin: bundles.flotilla.file }, agentBin: bundles.agent.file } : {}),
    agentNodeArgs: AGENT_NODE_ARGS,
    // The product's defaults (test/env's are shorter, for fast tests).
    heartbeatInterval: "10s",
    clusterFailureThreshold: "30s",
    clusterStatusUpdateFrequency: "5m",
    clusterLeaseRenewInterval: "60s",
    controlPlaneArgs: ["--leader-elect=false", "--deletion-budget-percent=100"],
  });
  const flotillaUp = performance.now();
  // Issue 42: Node.js's floor in the same run, with the agent's Node flags: a bare node, and one
  // holding only a TLS gRPC channel to the hub as member1 (node-floor.ts). Up as long as the agents.
  const member1 = fleet.members[0]?.name ?? "member1";
  const certs = flotilla.certsDir;
  floor = await startNodeFloor(AGENT_NODE_ARGS, { address: `127.0.0.1:${flotilla.agentHubPort}`, serverName: "localhost", caFile: join(certs, "ca.crt"), certFile: join(certs, `${member1}.crt`), keyFile: join(certs, `${member1}.key`) });
  const fl = flotilla;
  const controlProcesses = fleet.control.processes;
  supervisor = superviseFlotilla(fl);
  const sup = supervisor;
  karmada = await startKarmada({ members: fleet.members, dir: await mkdtemp(join(tmpdir(), "flotilla-vs-karmada-")) });
  const km = karmada;
  const karmadaUp = performance.now();
  console.log(
    `fleet: ${K} members × ${nodesPerMember} kwok nodes in ${secs(fleetUp - tStart)}; Flotilla (${bundles ? "production bundles" : "TypeScript sources"}) up in ${secs(flotillaUp - fleetUp)}; Karmada v1.18.0 (pull mode) up in ${secs(karmadaUp - flotillaUp)}`,
  );

  const rest = (kc: ReturnType<Fleet["control"]["kubeConfig"]>) => {
    const r = new KubeRest(kc, { maxSockets: APPLY_CONCURRENCY + 4 });
    rests.push(r);
    return r;
  };
  const flotillaSide: Side = { system: "flotilla", control: rest(fleet.control.kubeConfig()), writeSources: ["flotilla"], policies: flotillaPolicies, processes: () => [...controlProcesses, ...fl.processes()] };
  // Karmada's Clusters are served by its aggregated apiserver: its writes count too.
  const karmadaSide: Side = { system: "karmada", control: rest(km.kubeConfig()), writeSources: ["karmada", "karmada-aggregated"], policies: karmadaPolicies, processes: () => km.processes };
  const sides = [flotillaSide, karmadaSide];
  const members = new Map(fleet.members.map((m) => [m.name, rest(m.kubeConfig())]));
  const memberNames = [...members.keys()];
  const idleMemory = await memory(sides);
  const floorLine = `Node.js's floor, same run and the agent's flags: a bare node ${mib(await rssBytes(floor.bare))}, one holding only a TLS gRPC channel to the hub ${mib(await rssBytes(floor.grpc))}`;
  console.log(floorLine);
  await floor.stop();
  floor = undefined;

  // ---- Single-change latency -----------------------------------------------------------------
  for (const m of fleet.members) {
    const s = new Sightings(m.name, m.kubeConfig(), members.get(m.name) as KubeRest, SAMPLE);
    sightings.push(s);
    await s.start();
  }
  const cycle = sampleCycle(sightings, timeoutMs);
  const latencyNs = (s: Side) => `vs-${s.system}-latency`;
  for (const s of sides) await prepareNamespace(s, latencyNs(s), samplePolicySpec());
  const cpuLatency0 = await cpuOf(sides.flatMap((s) => s.processes()));
  const measure = (s: Side) => (name: string): Promise<Times> => cycle([s.control], latencyNs(s), name);
  const rows: Row[] = await measurePhase(
    { supervisor: { restartsSince: () => `${sup.restartsSince()}${exitedLine(sides)}` } },
    "latency",
    N,
    { measured: measure(flotillaSide), baseline: measure(karmadaSide) },
    { measured: "flotilla", baseline: "karmada" },
  );
  console.log(`CPU over the latency phase: ${cpuLine(sides, cpuLatency0, await cpuOf(sides.flatMap((s) => s.processes())))}`);
  const latencyMemory = await memory(sides);

  // ---- Propagation: T Deployments × K members, rounds in alternating order --------------------
  const names = benchNames(T);
  const everyRest = new Map<string, KubeRest>([["flotilla", flotillaSide.control], ["karmada", karmadaSide.control], ["karmada-aggregated", rest(aggregatedApiserverConfig(km))], ...members]);
  const systemWrites = (side: Side, w: Map<string, WriteCounts>) => side.writeSources.reduce((sum: WriteCounts, k) => addWrites(sum, w.get(k) ?? new Map()), new Map());
  const spec = { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", labelSelector: { matchLabels: { [BENCH_LABEL]: "true" } } }] };
  const runs: PropagationRun[] = [];
  const propagate = async (side: Side, round: number): Promise<PropagationRun> => {
    const ns = `vs-${side.system}-${round}`;
    await prepareNamespace(side, ns, spec);
    const w0 = await writesOf(everyRest);
    const inMembers = [...members].map(([n, r]) => availableIn(r, `${side.system} ${n}`, ns, names));
    const summed = availableIn(side.control, `${side.system} control`, ns, names, K);
    const watched: Watched[] = [...inMembers, summed];
    const t0 = performance.now();
    const [result] = await Promise.all([
      awaitAll(watched, t0, propagateTimeoutMs),
      pool(names, APPLY_CONCURRENCY, async (n) => void (await side.control.apply(objectPath(deployments, ns, n), benchDeployment(ns, n), FIELD_MANAGER))),
    ]);
    if (result.done.size < watched.length) await reportMissing(`${side.system} round ${round}`, watched, result.missing, result.done, propagateTimeoutMs);
    await settleWrites(side.control);
    const writes = writesDiff(w0, await writesOf(everyRest));
    const cw = controlWrites(systemWrites(side, writes), T, T);
    const run: PropagationRun = {
      system: side.system,
      round,
      existMs: Math.max(...inMembers.map((w) => (w.allExistAt ?? Number.NaN) - t0)),
      availableMs: Math.max(...inMembers.map((w) => result.done.get(w.what) as number)),
      summedMs: result.done.get(summed.what) as number,
      controlPerTemplate: cw.perTemplate,
      eventsPerTemplate: cw.eventsPerTemplate,
      controlRefused: cw.refused,
      memberWrites: memberNames.reduce((n, m) => n + totalWrites(writes.get(m) ?? new Map(), (k) => !isLease(k)), 0),
    };
    console.log(
      `${side.system} (round ${round}): exist ${secs(run.existMs)}, Available ${secs(run.availableMs)}, fleet sum on the templates ${secs(run.summedMs)}; control writes per template ${run.controlPerTemplate.toFixed(2)} (Events ${cw.eventsPerTemplate.toFixed(2)}; refused ${cw.refused}, background ${cw.background})${sup.restartsSince()}${exitedLine(sides)}`,
    );
    if (round === 1) console.log(`  ${side.system} control apiserver: ${formatWrites(systemWrites(side, writes))}`);
    return run;
  };
  const cpuPropagate0 = await cpuOf(sides.flatMap((s) => s.processes()));
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 === 1 ? sides : [...sides].reverse();
    console.log(`-- round ${round}: ${order.map((s) => s.system).join(", then ")}`);
    for (const s of order) runs.push(await propagate(s, round));
  }
  console.log(`CPU over the propagation rounds: ${cpuLine(sides, cpuPropagate0, await cpuOf(sides.flatMap((s) => s.processes())))}`);
  const propagatedMemory = await memory(sides);

  // ---- Idle: writes with nothing changing -------------------------------------------------------
  let idleLine = "";
  if (idleMs > 0) {
    const w0 = await writesOf(everyRest);
    await sleep(idleMs);
    const w = writesDiff(w0, await writesOf(everyRest));
    const perMin = (n: number) => ((n * 60_000) / idleMs).toFixed(1);
    const memberIdle = memberNames.reduce((n, m) => n + totalWrites(w.get(m) ?? new Map(), (k) => !isLease(k)), 0);
    idleLine = `idle ${secs(idleMs)}, writes per minute to the control apiserver: ${sides.map((s) => `${s.system} ${perMin(totalWrites(systemWrites(s, w)))} (${formatWrites(systemWrites(s, w)) || "none"})`).join("; ")}; to the members without Leases, both systems: ${perMin(memberIdle)}`;
    console.log(idleLine);
  }

  // ---- Summary --------------------------------------------------------------------------------
  console.log("");
  console.log(`== Flotilla vs Karmada v1.18.0: ${K} members, ${N} latency samples, ${T} Deployments × ${ROUNDS} rounds`);
  console.log("single change → watch event in every member (ratio = flotilla / karmada: below 1, Flotilla is faster)");
  for (const line of formatTable(rows, { measured: "flotilla", baseline: "karmada" })) console.log(`  ${line}`);
  console.log(`propagation of ${T} Deployments × ${K} members (efficiency = karmada time ÷ flotilla time: above 1, Flotilla is faster)`);
  for (const line of propagationTable(runs, T, K)) console.log(`  ${line}`);
  for (const [label, figures] of [["idle, after start", idleMemory], ["after the latency phase", latencyMemory], ["after propagation", propagatedMemory]] as const) {
    console.log(`memory ${label}:`);
    for (const line of memoryTable(figures)) console.log(`  ${line}`);
  }
  console.log(floorLine);
  if (idleLine !== "") console.log(idleLine);
  if (values["keep-logs"]) await keepLogs(fleet, karmada);
} catch (err) {
  failed = true;
  console.error(err instanceof Error ? err.message : err);
  await keepLogs(fleet, karmada);
} finally {
  supervisor?.stop();
  await floor?.stop();
  for (const s of sightings) s.stop();
  for (const r of rests) r.close();
  await karmada?.stop();
  await flotilla?.stop();
  await fleet?.stop();
}
if (failed) process.exitCode = 1;
