// Benchmark of the agent's memory (issue 12, part 4; issue 42): the RSS of one real agent on a
// real member, idle (no Works) and holding N Works (1-replica Deployments, or ConfigMaps,
// propagated to that one member), RSS and RssAnon, against issue 25's goal of 75 MiB and
// karmada-agent's on the same kind of members (bench:vs-karmada); beside the idle agent, in the
// same run and with its Node flags, Node.js's floor: a bare `node`, and one holding only a TLS
// gRPC channel to the hub (node-floor.ts); where its heap goes, from a heap snapshot taken with
// --heapsnapshot-signal (heap-snapshot.ts). Every Flotilla process runs without Node's compile
// cache, as in production (the test environment's cache would spare the agent parsing its bundle,
// which a pod never is). Never fails on a figure. With --customizations N (issue 21):
// agent-rss-customizations.ts.
//   node test/bench/agent-rss.ts [--works N] [--kind deployment|configmap] [--settle S] [--no-snapshot] [--snapshot-idle] [--node-options FLAGS]
//     [--agent-node-args FLAGS] [--bundle] [--snapshot-dir DIR]
//   node test/bench/agent-rss.ts --customizations N [--settle S]
//   node test/bench/agent-rss.ts --analyze FILE.heapsnapshot
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { RESOURCES } from "../../shared/api/resources.ts";
import { KubeRest, objectPath, type ResourceInfo } from "../../shared/kube-rest.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { waitFor } from "../env/wait.ts";
import { AGENT_OPTIONS, agentOptions, describeAgents } from "./agent-options.ts";
import { measureCustomizations } from "./agent-rss-customizations.ts";
import { type Memory, memoryLine, printHeapSpaces, settledMemory } from "./agent-rss-measure.ts";
import { heapBreakdown, printBreakdown, printGrowth, takeSnapshot } from "./heap-snapshot.ts";
import { type NodeFloor, startNodeFloor } from "./node-floor.ts";
import { cpuSeconds, mib, peakRssBytes, rssByMapping } from "./rss.ts";

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
/** karmada-agent's RSS on the same kind of members (bench:vs-karmada, issue 42). */
const KARMADA_MIB = "57–58 MiB idle, 106–107 MiB after bench:vs-karmada's Deployments";
const agents = await agentOptions(values);
const PODS_PER_NODE = 110;
const FIELD_MANAGER = "flotilla-bench";
const NS = "rss";
const resource: ResourceInfo =
  kind === "deployment" ? { apiVersion: "apps/v1", kind: "Deployment", plural: "deployments", namespaced: true } : { apiVersion: "v1", kind: "ConfigMap", plural: "configmaps", namespaced: true };
// As in production, where nothing sets NODE_COMPILE_CACHE: the agent parses its bundle at start.
process.env.NODE_DISABLE_COMPILE_CACHE = "1";

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

/** "RSS x (RssAnon y); goal, ratio to the goal and Karmada's agent". */
function againstGoal(m: Memory): string {
  const ratio = (m.rss / 1024 / 1024 / GOAL_MIB).toFixed(2);
  return `${memoryLine(m)}; goal ≤ ${GOAL_MIB} MiB (×${ratio}), karmada-agent ${KARMADA_MIB}`;
}

/** "node 45.2 MiB, (anonymous) 21.0 MiB, …": a process's resident memory by mapping. */
async function byMapping(pid: number): Promise<string> {
  return (await rssByMapping(pid))
    .slice(0, 5)
    .map(([path, bytes]) => `${path.split("/").slice(-2).join("/")} ${mib(bytes)}`)
    .join(", ");
}

if (values.analyze !== undefined) {
  printBreakdown(values.analyze, await heapBreakdown(values.analyze));
  process.exit(0);
}

if (values.customizations !== undefined) {
  // The fleet's processes (the agent's among them) take --node-options, as the chart's nodeOptions.
  process.env.NODE_OPTIONS = [process.env.NODE_OPTIONS ?? "", values["node-options"]].join(" ").trim();
  const n = Number(values.customizations);
  if (!Number.isInteger(n) || n < 1) throw new Error("--customizations wants a positive integer");
  await measureCustomizations(n, { agents, nodeOptions: values["node-options"], settleMs });
  process.exit(0);
}

let fleet: Fleet | undefined;
let flotilla: Flotilla | undefined;
let rest: KubeRest | undefined;
let floor: NodeFloor | undefined;
const keptSnapshots = values["snapshot-dir"];
const diagDir = keptSnapshots ?? (await mkdtemp(join(tmpdir(), "flotilla-agent-heap-")));
if (keptSnapshots !== undefined) await mkdir(keptSnapshots, { recursive: true });
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

  const certs = flotilla.certsDir;
  floor = await startNodeFloor(agents.agentNodeArgs ?? [], { address: `127.0.0.1:${flotilla.agentHubPort}`, serverName: "localhost", caFile: join(certs, "ca.crt"), certFile: join(certs, `${member}.crt`), keyFile: join(certs, `${member}.key`) });
  const [idle, bare, grpc] = await Promise.all([settledMemory(pid, settleMs), settledMemory(floor.bare, settleMs), settledMemory(floor.grpc, settleMs)]);
  await floor.stop();
  console.log(`agent RSS idle (no Works): ${againstGoal(idle)}`);
  console.log(`  idle: resident by mapping: ${await byMapping(pid)}`);
  printHeapSpaces("idle", await flotilla.agentMetrics(member));
  console.log(`Node.js's floor, the same run and flags: a bare node ${memoryLine(bare)}; one holding a TLS gRPC channel to the hub ${memoryLine(grpc)}; the agent above it: ${mib(idle.rss - grpc.rss)}`);
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
  const full = await settledMemory(pid, settleMs);
  const fullRss = full.rss;
  console.log(`agent RSS with ${N} Works: ${againstGoal(full)}, peak ${mib(await peakRssBytes(pid))}`);
  printHeapSpaces(`${N} Works`, await flotilla.agentMetrics(member));
  console.log(`  ${N} Works: resident by mapping: ${await byMapping(pid)}`);
  if (snapshots) {
    const fullHeap = await heapBreakdown(await takeSnapshot(pid, diagDir));
    printBreakdown(`${N} Works`, fullHeap);
    if (idleHeap) printGrowth(idleHeap, fullHeap, `${N} Works`);
    console.log(`  (RSS beyond the live heap: V8's unused heap capacity, node itself, the type stripper, native buffers: ${mib(fullRss - fullHeap.total)} with ${N} Works)`);
    console.log(`agent RSS after writing the snapshot (its native memory stays): ${mib((await settledMemory(pid, settleMs)).rss)}`);
  }
} finally {
  await floor?.stop();
  rest?.close();
  await flotilla?.stop();
  await fleet?.stop();
  if (keptSnapshots === undefined) await rm(diagDir, { recursive: true, force: true });
}
