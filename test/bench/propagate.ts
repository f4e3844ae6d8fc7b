// Benchmark of propagation: T Deployments × K members, from the first server-side apply to
// Available in every member, through Flotilla (templates in the control cluster, one
// PropagationPolicy) against a baseline that server-side-applies the same T × K Deployments
// straight into the members from this process, with the same concurrency. Prints times, the
// efficiency (baseline time ÷ Flotilla time), apiserver writes (control and members, from each
// apiserver's apiserver_request_total) and the RSS of the control plane and agents. Never fails on
// a time: exits non-zero only when something never becomes Available within --timeout seconds,
// saying what.
// --rounds R (default 2) runs both sides R times in alternating order, Flotilla first in odd
// rounds and the baseline first in even ones, each round in new namespaces on the same members:
// whichever side runs second meets members whose apiserver, etcd and controllers are warm, so a
// single order favours one side. The efficiency sums the times over all rounds.
// The Deployments' "Available" times include each member's kube-controller-manager and kwok
// creating ReplicaSets and Pods, with or without Flotilla, so the time until the Deployments exist
// in the members is the figure that shows Flotilla's own pipeline best.
// After the rounds, the fleet idles --idle seconds (default 60) and the agents' writes meanwhile
// are printed: with nothing changing they should be none (no apply loops, DESIGN §11).
// Each run also prints the CPU seconds of each part (control apiserver, Flotilla, members, the
// bench) against what the cores offered meanwhile: what limits a run on a small machine.
//   node test/bench/propagate.ts [--templates T] [--members K] [--concurrency C] [--rounds R] [--timeout S] [--idle S]
//     [--bundle] [--agent-node-args FLAGS]
import { availableParallelism } from "node:os";
import { AGENT_OPTIONS, agentOptions, describeAgents } from "./agent-options.ts";
import { keepFlotillaLogs } from "./keep-logs.ts";
import { stageFigures, stagesLine } from "./propagation-stages.ts";
import { pool } from "./latency-pool.ts";
import { type BenchSupervisor, superviseFlotilla } from "./latency-supervise.ts";
import { settleControlPlane } from "./latency-settle.ts";
import { parseArgs } from "node:util";
import type { ResourceBinding } from "../../shared/api/types.ts";
import { RESOURCES } from "../../shared/api/resources.ts";
import { KubeRest, collectionPath, objectPath } from "../../shared/kube-rest.ts";
import { deployments } from "./member-deployments.ts";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { addWrites, formatWrites, isBackgroundWrite, isLease, totalWrites, type WriteCounts, writesDiff, writesOf } from "./apiserver-metrics.ts";
import { availableIn as availableInOf, awaitAll as awaitAllOf, benchDeployment, benchNames, reportMissing as reportMissingOf, secs, type Watched } from "./member-deployments.ts";
import { cpuSeconds, mib, peakRssBytes, rssBytes, totalCpuSeconds } from "./rss.ts";

const { values } = parseArgs({
  options: {
    templates: { type: "string", default: "200" },
    members: { type: "string", default: "2" },
    concurrency: { type: "string", default: "16" },
    timeout: { type: "string", default: "600" },
    idle: { type: "string", default: "60" },
    rounds: { type: "string", default: "2" },
    ...AGENT_OPTIONS,
  },
});
const T = Number(values.templates);
const K = Number(values.members);
const C = Number(values.concurrency);
const timeoutMs = Number(values.timeout) * 1000;
const idleMs = Number(values.idle) * 1000;
const ROUNDS = Number(values.rounds);
const agents = await agentOptions(values);
for (const [flag, v] of [["templates", T], ["members", K], ["concurrency", C], ["timeout", timeoutMs], ["rounds", ROUNDS]] as const) {
  if (!Number.isInteger(v) || v < 1) throw new Error(`--${flag} wants a positive integer`);
}

const PODS_PER_NODE = 110;

/** Each agent's CPU seconds so far, by member (NaN for one restarted since: its pid changed). */
async function cpuOf(pids: Map<string, number>): Promise<Map<string, number>> {
  return new Map(await Promise.all([...pids].map(async ([m, pid]) => [m, await cpuSeconds(pid).catch(() => Number.NaN)] as const)));
}
const FIELD_MANAGER = "flotilla-bench";
const names = benchNames(T);
const awaitAll = (targets: Watched[], t0: number) => awaitAllOf(targets, t0, timeoutMs);
const availableIn = (rest: KubeRest, cluster: string, namespace: string) => availableInOf(rest, cluster, namespace, names);
const reportMissing = (run: string, targets: Watched[], missing: Map<string, string[]>, done: Map<string, number>) => reportMissingOf(run, targets, missing, done, timeoutMs);

/** The bench's ResourceBindings in the control cluster that do not show FullyApplied=True. */
function bindingsFullyApplied(rest: KubeRest, namespace: string): Watched {
  return {
    what: `control/${namespace} ResourceBindings FullyApplied`,
    missing: async () => {
      const list = await rest.get<{ items: ResourceBinding[] }>(collectionPath(RESOURCES.resourceBinding, namespace), { resourceVersion: "0" });
      const ok = new Set(
        list.items
          .filter((b) => b.status?.conditions?.some((c) => c.type === "FullyApplied" && c.status === "True"))
          .map((b) => b.spec.resource.name),
      );
      return names.filter((n) => !ok.has(n));
    },
    diagnose: async () => {
      const list = await rest.get<{ items: ResourceBinding[] }>(collectionPath(RESOURCES.resourceBinding, namespace));
      const b = list.items.find((x) => !x.status?.conditions?.some((c) => c.type === "FullyApplied" && c.status === "True"));
      return `${list.items.length} bindings${b ? `; ${b.metadata.name}: ${JSON.stringify(b.status ?? {}).slice(0, 600)}` : ""}`;
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function printWrites(label: string, per: Map<string, WriteCounts>, members: string[], denominator: number, unit: string): void {
  let sum: WriteCounts = new Map();
  for (const m of members) sum = addWrites(sum, per.get(m) ?? new Map());
  const all = totalWrites(sum);
  const noLease = totalWrites(sum, (k) => !isLease(k));
  console.log(`  ${label} member writes: ${all} total, ${(all / denominator).toFixed(2)} per ${unit}; without leases ${noLease}, ${(noLease / denominator).toFixed(2)} per ${unit}`);
  for (const m of members) console.log(`    ${m}: ${formatWrites(per.get(m) ?? new Map())}`);
}

let fleet: Fleet | undefined;
let flotilla: Flotilla | undefined;
let supervisor: BenchSupervisor | undefined;
const rests: KubeRest[] = [];
let failed = false;
try {
  // Every run's pods live in the same members at the end: 2T pods per member and round, and a node to spare.
  const nodesPerMember = Math.ceil((2 * T * ROUNDS) / PODS_PER_NODE) + 1;
  const tStart = performance.now();
  fleet = await startFleet({ members: K, nodesPerMember });
  flotilla = await startFlotilla(fleet, { logLevel: "warn", ...agents });
  const fl: Flotilla = flotilla;
  console.log(`fleet: control + ${K} members × ${nodesPerMember} kwok nodes, Flotilla up in ${secs(performance.now() - tStart)}; ${describeAgents(agents)}; logs in ${fleet.root}/flotilla-logs`);
  console.log(`T=${T} Deployments × K=${K} members, 1 replica each, apply concurrency C=${C}; ${ROUNDS} rounds, Flotilla first in odd rounds, the baseline first in even ones`);

  const rest = (c: Cluster) => {
    const r = new KubeRest(c.kubeConfig(), { maxSockets: C + 4 });
    rests.push(r);
    return r;
  };
  const control = rest(fleet.control);
  const members = new Map(fleet.members.map((m) => [m.name, rest(m)]));
  const memberNames = [...members.keys()];
  const everyRest = new Map([["control", control], ...members]);
  // A restart (below) gives a process a new pid: read them when needed.
  const agentPids = () => new Map([...fl.agents].map(([m, a]) => [m, a.process.pid]));
  // A replica that misses its lease's renew deadline under load exits; it is started again.
  const sup = superviseFlotilla(fl);
  supervisor = sup;
  const per = (run: Map<string, number>, suffix: string) => memberNames.map((n) => `${n} ${secs(run.get(`${n}/${suffix}`) as number)}`).join(", ");
  const existMs = (ws: { allExistAt?: number }[], start: number) => Math.max(...ws.map((x) => (x.allExistAt ?? Number.NaN) - start));
  const memberTotal = (w: Map<string, WriteCounts>, keep?: (k: string) => boolean) => memberNames.reduce((n, m) => n + totalWrites(w.get(m) ?? new Map(), keep), 0);
  const noLease = (k: string) => !isLease(k);
  // Issue 42: CPU seconds by part, to show what a run is limited by on this machine's cores.
  const parts = () => ({
    "control apiserver and etcd": fleet?.control.processes.map((p) => p.pid) ?? [],
    "Flotilla (control plane and agents)": [fl.controlPlane.pid, ...agentPids().values()],
    "members (apiserver, etcd, controllers, kwok)": fleet?.members.flatMap((m) => m.processes.map((p) => p.pid)) ?? [],
  });
  const cpuParts = async (): Promise<Map<string, number>> => {
    const out = new Map<string, number>();
    for (const [part, pids] of Object.entries(parts())) out.set(part, await totalCpuSeconds(pids));
    const own = process.cpuUsage();
    out.set("this bench", (own.user + own.system) / 1e6);
    return out;
  };
  const cpuLine = (before: Map<string, number>, after: Map<string, number>, wallMs: number) => {
    const used = [...after].map(([part, s]) => [part, s - (before.get(part) ?? 0)] as const);
    const sum = used.reduce((n, [, s]) => n + s, 0);
    const cores = availableParallelism();
    return `CPU over ${secs(wallMs)} (${cores} cores: ${((cores * wallMs) / 1000).toFixed(1)} CPU s): ${used.map(([part, s]) => `${part} ${s.toFixed(1)} s`).join(", ")}; ${sum.toFixed(1)} s in all, ${((100 * sum) / ((cores * wallMs) / 1000)).toFixed(0)}% of the cores`;
  };

  interface Run {
    /** apply → done: Flotilla's members Available and bindings FullyApplied; the baseline's members Available. */
    ms: number;
    /** apply → all Deployments exist in every member. */
    existMs: number;
    /** Member writes without leases. */
    memberWrites: number;
  }

  // ---- Flotilla run: templates in the control cluster; `detail` prints its writes and RSS --------
  const flotillaRun = async (round: number, detail: boolean): Promise<Run> => {
    const ns = `bench-${round}`;
    const w0 = await writesOf(everyRest);
    const cp0 = await fl.controlPlaneMetrics();
    const cpu0 = await cpuOf(agentPids());
    await control.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } } });
    const parts0 = await cpuParts();
    await control.apply(objectPath(RESOURCES.propagationPolicy, ns, "bench"), {
      apiVersion: "flotilla.dev/v1alpha1",
      kind: "PropagationPolicy",
      metadata: { name: "bench", namespace: ns },
      spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", labelSelector: { matchLabels: { bench: "true" } } }] },
    }, FIELD_MANAGER);

    const t0 = performance.now();
    let applied = 0;
    const flotillaMembers = [...members].map(([n, r]) => availableIn(r, n, ns));
    const flotillaWatch = [bindingsFullyApplied(control, ns), ...flotillaMembers];
    const [fr] = await Promise.all([
      awaitAll(flotillaWatch, t0),
      pool(names, C, async (n) => {
        await control.apply(objectPath(deployments, ns, n), benchDeployment(ns, n), FIELD_MANAGER);
        applied++;
      }).then(() => console.log(`  flotilla: ${applied} templates applied to the control cluster in ${secs(performance.now() - t0)}`)),
    ]);
    if (fr.done.size < flotillaWatch.length) await reportMissing(`flotilla run ${round}`, flotillaWatch, fr.missing, fr.done);
    const membersMs = Math.max(...memberNames.map((n) => fr.done.get(`${n}/${ns}`) as number));
    const bindingsMs = fr.done.get(flotillaWatch[0]?.what as string) as number;
    const cpRssAtEnd = await rssBytes(fl.controlPlane.pid);
    const agentRssAtEnd = new Map(await Promise.all([...agentPids()].map(async ([m, pid]) => [m, await rssBytes(pid)] as const)));
    const cpu1 = await cpuOf(agentPids());
    const partsLine = cpuLine(parts0, await cpuParts(), Math.max(membersMs, bindingsMs));
    await settleControlPlane(fl);
    const w1 = await writesOf(everyRest);
    const cp1 = await fl.controlPlaneMetrics();
    const writes = writesDiff(w0, w1);
    const run = { ms: Math.max(membersMs, bindingsMs), existMs: existMs(flotillaMembers, t0), memberWrites: memberTotal(writes, noLease) };
    console.log(`flotilla (round ${round}): apply → Available in all ${K} members: ${secs(membersMs)} (${per(fr.done, ns)})`);
    console.log(`flotilla (round ${round}): apply → all ${T} Deployments exist in every member: ${secs(run.existMs)} (as polled)`);
    console.log(`flotilla (round ${round}): apply → all ${T} ResourceBindings FullyApplied: ${secs(bindingsMs)}${sup.restartsSince()}`);
    console.log(`flotilla (round ${round}): agents' CPU: ${memberNames.map((m) => `${m} ${((cpu1.get(m) ?? 0) - (cpu0.get(m) ?? 0)).toFixed(1)} s`).join(", ")}`);
    console.log(`flotilla (round ${round}): ${partsLine}`);
    if (!detail) return run;

    const bindings = await control.get<{ items: ResourceBinding[] }>(collectionPath(RESOURCES.resourceBinding, ns));
    const templates = await control.get<{ items: { metadata: { name: string; creationTimestamp: string }; status?: { availableReplicas?: number } }[] }>(collectionPath(deployments, ns));
    const templatesSummed = templates.items.filter((d) => d.status?.availableReplicas === K).length;
    const created = (o: { metadata: { creationTimestamp?: string } }) => Date.parse(o.metadata.creationTimestamp ?? "");
    const memberCopies = await Promise.all([...members.values()].map((r) => r.get<{ items: { metadata: { name: string; creationTimestamp: string } }[] }>(collectionPath(deployments, ns))));
    const lastCopy = new Map<string, number>();
    for (const list of memberCopies) for (const d of list.items) lastCopy.set(d.metadata.name, Math.max(lastCopy.get(d.metadata.name) ?? 0, created(d)));
    console.log(
      `stages: ${stagesLine(
        stageFigures({
          templates: new Map(templates.items.map((t) => [t.metadata.name, created(t)])),
          bindings: new Map(bindings.items.map((b) => [(b.metadata.name ?? "").replace(/-deployment$/, ""), created(b)])),
          members: new Map([...lastCopy].filter(([name]) => memberCopies.every((l) => l.items.some((d) => d.metadata.name === name)))),
        }),
      )}`,
    );
    const agentMetrics = new Map(await Promise.all(memberNames.map(async (m) => [m, await fl.agentMetrics(m)] as const)));
    const cw = writes.get("control") ?? new Map();
    const benchOwn = T + 2; // the templates, the namespace, the policy
    const delta = (name: string) => (cp1[name] ?? 0) - (cp0[name] ?? 0);
    const bindingStatus = delta("flotilla_binding_status_writes_total");
    const templateStatus = delta("flotilla_template_status_writes_total");
    const background = isBackgroundWrite;
    const perTemplate = totalWrites(cw, (k) => !background(k)) - benchOwn;
    console.log(`control cluster writes (apiserver_request_total, POST/PUT/PATCH/APPLY/DELETE): ${totalWrites(cw)} total, ${totalWrites(cw, background)} of them background (Leases, Cluster status, refused)`);
    console.log(`  ${formatWrites(cw)}`);
    console.log(`  besides the bench's own ${benchOwn} and the background: ${perTemplate} = ${(perTemplate / T).toFixed(2)} per template`);
    console.log(
      `control plane's own count: ${bindings.items.length} bindings + ${bindingStatus + templateStatus} status writes (binding ${bindingStatus}, template ${templateStatus}) = ${((bindings.items.length + bindingStatus + templateStatus) / T).toFixed(2)} per template`,
    );
    console.log(`templates whose .status.availableReplicas shows the fleet sum (${K}): ${templatesSummed}/${T}`);
    printWrites("flotilla", writes, memberNames, T * K, "Deployment");
    for (const m of memberNames) {
      const a = agentMetrics.get(m) ?? {};
      console.log(`  agent ${m}: applies ${a.flotilla_agent_applies_total ?? "?"}, state ConfigMap writes ${a.flotilla_agent_state_writes_total ?? "?"}, upserts received ${a.flotilla_agent_upserts_received_total ?? "?"}`);
    }
    console.log(`control plane RSS: ${mib(cpRssAtEnd)} at the end, peak ${mib(await peakRssBytes(fl.controlPlane.pid))}`);
    for (const [m, pid] of agentPids()) console.log(`agent ${m} RSS: ${mib(agentRssAtEnd.get(m) ?? 0)} at the end, peak ${mib(await peakRssBytes(pid))}`);
    console.log(`control-cluster writes per template, besides the template itself and the background: ${(perTemplate / T).toFixed(2)}`);
    return run;
  };

  // ---- Baseline: the same member writes, straight from this process ----------------------------
  const baselineRun = async (round: number, detail: boolean): Promise<Run> => {
    const ns = `baseline-${round}`;
    const w2 = await writesOf(everyRest);
    // Outside the timing (the Flotilla run's control namespace was created before its clock, too),
    // inside the counts (in the Flotilla run the agents create the member namespaces).
    for (const r of members.values()) await r.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } } });
    const parts0 = await cpuParts();
    const t0 = performance.now();
    const baselineWatch = [...members].map(([n, r]) => availableIn(r, n, ns));
    const jobs = names.flatMap((n) => [...members.values()].map((r) => ({ r, n })));
    const [br] = await Promise.all([
      awaitAll(baselineWatch, t0),
      pool(jobs, C, async ({ r, n }) => void (await r.apply(objectPath(deployments, ns, n), benchDeployment(ns, n), FIELD_MANAGER))).then(() =>
        console.log(`  baseline: ${jobs.length} Deployments applied to the members in ${secs(performance.now() - t0)}`),
      ),
    ]);
    if (br.done.size < baselineWatch.length) await reportMissing(`baseline run ${round}`, baselineWatch, br.missing, br.done);
    const ms = Math.max(...br.done.values());
    const partsLine = cpuLine(parts0, await cpuParts(), ms);
    await sleep(3000); // trailing status writes, as the Flotilla run's settle
    const writes = writesDiff(w2, await writesOf(everyRest));
    const run = { ms, existMs: existMs(baselineWatch, t0), memberWrites: memberTotal(writes, noLease) };
    console.log(`baseline (round ${round}): apply → all ${T} Deployments exist in every member: ${secs(run.existMs)} (as polled)`);
    console.log(`baseline (round ${round}): apply → Available in all ${K} members: ${secs(ms)} (${per(br.done, ns)})${sup.restartsSince()}`);
    console.log(`baseline (round ${round}): ${partsLine}`);
    if (!detail) return run;
    printWrites("baseline", writes, memberNames, T * K, "Deployment");
    const bw = writes.get("control") ?? new Map();
    console.log(`  control cluster writes meanwhile (idle Flotilla): ${totalWrites(bw)}${bw.size > 0 ? ` (${formatWrites(bw)})` : ""}`);
    for (const [m, pid] of agentPids()) console.log(`  agent ${m} RSS after the baseline: ${mib(await rssBytes(pid))}`);
    return run;
  };

  // ---- Rounds in alternating order, so that neither side always meets the warmer members --------
  const flotillaRuns: Run[] = [];
  const baselineRuns: Run[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const flotillaFirst = round % 2 === 1;
    console.log(`-- round ${round}: ${flotillaFirst ? "Flotilla, then the baseline" : "the baseline, then Flotilla"}`);
    if (flotillaFirst) {
      flotillaRuns.push(await flotillaRun(round, round === 1));
      baselineRuns.push(await baselineRun(round, round === 1));
    } else {
      baselineRuns.push(await baselineRun(round, false));
      flotillaRuns.push(await flotillaRun(round, false));
    }
  }

  // ---- Idle: with everything Available, the agents should write nothing (no apply loops) ---------
  if (idleMs > 0) {
    const agentWrites = (a: Record<string, number>) =>
      (a.flotilla_agent_applies_total ?? 0) + (a.flotilla_agent_state_writes_total ?? 0) + Object.entries(a).filter(([k]) => k.startsWith("flotilla_agent_deletes_total")).reduce((n, [, v]) => n + v, 0);
    const idle0 = new Map(await Promise.all(memberNames.map(async (m) => [m, agentWrites(await fl.agentMetrics(m))] as const)));
    await new Promise((r) => setTimeout(r, idleMs));
    const idleWrites = await Promise.all(memberNames.map(async (m) => agentWrites(await fl.agentMetrics(m)) - (idle0.get(m) ?? 0)));
    const perMinute = (idleWrites.reduce((a, b) => a + b, 0) * 60_000) / idleMs;
    console.log(`idle fleet: agent writes to the members (applies, state records, deletes) over ${secs(idleMs)}: ${idleWrites.join(" + ")} = ${perMinute.toFixed(1)} per minute (${T * ROUNDS} templates × ${K} members)`);
  }

  // ---- Ratios, summed over the rounds --------------------------------------------------------
  const sum = (runs: Run[], f: (r: Run) => number) => runs.reduce((n, r) => n + f(r), 0);
  const both = (f: (r: Run) => number) => `${flotillaRuns.map((r) => secs(f(r))).join(" + ")} / ${baselineRuns.map((r) => secs(f(r))).join(" + ")}`;
  const efficiency = (f: (r: Run) => number) => (sum(baselineRuns, f) / sum(flotillaRuns, f)).toFixed(2);
  console.log("");
  console.log(`efficiency (baseline time ÷ Flotilla time, ${ROUNDS} rounds), apply → Available (and bindings FullyApplied): ${efficiency((r) => r.ms)} (flotilla ${both((r) => r.ms)} baseline)`);
  console.log(`efficiency, apply → all Deployments exist in the members: ${efficiency((r) => r.existMs)} (flotilla ${both((r) => r.existMs)} baseline)`);
  console.log(`ratio flotilla / baseline, member writes without leases: ${(sum(flotillaRuns, (r) => r.memberWrites) / sum(baselineRuns, (r) => r.memberWrites)).toFixed(2)}`);
} catch (err) {
  failed = true;
  console.error(err instanceof Error ? err.message : err);
  await keepFlotillaLogs(fleet);
} finally {
  supervisor?.stop();
  for (const r of rests) r.close();
  await flotilla?.stop();
  await fleet?.stop();
}
if (failed) process.exitCode = 1;
