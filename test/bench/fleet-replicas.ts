// bench:fleet's control plane as R replicas (issue 25): the first as before, the others with its
// CA and serving certificate under identities replica-2 … replica-R, behind test/env's round-robin
// TCP forwarder (a Service) when R > 1, so the agents dial one address and each replica's fair
// share (control-plane/hub/fair-share.ts) spreads them. What the bench reads is over every
// replica: metrics summed, restarts summed, the largest RSS (each process is held to the goal).
import type { Cluster } from "../env/cluster.ts";
import type { HubProxy } from "../env/hub-proxy.ts";
import { startHubProxyProcesses } from "../env/hub-proxy-processes.ts";
import { type BenchControlPlane, type BenchProcessOptions, metricValue, startBenchControlPlane } from "./fleet-control-plane.ts";

export interface BenchReplicas {
  /** The first replica (its CA signs the agents' certificates; its log tail is shown on a failure). */
  first: BenchControlPlane;
  all: BenchControlPlane[];
  /** Where agents dial: the forwarder with several replicas, else the one hub. */
  address: string;
  /** A metric summed over the replicas (undefined when none has it). */
  metric(name: string): Promise<number | undefined>;
  /** A metric of each replica, in order. */
  perReplica(name: string): Promise<(number | undefined)[]>;
  /** The largest RSS of a replica (MiB) and the CPU seconds of all of them. */
  usage(): Promise<{ rssMiB: number; cpuS: number }>;
  /** The TCP forwarder's processes in front of the replicas (none with one replica). */
  proxyPids: number[];
  restarts(): number;
  stop(): Promise<void>;
}

/** Sums the values that are there; undefined when none is. Pure. */
export function sumDefined(values: (number | undefined)[]): number | undefined {
  const there = values.filter((v): v is number => v !== undefined && !Number.isNaN(v));
  return there.length === 0 ? undefined : there.reduce((a, b) => a + b, 0);
}

/** The TCP forwarder's processes in front of several replicas. */
const PROXY_PROCESSES = 2;

export async function startBenchReplicas(control: Cluster, dir: string, logLevel: string, extraArgs: string[], count: number, run: BenchProcessOptions = {}): Promise<BenchReplicas> {
  const first = await startBenchControlPlane(control, dir, logLevel, extraArgs, undefined, run);
  const all = [first];
  let proxy: HubProxy | undefined;
  try {
    for (let i = 2; i <= count; i++) all.push(await startBenchControlPlane(control, dir, logLevel, extraArgs, { ca: first.ca, identity: `replica-${i}` }, run));
    // Two processes: one cannot hold the two descriptors of each of 10,000 agents' connections (hub-proxy-processes.ts).
    if (count > 1) proxy = await startHubProxyProcesses(all.map((r) => Number(r.address.split(":").at(-1))), PROXY_PROCESSES);
  } catch (err) {
    await Promise.all(all.map((r) => r.stop()));
    throw err;
  }
  const perReplica = async (name: string) => Promise.all(all.map(async (r) => metricValue(await r.metricsText().catch(() => ""), name)));
  return {
    first,
    all,
    address: proxy === undefined ? first.address : `127.0.0.1:${proxy.port}`,
    perReplica,
    metric: async (name) => sumDefined(await perReplica(name)),
    usage: async () => {
      const each = await Promise.all(all.map((r) => r.usage()));
      return { rssMiB: Math.max(...each.map((u) => u.rssMiB)), cpuS: each.reduce((n, u) => n + u.cpuS, 0) };
    },
    restarts: () => all.reduce((n, r) => n + r.restarts(), 0),
    proxyPids: proxy?.pids ?? [],
    stop: async () => {
      await proxy?.close();
      await Promise.all(all.map((r) => r.stop()));
    },
  };
}
