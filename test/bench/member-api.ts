// Benchmark of the member API (issue 41): member1's Kubernetes API through the control plane
// (/clusters/member1, carried over member1's agent stream) against member1's apiserver itself, in
// the same run, on a real test-env fleet (control + 2 members) with --pods pods in member1 created
// directly there. Both sides make the same HTTPS requests with kubectl's headers, as the same
// identity in member1 (the direct side impersonates flotilla:admin:bench as the agent does, so
// the member's RBAC and priority-and-fairness treat both alike):
//   list:  `kubectl get pods -A` (GET /api/v1/pods?limit=500, a Table, gzip) at each of --clients
//          concurrent clients, --requests lists per side and level (sides in A-B-B-A halves);
//   watch: C watches on each side on one ConfigMap; --changes merge patches of it in member1, each
//          timed from the patch to each watch's event (both sides see the same changes).
// Then Work propagation: a Deployment template created and updated in the control cluster under a
// PropagationPolicy for member1, timed until a watch on member1 shows it (--samples each), on the
// idle fleet, while the largest --clients level of clients (half list loops, half watches of all
// pods; --think ms between a client's lists) loads the member API, while the same load goes to
// member1 directly, and idle again; the rise of each against idle, and the RSS and CPU of the
// control plane, member1's agent, member1's apiserver and this process, idle and under load.
// Prints figures and ratios; never fails on a time (exit 1 only when it could not run).
//   node test/bench/member-api.ts [--clients 1,10,100] [--requests N] [--pods N] [--changes N] [--samples N] [--timeout S] [--think MS] [--keep-logs]
import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ensureBinaries } from "../env/binaries.ts";
import { goCommandEnv } from "../env/managed-process.ts";
import { waitFor } from "../env/wait.ts";
import { runCommand } from "../e2e/helpers.ts";
import { keepFlotillaLogs } from "./keep-logs.ts";
import { formatFailures, formatProcesses, formatWork, pct, pooled, type ProcessFigures, rise, type WorkPhase } from "./member-api-figures.ts";
import { type MemberApiFleet, startMemberApiFleet } from "./member-api-fleet.ts";
import { type Endpoint, listPods, rowsOf } from "./member-api-http.ts";
import { listLevel, startLoad, type Timed, watchLevel } from "./member-api-load.ts";
import { startWorkProbe } from "./member-api-work.ts";
import { pool } from "./latency-pool.ts";
import { formatTable, type Row } from "./latency-table.ts";
import { type BenchSupervisor, superviseFlotilla } from "./latency-supervise.ts";
import { cpuSeconds, rssBytes } from "./rss.ts";

const { values } = parseArgs({
  options: {
    clients: { type: "string", default: "1,10,100" },
    requests: { type: "string", default: "200" },
    pods: { type: "string", default: "200" },
    changes: { type: "string", default: "20" },
    samples: { type: "string", default: "20" },
    timeout: { type: "string", default: "30" },
    think: { type: "string", default: "0" },
    "keep-logs": { type: "boolean", default: false },
  },
});
const levels = values.clients.split(",").map(Number);
const [requests, pods, changes, samples, timeoutS, thinkMs] = [values.requests, values.pods, values.changes, values.samples, values.timeout, values.think].map(Number) as [number, number, number, number, number, number];
if (levels.some((n) => !Number.isInteger(n) || n < 1)) throw new Error("--clients wants positive integers, comma-separated");
for (const [flag, v] of Object.entries({ requests, pods, changes, samples, timeout: timeoutS })) {
  if (!Number.isInteger(v) || v < 1) throw new Error(`--${flag} wants a positive integer`);
}
if (!Number.isInteger(thinkMs) || thinkMs < 0) throw new Error("--think wants a whole number of ms");
const timeoutMs = timeoutS * 1000;
const most = Math.max(...levels);
// Every client of the largest level holds a request in flight at once (a watch holds it for good):
// the per-cluster limits (default 64) are raised above it, or the figures would be 429s.
const limit = Math.max(64, most + 32);
const NS = "bench-member-api";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

let commit = "unknown";
try {
  commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
} catch {
  // not a checkout
}

/** Runs `body` while sampling the processes' RSS every 500 ms; their figures over it. */
async function measured<T>(pids: Map<string, number>, body: () => Promise<T>): Promise<{ result: T; figures: Map<string, ProcessFigures> }> {
  const t0 = performance.now();
  const cpu0 = new Map(await Promise.all([...pids].map(async ([n, pid]) => [n, await cpuSeconds(pid)] as const)));
  const peaks = new Map<string, number>();
  const sample = async () => {
    for (const [n, pid] of pids) peaks.set(n, Math.max(peaks.get(n) ?? 0, await rssBytes(pid).catch(() => 0)));
  };
  const timer = setInterval(() => void sample(), 500);
  try {
    const result = await body();
    await sample();
    const wall = (performance.now() - t0) / 1000;
    const figures = new Map<string, ProcessFigures>();
    for (const [n, pid] of pids) {
      const rss = await rssBytes(pid).catch(() => Number.NaN);
      figures.set(n, { rssMiB: rss / 2 ** 20, peakMiB: (peaks.get(n) ?? rss) / 2 ** 20, cpu: ((await cpuSeconds(pid).catch(() => Number.NaN)) - (cpu0.get(n) ?? 0)) / wall });
    }
    return { result, figures };
  } finally {
    clearInterval(timer);
  }
}

let mf: MemberApiFleet | undefined;
let supervisor: BenchSupervisor | undefined;
let failed = false;
try {
  const t0 = performance.now();
  mf = await startMemberApiFleet({ members: 2, nodesPerMember: Math.max(2, Math.ceil((pods + 20) / 100)), maxRequests: limit });
  const { flotilla } = mf;
  supervisor = superviseFlotilla(flotilla);
  console.log(`bench:member-api at ${commit}: fleet (control + 2 members) and Flotilla up in ${secs(performance.now() - t0)}; --member-api-max-requests(-per-cluster)=${limit}; load clients pause ${thinkMs} ms between lists`);
  const m1 = mf.rest("member1");
  const proxy = await mf.proxy("bench", "admin");
  const direct = await mf.direct("member1", "bench");
  const sides: Record<string, Endpoint> = { "member API": proxy, direct };

  const t1 = performance.now();
  await m1.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } } });
  const names = Array.from({ length: pods }, (_, i) => `p-${String(i).padStart(5, "0")}`);
  await pool(names, 16, async (name) => {
    await m1.request("POST", `/api/v1/namespaces/${NS}/pods`, { body: { apiVersion: "v1", kind: "Pod", metadata: { name, namespace: NS, labels: { app: "bench" } }, spec: { containers: [{ name: "c", image: "nginx" }] } } });
  });
  const rows = await waitFor(async () => {
    const a = await listPods(direct);
    return a.status === 200 && rowsOf(a) >= pods ? rowsOf(a) : undefined;
  }, { what: `${pods} pods listed in member1`, timeoutMs: 120_000 });
  const viaProxy = await listPods(proxy);
  const viaDirect = await listPods(direct);
  console.log(`${pods} pods created in member1 in ${secs(performance.now() - t1)}; a list: ${rowsOf(viaProxy)} rows, ${viaProxy.bytes} bytes (${viaProxy.headers["content-encoding"] ?? "identity"}) through the member API, ${rows} rows, ${viaDirect.bytes} bytes (${viaDirect.headers["content-encoding"] ?? "identity"}) directly`);
  // kubectl itself, once each way (process start, discovery and all): a sanity line, not a figure.
  const kubectlBin = join(await ensureBinaries(), "kubectl");
  const kc = join(mf.fleet.root, "member-api-bench.kubeconfig");
  const b64 = (s: string) => Buffer.from(s).toString("base64");
  await writeFile(kc, JSON.stringify({ apiVersion: "v1", kind: "Config", clusters: [{ name: "m1", cluster: { server: `https://127.0.0.1:${mf.port}/clusters/member1`, "certificate-authority-data": b64(proxy.tls.ca), "tls-server-name": "localhost" } }], users: [{ name: "bench", user: { "client-certificate-data": b64(proxy.tls.cert), "client-key-data": b64(proxy.tls.key) } }], contexts: [{ name: "m1", context: { cluster: "m1", user: "bench" } }], "current-context": "m1" }), { mode: 0o600 });
  const kubectlRun = async (kubeconfig: string) => {
    const s = performance.now();
    const r = await runCommand(kubectlBin, ["--kubeconfig", kubeconfig, "get", "pods", "-A", "--no-headers"], { env: goCommandEnv(), timeoutMs: 60_000 });
    return `${r.code === 0 ? r.stdout.trim().split("\n").length : `exit ${r.code}`} lines in ${Math.round(performance.now() - s)} ms`;
  };
  const m1Kubeconfig = (mf.fleet.members[0] as { kubeconfigPath: string }).kubeconfigPath;
  console.log(`kubectl get pods -A (one run each, process start included): member API ${await kubectlRun(kc)}; directly ${await kubectlRun(m1Kubeconfig)}`);

  const apiserver = mf.fleet.members[0]?.processes.find((p) => p.name.endsWith("kube-apiserver"));
  const pids = new Map([["control plane", flotilla.controlPlane.pid], ["agent (member1)", flotilla.agents.get("member1")?.process.pid ?? 0], ["member1's apiserver", apiserver?.pid ?? 0], ["this benchmark", process.pid]]);
  const probe = await startWorkProbe(mf.rest("control"), await mf.direct("member1"), "member1", timeoutMs);
  const work: WorkPhase[] = [];
  const workPhase = async (phase: string) => {
    const p: WorkPhase = { phase, create: [], update: [], missed: 0 };
    const slug = phase.replace(/[^a-z0-9]+/g, "-");
    for (let i = 0; i < samples; i++) {
      const [c, u] = await probe.sample(`w-${slug}-${i}`);
      for (const [t, xs] of [[c, p.create], [u, p.update]] as const) {
        if (t === undefined) p.missed++;
        else xs.push(t);
      }
      await sleep(50 + Math.random() * 150);
    }
    work.push(p);
    const all = pooled(p);
    console.log(`Work propagation, ${phase}: p50/p99 ${Math.round(all.p50)}/${Math.round(all.p99)} ms (${p.missed} missed)${supervisor?.restartsSince() ?? ""}`);
    return p;
  };
  await probe.sample("w-warm-up");
  const idle = await measured(pids, () => workPhase("idle"));

  // Lists, both sides at each level, in A-B-B-A halves (each level starting with the other side).
  const tableRows: Row[] = [];
  const row = (phase: string, op: string, m: Timed & { missed?: number }, b: Timed & { missed?: number }): Row => ({ phase, op, measured: m.ms, baseline: b.ms, measuredMissed: (m.missed ?? 0) + [...m.failed.values()].reduce((s, n) => s + n, 0), baselineMissed: (b.missed ?? 0) + [...b.failed.values()].reduce((s, n) => s + n, 0) });
  const labels = { measured: "member API", baseline: "direct" };
  for (const [k, c] of levels.entries()) {
    const [first, second] = k % 2 === 0 ? [proxy, direct] : [direct, proxy];
    await listLevel(first, c, c);
    await listLevel(second, c, c);
    const retried = [proxy.retried, direct.retried];
    const got = new Map<Endpoint, Timed>([[proxy, { ms: [], failed: new Map() }], [direct, { ms: [], failed: new Map() }]]);
    for (const ep of [first, second, second, first]) {
      const t = await listLevel(ep, c, Math.ceil(requests / 2));
      const into = got.get(ep) as Timed;
      into.ms.push(...t.ms);
      for (const [why, n] of t.failed) into.failed.set(why, (into.failed.get(why) ?? 0) + n);
    }
    const r = row(`${c} client${c > 1 ? "s" : ""}`, "list", got.get(proxy) as Timed, got.get(direct) as Timed);
    tableRows.push(r);
    console.log(`lists at ${c}:${supervisor.restartsSince()} ${formatTable([r], labels).at(-1)}; failures: member API ${formatFailures((got.get(proxy) as Timed).failed)}, direct ${formatFailures((got.get(direct) as Timed).failed)}; sent again on a kept-alive connection the server had closed: member API ${proxy.retried - (retried[0] as number)}, direct ${direct.retried - (retried[1] as number)}`);
  }

  // Watches: C on each side on one ConfigMap, the same changes timed to both.
  await m1.request("POST", `/api/v1/namespaces/${NS}/configmaps`, { body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "probe", namespace: NS }, data: { v: "0" } } });
  for (const c of levels) {
    const w = await watchLevel(sides, c, { namespace: NS, name: "probe", changes, timeoutMs, tag: `c${c}`, write: async (v) => void (await m1.mergePatch(`/api/v1/namespaces/${NS}/configmaps/probe`, { data: { v } })) });
    const r = row(`${c} client${c > 1 ? "s" : ""}`, "watch", w["member API"] as Timed, w.direct as Timed);
    tableRows.push(r);
    console.log(`watches at ${c}:${supervisor.restartsSince()} ${formatTable([r], labels).at(-1)}`);
  }
  console.log("");
  console.log("`kubectl get pods -A` (from the request to the last byte) and a watch (from the change in member1 to the event), per side; ratio = member API / direct; missed = not 200, or not seen in time");
  for (const line of formatTable(tableRows, labels)) console.log(`  ${line}`);

  // Work propagation under load.
  const loadPhase = async (phase: string, ep: Endpoint) => {
    const retried = ep.retried;
    const load = startLoad(ep, most, thinkMs);
    await sleep(2_000);
    const m = await measured(pids, () => workPhase(phase));
    const f = await load.stop();
    console.log(`  load of ${most} clients: ${f.lists} lists (${(f.lists / f.seconds).toFixed(1)}/s), ${f.events} watch events in ${f.seconds.toFixed(1)} s; failures: ${formatFailures(f.failed)}; sent again on a closed kept-alive connection: ${ep.retried - retried}`);
    return m;
  };
  const viaApi = await loadPhase(`loaded through the member API (${most} clients)`, proxy);
  const viaDirectLoad = await loadPhase(`loaded directly (${most} clients)`, direct);
  await workPhase("idle, again");
  probe.stop();

  console.log("");
  console.log("Work propagation: template created or updated in the control cluster → member1's watch shows it (rise against idle)");
  for (const line of formatWork(work, "idle")) console.log(`  ${line}`);
  const base = pooled(work[0] as WorkPhase);
  const [api, dir] = [pooled(work[1] as WorkPhase), pooled(work[2] as WorkPhase)];
  console.log(`  rise under the member API's load: p50 ${pct(rise(api.p50, base.p50))}, p99 ${pct(rise(api.p99, base.p99))} (issue 41's goal: ≤ 10%); under the same load sent to member1 directly: p50 ${pct(rise(dir.p50, base.p50))}, p99 ${pct(rise(dir.p99, base.p99))}`);
  console.log("");
  console.log("processes: idle (the idle Work phase) against loaded through the member API (RSS at its end, and its peak; CPU over the phase, 100% = one core)");
  for (const line of formatProcesses([...pids.keys()].map((name) => ({ name, idle: idle.figures.get(name) as ProcessFigures, loaded: viaApi.figures.get(name) as ProcessFigures })))) console.log(`  ${line}`);
  const directCpu = [...viaDirectLoad.figures].map(([n, f]) => `${n} ${(f.cpu * 100).toFixed(0)}%, ${f.rssMiB.toFixed(1)} MiB`).join("; ");
  console.log(`  with the load sent directly instead: ${directCpu}`);
  const cp = await flotilla.controlPlaneMetrics();
  const answers = Object.entries(cp).filter(([k]) => k.startsWith("flotilla_member_api_requests_total")).map(([k, v]) => `${/code="([^"]+)"/.exec(k)?.[1]} ${v}`);
  console.log(`control plane: flotilla_member_api_requests_total ${answers.join(", ")}`);
} catch (err) {
  failed = true;
  process.exitCode = 1;
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  await keepFlotillaLogs(mf?.fleet, { clusters: true });
} finally {
  if (!failed && values["keep-logs"]) await keepFlotillaLogs(mf?.fleet, { clusters: true });
  supervisor?.stop();
  await mf?.stop();
}
