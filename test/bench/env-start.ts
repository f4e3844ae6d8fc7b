// Benchmark of the test environment: warm start time of the local fleet (1 control + K members)
// against a baseline of starting one member alone in the same process, the CPU a member's start
// takes, and the RSS of a member's processes. Prints figures; never fails on a time.
//   node test/bench/env-start.ts [--members K] [--rounds N]
import { parseArgs } from "node:util";
import { AppsV1Api } from "@kubernetes/client-node";
import { ensureBinaries } from "../env/binaries.ts";
import { type Cluster, startCluster } from "../env/cluster.ts";
import { startFleet } from "../env/fleet.ts";
import { waitFor } from "../env/wait.ts";
import { cpuSeconds, mib, rssBytes } from "./rss.ts";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const { values } = parseArgs({ options: { members: { type: "string", default: "2" }, rounds: { type: "string", default: "3" } } });
const members = Number(values.members);
const rounds = Number(values.rounds);

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const v = await fn();
  return [v, performance.now() - t0];
}

async function clusterRss(c: Cluster): Promise<{ total: number; parts: string[] }> {
  let total = 0;
  const parts: string[] = [];
  for (const p of c.processes) {
    const r = await rssBytes(p.pid);
    total += r;
    parts.push(`${p.name.slice(c.name.length + 1)} ${mib(r)}`);
  }
  return { total, parts };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

await ensureBinaries();
const single: number[] = [];
const singleCpu: number[] = [];
const fleetTimes: number[] = [];
for (let i = 0; i < rounds; i++) {
  const dir = await mkdtemp(join(tmpdir(), "flotilla-bench-"));
  const [one, t1] = await timed(() => startCluster({ name: "solo", role: "member", dir }));
  single.push(t1);
  // CPU each process used from its start to the cluster's readiness (the kube-apiserver most).
  const cpu = await Promise.all(one.processes.map(async (p) => [p.name.slice(one.name.length + 1), await cpuSeconds(p.pid)] as const));
  singleCpu.push(cpu.reduce((sum, [, c]) => sum + c, 0));
  console.log(`one member's start, CPU until ready: ${cpu.map(([n, c]) => `${n} ${c.toFixed(2)} s`).join(", ")}`);
  await one.stop();
  await rm(dir, { recursive: true, force: true });

  const [fleet, t2] = await timed(() => startFleet({ members }));
  fleetTimes.push(t2);
  if (i === rounds - 1) {
    const member = fleet.members[0] as Cluster;
    const idle = await clusterRss(member);
    const apps = member.kubeConfig().makeApiClient(AppsV1Api);
    const labels = { app: "bench" };
    await apps.createNamespacedDeployment({
      namespace: "default",
      body: {
        metadata: { name: "bench" },
        spec: { replicas: 20, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: "c", image: "nginx" }] } } },
      },
    });
    await waitFor(async () => (await apps.readNamespacedDeployment({ name: "bench", namespace: "default" })).status?.availableReplicas === 20, { what: "20 replicas available", timeoutMs: 120_000 });
    const busy = await clusterRss(member);
    const control = await clusterRss(fleet.control);
    console.log(`member RSS idle: ${mib(idle.total)} (${idle.parts.join(", ")})`);
    console.log(`member RSS with a 20-replica Deployment: ${mib(busy.total)} (${busy.parts.join(", ")})`);
    console.log(`control cluster RSS: ${mib(control.total)} (${control.parts.join(", ")})`);
  }
  await fleet.stop();
}
const s = median(single);
const f = median(fleetTimes);
console.log(`warm start, one member alone (baseline): median ${(s / 1000).toFixed(2)} s of ${rounds} [${single.map((x) => (x / 1000).toFixed(2)).join(" ")}]`);
console.log(`warm start, control + ${members} members: median ${(f / 1000).toFixed(2)} s of ${rounds} [${fleetTimes.map((x) => (x / 1000).toFixed(2)).join(" ")}]`);
console.log(`ratio fleet / one member: ${(f / s).toFixed(2)}`);
console.log(`CPU of one member's start: median ${median(singleCpu).toFixed(2)} s, ${(median(singleCpu) / (s / 1000)).toFixed(2)} cores over its wall time`);
