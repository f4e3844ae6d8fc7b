// Benchmark of the agent's memory (issue 12, part 4): the RSS of one real agent on a real member,
// idle (no Works) and holding N Works (1-replica Deployments, or ConfigMaps, propagated to that
// one member), RSS and RssAnon, against issue 25's goal of 75 MiB and Karmada's agent on the same
// members (79–83 MiB); and where its heap goes, from a heap snapshot taken
// with --heapsnapshot-signal (self sizes summed by constructor, the biggest first, and what grew
// between idle and N Works). Never fails on a figure. With --customizations N (issue 21): the
// agent holding one object of each of N CRD kinds, without and then with N
// ResourceInterpreterCustomizations whose Retain, ReflectStatus and InterpretHealth it runs on
// them, against the goal of +10 MiB.
//   node test/bench/agent-rss.ts [--works N] [--kind deployment|configmap] [--settle S] [--no-snapshot] [--snapshot-idle] [--node-options FLAGS]
//     [--agent-node-args FLAGS] [--bundle] [--snapshot-dir DIR]
//   node test/bench/agent-rss.ts --customizations N [--settle S]
//   node test/bench/agent-rss.ts --analyze FILE.heapsnapshot
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { RESOURCES } from "../../shared/api/resources.ts";
import { KubeRest, objectPath, type ResourceInfo } from "../../shared/kube-rest.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { waitFor } from "../env/wait.ts";
import { mib, peakRssBytes, rssAnonBytes, rssByMapping, rssBytes, cpuSeconds } from "./rss.ts";
import { AGENT_OPTIONS, agentOptions, describeAgents } from "./agent-options.ts";

const { values } = parseArgs({
  options: {
    works: { type: "string", default: "1000" },
    kind: { type: "string", default: "deployment" },
    settle: { type: "string", default: "15" },
    "no-snapshot": { type: "boolean", default: false },
    /**
     * Also snapshot the idle agent (for its breakdown). Writing a snapshot leaves the process
     * with much more native memory (RSS +100 MiB and more, not returned), so the RSS with N
     * Works measured after it is not the agent's own: read that figure from a run without it.
     */
    "snapshot-idle": { type: "boolean", default: false },
    /** Node flags for the fleet's processes, the agent's among them (e.g. --max-semi-space-size=1). */
    "node-options": { type: "string", default: "" },
    /** Keep the heap snapshots in this directory (default: a temporary one, removed at the end). */
    "snapshot-dir": { type: "string" },
    /** Only print the breakdown of a heap snapshot file already taken. */
    analyze: { type: "string" },
    /** --bundle, --agent-node-args: how the agent runs (agent-options.ts). */
    ...AGENT_OPTIONS,
    /** Measure N interpreter customizations instead of N Works. */
    customizations: { type: "string" },
  },
});
const N = Number(values.works);
const kind = values.kind;
const settleMs = Number(values.settle) * 1000;
const snapshots = !values["no-snapshot"];
if (!Number.isInteger(N) || N < 1) throw new Error("--works wants a positive integer");
if (kind !== "deployment" && kind !== "configmap") throw new Error("--kind is deployment or configmap");

const GOAL_MIB = 75;
/** karmada-agent's RSS measured on the same kind of member (issue 12's note). */
const KARMADA_MIB = "79–83 MiB";
const agents = await agentOptions(values);
const PODS_PER_NODE = 110;
const FIELD_MANAGER = "flotilla-bench";
const NS = "rss";
const resource: ResourceInfo =
  kind === "deployment" ? { apiVersion: "apps/v1", kind: "Deployment", plural: "deployments", namespaced: true } : { apiVersion: "v1", kind: "ConfigMap", plural: "configmaps", namespaced: true };

function template(name: string): unknown {
  const metadata = { name, namespace: NS, labels: { bench: "rss" } };
  if (kind === "configmap") return { apiVersion: "v1", kind: "ConfigMap", metadata, data: { name, value: "x".repeat(64) } };
  const labels = { app: name };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata,
    spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: "c", image: "registry.k8s.io/pause:3.10" }] } } },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The median RSS (and the RssAnon of that sample) over five samples a second apart, after the process settled. */
async function settledMemory(pid: number): Promise<{ rss: number; anon: number }> {
  await sleep(settleMs);
  const samples: { rss: number; anon: number }[] = [];
  for (let i = 0; i < 5; i++) {
    samples.push({ rss: await rssBytes(pid), anon: await rssAnonBytes(pid) });
    await sleep(1000);
  }
  return samples.sort((a, b) => a.rss - b.rss)[2] as { rss: number; anon: number };
}

async function settledRss(pid: number): Promise<number> {
  return (await settledMemory(pid)).rss;
}

/** "RSS x (RssAnon y); goal, ratio to the goal and to Karmada's agent". */
function againstGoal(m: { rss: number; anon: number }): string {
  const ratio = (m.rss / 1024 / 1024 / GOAL_MIB).toFixed(2);
  return `${mib(m.rss)} (RssAnon ${mib(m.anon)}); goal ≤ ${GOAL_MIB} MiB (×${ratio}), karmada-agent ${KARMADA_MIB}`;
}

interface HeapSnapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]]; edge_fields: string[]; edge_types: [string[], ...unknown[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

interface Breakdown {
  total: number;
  groups: Map<string, { size: number; count: number }>;
  /** Bytes of script source strings, by the package the script comes from. */
  sources: Map<string, number>;
}

/** The package a script URL belongs to ("@kubernetes/client-node"), or what else it is. */
function packageOf(url: string): string {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1] as string;
  if (url.startsWith("node:") || !url.includes("/")) return "(node's own)";
  return "(flotilla)";
}

/** Self sizes summed by constructor (objects), or by kind (strings, code, arrays, closures). */
async function heapBreakdown(path: string): Promise<Breakdown> {
  const snap = JSON.parse(await readFile(path, "utf8")) as HeapSnapshot;
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const [typeAt, nameAt, sizeAt] = ["type", "name", "self_size"].map((f) => fields.indexOf(f)) as [number, number, number];
  const groups = new Map<string, { size: number; count: number }>();
  let total = 0;
  // Scripts: a node with a "source" and a "name" edge to strings; the source is the module's text.
  const edgeFields = snap.snapshot.meta.edge_fields;
  const [edgeNameAt, edgeToAt] = ["name_or_index", "to_node"].map((f) => edgeFields.indexOf(f)) as [number, number];
  const edgeTypes = snap.snapshot.meta.edge_types[0];
  const edgeTypeAt = edgeFields.indexOf("type");
  const countAt = fields.indexOf("edge_count");
  const sources = new Map<string, number>();
  let edge = 0;
  for (let i = 0; i < snap.nodes.length; i += fields.length) {
    const edges = snap.nodes[i + countAt] as number;
    let source = -1;
    let url = "";
    for (let e = edge; e < edge + edges * edgeFields.length; e += edgeFields.length) {
      const et = edgeTypes[snap.edges[e + edgeTypeAt] as number];
      if (et === "element" || et === "hidden") continue;
      const name = snap.strings[snap.edges[e + edgeNameAt] as number];
      const to = snap.edges[e + edgeToAt] as number;
      const toType = types[snap.nodes[to + typeAt] as number] as string;
      if (!toType.endsWith("string")) continue;
      if (name === "source") source = snap.nodes[to + sizeAt] as number;
      else if (name === "name") url = snap.strings[snap.nodes[to + nameAt] as number] ?? "";
    }
    edge += edges * edgeFields.length;
    if (source >= 0 && url !== "") sources.set(packageOf(url), (sources.get(packageOf(url)) ?? 0) + source);
    const type = types[snap.nodes[i + typeAt] as number] as string;
    const name = snap.strings[snap.nodes[i + nameAt] as number] ?? "";
    const size = snap.nodes[i + sizeAt] as number;
    const group =
      type === "object" || type === "native" ? name.split(" ")[0] || "(anonymous)" : type.endsWith("string") ? "(strings)" : type === "array" ? `(array ${name})` : `(${type})`;
    const g = groups.get(group) ?? { size: 0, count: 0 };
    g.size += size;
    g.count++;
    groups.set(group, g);
    total += size;
  }
  return { total, groups, sources };
}

/** Signals the agent to write a heap snapshot into dir and waits until the file is complete. */
async function takeSnapshot(pid: number, dir: string): Promise<string> {
  const before = new Set(await readdir(dir));
  process.kill(pid, "SIGUSR2");
  let file = "";
  await waitFor(
    async () => {
      const fresh = (await readdir(dir)).find((f) => f.endsWith(".heapsnapshot") && !before.has(f));
      if (fresh === undefined) return false;
      file = join(dir, fresh);
      const size = (await stat(file)).size;
      await sleep(1000);
      return size > 0 && (await stat(file)).size === size;
    },
    { what: "the agent's heap snapshot", timeoutMs: 120_000, intervalMs: 500 },
  );
  return file;
}

function printBreakdown(label: string, b: Breakdown, top = 12): void {
  console.log(`  ${label} heap (snapshot, live objects): ${mib(b.total)}; biggest by self size:`);
  for (const [name, g] of [...b.groups].sort((x, y) => y[1].size - x[1].size).slice(0, top)) {
    console.log(`    ${mib(g.size).padStart(10)}  ${String(g.count).padStart(8)} × ${name}`);
  }
  const sources = [...b.sources].sort((x, y) => y[1] - x[1]);
  console.log(`  of which module source text (kept by V8 for every loaded script): ${mib(sources.reduce((n, [, v]) => n + v, 0))}; by package:`);
  for (const [pkg, size] of sources.slice(0, 6)) console.log(`    ${mib(size).padStart(10)}  ${pkg}`);
}

function printGrowth(idle: Breakdown, full: Breakdown, top = 10): void {
  const grown = [...full.groups].map(([name, g]) => [name, g.size - (idle.groups.get(name)?.size ?? 0), g.count - (idle.groups.get(name)?.count ?? 0)] as const);
  console.log(`  heap growth idle → ${N} Works: ${mib(full.total - idle.total)}; biggest:`);
  for (const [name, size, count] of grown.sort((x, y) => y[1] - x[1]).slice(0, top)) console.log(`    ${mib(size).padStart(10)}  ${String(count).padStart(8)} × ${name}`);
}

if (values.analyze !== undefined) {
  printBreakdown(values.analyze, await heapBreakdown(values.analyze));
  process.exit(0);
}

/** V8's committed heap by space, and memory outside it, from the agent's default Node metrics. */
function printHeapSpaces(label: string, m: Record<string, number>): void {
  const space = (s: string) => m[`nodejs_heap_space_size_total_bytes{space="${s}"}`] ?? 0;
  const spaces = ["new", "old", "code", "large_object", "trusted", "shared"].filter((s) => space(s) > 0);
  console.log(
    `  ${label}: V8 heap committed ${mib(m.nodejs_heap_size_total_bytes ?? 0)} (${spaces.map((s) => `${s} ${mib(space(s))}`).join(", ")}), used ${mib(m.nodejs_heap_size_used_bytes ?? 0)}; external ${mib(m.nodejs_external_memory_bytes ?? 0)}`,
  );
}

const CUSTOMIZATIONS_GOAL_MIB = 10;
const GROUP = "rss.flotilla.dev";

/** A CRD of kind K<i>, an object of it, and a customization of it with the three scripts agents run. */
function customizationKind(i: number): { crd: unknown; object: unknown; customization: unknown; kind: string } {
  const kind = `K${i}`;
  const plural = `k${i}s`;
  const openSchema = { type: "object", "x-kubernetes-preserve-unknown-fields": true };
  return {
    kind,
    crd: {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: `${plural}.${GROUP}`, labels: { bench: "rss" } },
      spec: {
        group: GROUP,
        scope: "Namespaced",
        names: { plural, singular: `k${i}`, kind },
        versions: [{ name: "v1", served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: "object", properties: { spec: openSchema, status: openSchema } } } }],
      },
    },
    object: { apiVersion: `${GROUP}/v1`, kind, metadata: { name: "one", namespace: NS }, spec: { size: i, paused: false } },
    customization: {
      apiVersion: "flotilla.dev/v1alpha1",
      kind: "ResourceInterpreterCustomization",
      metadata: { name: plural },
      spec: {
        target: { apiVersion: `${GROUP}/v1`, kind },
        customizations: {
          retention: { luaScript: `function Retain(desiredObj, observedObj)\n  if observedObj.spec.paused ~= nil then\n    desiredObj.spec.paused = observedObj.spec.paused\n  end\n  return desiredObj\nend` },
          statusReflection: { luaScript: `function ReflectStatus(observedObj)\n  local status = {}\n  if observedObj.status == nil then\n    return status\n  end\n  status.phase = observedObj.status.phase\n  status.ready = observedObj.status.ready\n  return status\nend` },
          healthInterpretation: { luaScript: `function InterpretHealth(observedObj)\n  if observedObj.status == nil then\n    return false\n  end\n  return observedObj.status.phase == "Running" and observedObj.status.ready == ${i}\nend` },
        },
      },
    },
  };
}

/** The agent's RSS holding one object of each of N kinds, without and then with N customizations of them. */
async function measureCustomizations(n: number): Promise<void> {
  const fleet = await startFleet({ members: 1, nodesPerMember: 2 });
  let flotilla: Flotilla | undefined;
  let rest: KubeRest | undefined;
  try {
    flotilla = await startFlotilla(fleet, { logLevel: "warn", heartbeatInterval: "10s", ...agents });
    const f = flotilla;
    const member = fleet.members[0]?.name ?? "member1";
    const pid = f.agents.get(member)?.process.pid ?? 0;
    console.log(`fleet: control + 1 member; agent pid ${pid}; ${n} CRD kinds, one object of each${values["node-options"] ? `; node ${values["node-options"]}` : ""}`);
    rest = new KubeRest(fleet.control.kubeConfig(), { maxSockets: 20 });
    const control = rest;
    const kinds = Array.from({ length: n }, (_, i) => customizationKind(i));
    const crds: ResourceInfo = { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", plural: "customresourcedefinitions", namespaced: false };
    await control.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } } });
    for (const k of kinds) await control.apply(objectPath(crds, undefined, (k.crd as { metadata: { name: string } }).metadata.name), k.crd, FIELD_MANAGER);
    await control.apply(
      objectPath(RESOURCES.clusterPropagationPolicy, undefined, "rss-crds"),
      { apiVersion: "flotilla.dev/v1alpha1", kind: "ClusterPropagationPolicy", metadata: { name: "rss-crds" }, spec: { resourceSelectors: [{ apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", labelSelector: { matchLabels: { bench: "rss" } } }] } },
      FIELD_MANAGER,
    );
    await control.apply(
      objectPath(RESOURCES.propagationPolicy, NS, "rss"),
      { apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name: "rss", namespace: NS }, spec: { resourceSelectors: kinds.map((k) => ({ apiVersion: `${GROUP}/v1`, kind: k.kind })) } },
      FIELD_MANAGER,
    );
    // The objects, once the control cluster serves their kinds.
    for (const k of kinds) {
      const path = objectPath({ apiVersion: `${GROUP}/v1`, kind: k.kind, plural: `k${k.kind.slice(1)}s`, namespaced: true }, NS, "one");
      await waitFor(async () => control.apply(path, k.object, FIELD_MANAGER).then(() => true, () => false), { what: `${k.kind} served`, timeoutMs: 60_000, intervalMs: 250 });
    }
    const settled = async (what: string, check: (m: Record<string, number>) => boolean) =>
      waitFor(
        async () => {
          if (!f.controlPlane.running) await f.startControlPlane();
          return check(await f.agentMetrics(member));
        },
        { what, timeoutMs: 900_000, intervalMs: 1000 },
      );
    await settled(`the agent to hold ${2 * n} Works`, (m) => m.flotilla_agent_works === 2 * n && m.flotilla_agent_work_queue_depth === 0);
    const without = await settledRss(pid);
    console.log(`agent RSS with ${n} kinds' objects, no customizations: ${mib(without)}`);
    printHeapSpaces("without", await f.agentMetrics(member));
    // One customization first: what loading the Lua runtime costs; then the rest: what each adds.
    const applyCustomizations = async (from: number, to: number) => {
      for (const k of kinds.slice(from, to)) {
        const c = k.customization as { metadata: { name: string } };
        await control.apply(objectPath(RESOURCES.resourceInterpreterCustomization, undefined, c.metadata.name), c, FIELD_MANAGER);
      }
      await settled(`the agent to hold ${to} customizations`, (m) => m.flotilla_agent_customizations === to && m.flotilla_agent_work_queue_depth === 0);
    };
    await applyCustomizations(0, 1);
    const one = await settledRss(pid);
    console.log(`agent RSS with 1 customization run on its kind's object (the Lua runtime loaded): ${mib(one)}; +${mib(one - without)}`);
    await applyCustomizations(1, n);
    const m = await f.agentMetrics(member);
    const withThem = await settledRss(pid);
    console.log(
      `agent RSS with ${n} customizations run on them: ${mib(withThem)}; +${mib(withThem - without)} over none (goal +${CUSTOMIZATIONS_GOAL_MIB} MiB), ratio ${(withThem / without).toFixed(2)}; ` +
        `+${mib(withThem - one)} over one (${((withThem - one) / Math.max(1, n - 1) / 1024).toFixed(0)} KiB each); sets received ${m.flotilla_agent_customization_sets_received_total ?? 0}`,
    );
    printHeapSpaces("with", await f.agentMetrics(member));
  } finally {
    rest?.close();
    await flotilla?.stop();
    await fleet.stop();
  }
}

if (values.customizations !== undefined) {
  // The fleet's processes (the agent's among them) take --node-options, as the chart's nodeOptions.
  process.env.NODE_OPTIONS = [process.env.NODE_OPTIONS ?? "", values["node-options"]].join(" ").trim();
  const n = Number(values.customizations);
  if (!Number.isInteger(n) || n < 1) throw new Error("--customizations wants a positive integer");
  await measureCustomizations(n);
  process.exit(0);
}

let fleet: Fleet | undefined;
let flotilla: Flotilla | undefined;
let rest: KubeRest | undefined;
const keptSnapshots = values["snapshot-dir"];
const diagDir = keptSnapshots ?? (await mkdtemp(join(tmpdir(), "flotilla-agent-heap-")));
try {
  // The agent writes a heap snapshot on SIGUSR2, into diagDir (so do the others, never signalled).
  const heapFlags = snapshots ? `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${diagDir}` : "";
  process.env.NODE_OPTIONS = [process.env.NODE_OPTIONS ?? "", values["node-options"], heapFlags].join(" ").trim();
  const nodesPerMember = kind === "deployment" ? Math.ceil(N / PODS_PER_NODE) + 1 : 2;
  fleet = await startFleet({ members: 1, nodesPerMember });
  flotilla = await startFlotilla(fleet, { logLevel: "warn", heartbeatInterval: "10s", ...agents });
  const member = fleet.members[0]?.name ?? "member1";
  const pid = flotilla.agents.get(member)?.process.pid ?? 0;
  console.log(`fleet: control + 1 member × ${nodesPerMember} kwok nodes; agent pid ${pid}, heartbeat 10 s (the agent's default)${values["node-options"] ? `, NODE_OPTIONS ${values["node-options"]}` : ""}; ${describeAgents(agents)}`);

  const idle = await settledMemory(pid);
  console.log(`agent RSS idle (no Works): ${againstGoal(idle)}`);
  printHeapSpaces("idle", await flotilla.agentMetrics(member));
  const idleHeap = snapshots && values["snapshot-idle"] ? await heapBreakdown(await takeSnapshot(pid, diagDir)) : undefined;
  if (idleHeap) printBreakdown("idle", idleHeap);

  rest = new KubeRest(fleet.control.kubeConfig(), { maxSockets: 20 });
  const control = rest;
  await control.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } } });
  await control.apply(
    objectPath(RESOURCES.propagationPolicy, NS, "rss"),
    { apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name: "rss", namespace: NS }, spec: { resourceSelectors: [{ apiVersion: resource.apiVersion, kind: resource.kind, labelSelector: { matchLabels: { bench: "rss" } } }] } },
    FIELD_MANAGER,
  );
  const t0 = performance.now();
  const cpu0 = await cpuSeconds(pid);
  const names = Array.from({ length: N }, (_, i) => `rss-${String(i).padStart(5, "0")}`);
  let next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next < names.length) {
      const n = names[next++] as string;
      await control.apply(objectPath(resource, NS, n), template(n), FIELD_MANAGER);
    }
  }));
  const f = flotilla;
  await waitFor(
    async () => {
      // The test fleet's control plane has short leases: one that misses its renew deadline on a
      // loaded machine exits on purpose, and nothing starts it again here but this.
      if (!f.controlPlane.running) {
        console.log("  (the control plane exited: lease lost under load; starting it again)");
        await f.startControlPlane();
      }
      const m = await f.agentMetrics(member);
      return m.flotilla_agent_works === N && m.flotilla_agent_work_queue_depth === 0;
    },
    { what: `the agent to hold ${N} Works`, timeoutMs: 900_000, intervalMs: 1000 },
  );
  console.log(`${N} ${resource.kind}s applied in the member by the agent in ${((performance.now() - t0) / 1000).toFixed(1)} s, using ${((await cpuSeconds(pid)) - cpu0).toFixed(1)} s of CPU`);
  const full = await settledMemory(pid);
  const fullRss = full.rss;
  console.log(`agent RSS with ${N} Works: ${againstGoal(full)}, peak ${mib(await peakRssBytes(pid))}`);
  printHeapSpaces(`${N} Works`, await flotilla.agentMetrics(member));
  const mappings = await rssByMapping(pid);
  console.log(`  ${N} Works: resident by mapping: ${mappings.slice(0, 5).map(([path, bytes]) => `${path.split("/").slice(-2).join("/")} ${mib(bytes)}`).join(", ")}`);
  if (snapshots) {
    const fullHeap = await heapBreakdown(await takeSnapshot(pid, diagDir));
    printBreakdown(`${N} Works`, fullHeap);
    if (idleHeap) printGrowth(idleHeap, fullHeap);
    console.log(`  (RSS beyond the live heap: V8's unused heap capacity, node itself, the type stripper, native buffers: ${mib(fullRss - fullHeap.total)} with ${N} Works)`);
    console.log(`agent RSS after writing the snapshot (its native memory stays): ${mib(await settledRss(pid))}`);
  }
} finally {
  rest?.close();
  await flotilla?.stop();
  await fleet?.stop();
  if (keptSnapshots === undefined) await rm(diagDir, { recursive: true, force: true });
}
