// Benchmark of a flooding agent (DESIGN §7, issue 11): does one agent sending status messages as
// fast as it can delay another agent's Work? A healthy agent (member1) takes N template updates,
// one after another; for each, the time from the template's update to its new version being
// reported applied on the ResourceBinding (apply → status). First with no flood (the baseline),
// then while hostile clients with member2's real certificate, over real mTLS, flood the hub with
// status reports at full speed (each in a worker thread, so the bench's own timing is not
// starved). Prints p50/p99/max of both and their ratios, and what the hub did with the flood.
// --mode own (default): the flooder reports on a Work of its own cluster, with a new message each
// time, so every report is accepted, stored and asks for a binding status write (the costly
// path); it also sends a heartbeat every 200 reports, so its cluster stays Ready.
// --mode forged: the flooder reports on member1's Work, which the hub drops (the cheap path).
// --hub-rate R starts the control plane with --agent-message-rate R (and a burst of R), e.g. a
// huge one to see the flood without the hub's token bucket. Never fails on a time.
//   node test/bench/flood.ts [--updates N] [--flooders F] [--hub-rate R] [--timeout S]
// F flooders need F + 1 members: each floods with the certificate of its own member.
import { benchFailed } from "./keep-logs.ts";
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import type { ResourceBinding } from "../../shared/api/types.ts";
import { RESOURCES } from "../../shared/api/resources.ts";
import { KubeRest, objectPath, type ResourceInfo } from "../../shared/kube-rest.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import type { AgentMessage } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { forgedReport, helloAs, hostileStream } from "../e2e/hostile-agent.ts";

const NS = "flood";
const NAME = "probe";
const FIELD_MANAGER = "flotilla-bench";
const deployments: ResourceInfo = { apiVersion: "apps/v1", kind: "Deployment", plural: "deployments", namespaced: true };

interface FloodJob {
  hubPort: number;
  certsDir: string;
  cluster: string;
  workKey: string;
  /** A new message per report (each one is news to the hub), and heartbeats. */
  own: boolean;
}

/** A flooder (worker thread): one stream, Hello, then reports as fast as the stream takes them, until told to stop. */
async function flood(job: FloodJob): Promise<void> {
  let stop = false;
  parentPort?.on("message", () => {
    stop = true;
  });
  const h = hostileStream(job);
  await h.send(helloAs(job.cluster));
  const heartbeat: AgentMessage = { kind: { $case: "heartbeat", value: { kubernetesVersion: "v1.33.0", agentVersion: "flooder", nodeSummary: { total: 1, ready: 1 }, resourceSummary: { allocatable: { pods: "110" }, allocated: {} }, apiEnablements: ["apps/v1", "v1"] } } };
  let sent = 0;
  while (!stop && !h.isEnded()) {
    const report = forgedReport(job.workKey);
    // ~1 KiB, like a real failure message; in "own" mode a different one each time.
    if (report.kind?.$case === "workStatus") report.kind.value.message = `${job.own ? sent % 2 : ""} ${"flood ".repeat(170)}`;
    await h.send(report);
    if (job.own && sent % 200 === 0) await h.send(heartbeat);
    sent++;
    // Yield now and then so that the stop message is heard even while the stream never pushes back.
    if (sent % 500 === 0) await new Promise((r) => setImmediate(r));
  }
  const ended = h.isEnded() ? await h.ended : undefined;
  h.close();
  parentPort?.postMessage({ sent, ended });
}

const OWN = "flooders-own";

/** A 1-replica Deployment; seq changes its pod template (so its Work's hash). */
function deployment(name: string, seq: number): unknown {
  const labels = { app: name };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: NS },
    spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels, annotations: { "bench/seq": String(seq) } }, spec: { containers: [{ name: "c", image: "registry.k8s.io/pause:3.10" }] } } },
  };
}

/** The hash a cluster last reported applied for a template's Work, from its binding. */
async function hashReported(control: KubeRest, name: string, cluster: string): Promise<string | undefined> {
  const b = await control.get<ResourceBinding>(objectPath(RESOURCES.resourceBinding, NS, `${name}-deployment`)).catch(() => undefined);
  const item = b?.status?.aggregatedStatus?.find((i) => i.clusterName === cluster);
  return item?.applied === true ? item.observedHash : undefined;
}

/** Waits until the cluster reports a hash other than `before` applied. */
async function reportedBy(control: KubeRest, name: string, cluster: string, before: string | undefined, timeoutMs: number): Promise<void> {
  const t0 = performance.now();
  for (;;) {
    const h = await hashReported(control, name, cluster);
    if (h !== undefined && h !== before) return;
    if (performance.now() - t0 > timeoutMs) throw new Error(`${name} not reported by ${cluster} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

const ms = (x: number) => `${x.toFixed(0)} ms`;

/** CPU seconds (user + system) a process has used, from /proc (Linux). */
async function cpuSeconds(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, "utf8")).split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { updates: { type: "string", default: "40" }, flooders: { type: "string", default: "1" }, "hub-rate": { type: "string" }, mode: { type: "string", default: "own" }, timeout: { type: "string", default: "60" } } });
  const N = Number(values.updates);
  const F = Number(values.flooders);
  const timeoutMs = Number(values.timeout) * 1000;
  const hubRate = values["hub-rate"];
  // startFlotilla passes this process's environment to the control plane.
  if (hubRate !== undefined) Object.assign(process.env, { FLOTILLA_AGENT_MESSAGE_RATE: hubRate, FLOTILLA_AGENT_MESSAGE_BURST: hubRate });
  const own = values.mode === "own";
  if (!own && values.mode !== "forged") throw new Error("--mode wants own or forged");
  const flooderClusters = Array.from({ length: F }, (_, i) => `member${i + 2}`);
  let fleet: Fleet | undefined;
  let flotilla: Flotilla | undefined;
  let rest: KubeRest | undefined;
  try {
    fleet = await startFleet({ members: F + 1 });
    flotilla = await startFlotilla(fleet, { logLevel: "warn" });
    const f = flotilla;
    rest = new KubeRest(fleet.control.kubeConfig());
    const control = rest;
    console.log(`hub token bucket per cluster: ${hubRate === undefined ? "the default (200/s, burst 2000)" : `${hubRate}/s, burst ${hubRate}`}; flood mode ${values.mode}`);
    await control.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } } });
    const place = (name: string, clusters: string[]) =>
      control.apply(objectPath(RESOURCES.propagationPolicy, NS, name), {
        apiVersion: "flotilla.dev/v1alpha1",
        kind: "PropagationPolicy",
        metadata: { name, namespace: NS },
        spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name }], placement: { clusterAffinity: { clusterNames: clusters } } },
      }, FIELD_MANAGER);
    await place(NAME, ["member1"]);
    // The flooders' own Work, applied by their real agents first.
    await place(OWN, flooderClusters);
    await control.apply(objectPath(deployments, NS, OWN), deployment(OWN, 0), FIELD_MANAGER);
    for (const c of flooderClusters) await reportedBy(control, OWN, c, undefined, timeoutMs);

    let seq = 0;
    /** Updates the template and waits until a new hash is reported applied for member1: the apply → status time. */
    const update = async (): Promise<number> => {
      const before = await hashReported(control, NAME, "member1");
      seq++;
      const t0 = performance.now();
      await control.apply(objectPath(deployments, NS, NAME), deployment(NAME, seq), FIELD_MANAGER);
      await reportedBy(control, NAME, "member1", before, timeoutMs);
      return performance.now() - t0;
    };
    const series = async (what: string): Promise<number[]> => {
      const out: number[] = [];
      for (let i = 0; i < N; i++) out.push(await update());
      out.sort((a, b) => a - b);
      console.log(`${what}: apply → status over ${N} updates: p50 ${ms(quantile(out, 0.5))}, p99 ${ms(quantile(out, 0.99))}, max ${ms(out.at(-1) ?? Number.NaN)}`);
      return out;
    };

    await update(); // the first apply creates the Deployment: not timed
    const cpu0 = await cpuSeconds(f.controlPlane.pid);
    const tBase = performance.now();
    const baseline = await series("baseline (no flood)");
    const baseCpu = (await cpuSeconds(f.controlPlane.pid)) - cpu0;
    const baseSecs = (performance.now() - tBase) / 1000;

    // The flooders' members lose their agents: the flooders hold their certificates (and take over at once).
    for (const c of flooderClusters) await f.stopAgent(c);
    const m0 = await f.controlPlaneMetrics();
    const cpu1 = await cpuSeconds(f.controlPlane.pid);
    const workers = flooderClusters.map((cluster) => new Worker(new URL(import.meta.url), { workerData: { hubPort: f.hubPort, certsDir: f.certsDir, cluster, workKey: `apps/v1/Deployment/${NS}/${own ? OWN : NAME}`, own } satisfies FloodJob }));
    const results = workers.map((w) => new Promise<{ sent: number; ended?: unknown }>((resolve, reject) => {
      w.once("message", resolve);
      w.once("error", reject);
    }));
    await new Promise((r) => setTimeout(r, 2_000)); // let the flood reach full speed
    const tFlood = performance.now();
    const flooded = await series(`while ${F} agent(s) flood`);
    const floodSecs = (performance.now() - tFlood) / 1000;
    const floodCpu = (await cpuSeconds(f.controlPlane.pid)) - cpu1;
    for (const w of workers) w.postMessage("stop");
    const done = await Promise.all(results);
    await Promise.all(workers.map((w) => w.terminate()));
    const m1 = await f.controlPlaneMetrics();
    const delta = (k: string) => (m1[k] ?? 0) - (m0[k] ?? 0);
    const sent = done.reduce((n, d) => n + d.sent, 0);

    console.log("");
    const throttled = flooderClusters.reduce((n, c) => n + delta(`flotilla_hub_throttled_messages_total{cluster="${c}"}`), 0);
    console.log(`flood: ${sent} reports sent by ${F} flooder(s) over ~${(floodSecs + 2).toFixed(0)} s (${(sent / (floodSecs + 2)).toFixed(0)}/s); the hub dropped ${delta('flotilla_hub_rejected_reports_total{reason="NotSentToCluster"}')} as not sent to the flooder's cluster, paused reading ${throttled} times; binding status writes meanwhile ${delta("flotilla_binding_status_writes_total")}`);
    for (const d of done) if (d.ended !== undefined) console.log(`  a flooder's stream ended: ${JSON.stringify(d.ended)}`);
    console.log(`control plane CPU: baseline ${((100 * baseCpu) / baseSecs).toFixed(0)}% of a core, during the flood ${((100 * floodCpu) / (floodSecs + 2)).toFixed(0)}%`);
    console.log(`ratio flood / baseline, p50: ${(quantile(flooded, 0.5) / quantile(baseline, 0.5)).toFixed(2)}; p99: ${(quantile(flooded, 0.99) / quantile(baseline, 0.99)).toFixed(2)}`);
  } catch (err) {
    await benchFailed(err, fleet);
  } finally {
    rest?.close();
    await flotilla?.stop();
    await fleet?.stop();
  }
}

if (isMainThread) await main();
else await flood(workerData as FloodJob);
