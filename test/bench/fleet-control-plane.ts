// bench:fleet's control-plane process (one per replica), with the production defaults of every cluster and
// leader-election flag (unlike test/env/flotilla.ts, whose short test timings would multiply the
// status writes being measured), and what the bench reads of it: /metrics, RSS and CPU. When it
// exits (a leader that could not renew its Lease exits on purpose), it is started again in place,
// as a kubelet restarts a pod, and the restarts are counted.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createCa, issueCertificate, type KeyPair } from "../../shared/pki.ts";
import type { Cluster } from "../env/cluster.ts";
import { freePort } from "../env/free-port.ts";
import { ManagedProcess } from "../env/managed-process.ts";
import { waitFor } from "../env/wait.ts";
import { cpuSeconds, rssBytes } from "./rss.ts";

const flotillaBin = fileURLToPath(new URL("../../bin/flotilla.ts", import.meta.url));

export interface BenchControlPlane {
  process: ManagedProcess;
  /** The CA that signs agent certificates, and the hub's address and name for agents. */
  ca: KeyPair;
  address: string;
  serverName: string;
  /** Prometheus text of /metrics. */
  metricsText(): Promise<string>;
  /** Resident set size (MiB) of the current run, and CPU seconds (user + system) of all runs so far. */
  usage(): Promise<{ rssMiB: number; cpuS: number }>;
  /** Times it exited and was started again. */
  restarts(): number;
  stop(): Promise<void>;
}

/** How the control-plane process runs: its module (the TypeScript sources unless given) and Node.js flags. */
export interface BenchProcessOptions {
  bin?: string;
  nodeArgs?: string[];
  /** Variables set in its environment only, e.g. glibc's MALLOC_ARENA_MAX. */
  env?: Record<string, string>;
}

/**
 * Starts one replica. The first makes the CA and the hub's certificate in `dir`; another (`replica`
 * given) reuses them, as replicas behind one Service share a serving certificate.
 */
export async function startBenchControlPlane(control: Cluster, dir: string, logLevel: string, extraArgs: string[] = [], replica?: { ca: KeyPair; identity: string }, run: BenchProcessOptions = {}): Promise<BenchControlPlane> {
  const ca = replica?.ca ?? (await createCa("flotilla-bench-ca"));
  if (replica === undefined) {
    const hub = await issueCertificate(ca, { commonName: "flotilla-hub", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"], usage: "server" });
    // The CA's key as the chart mounts it (--ca-key): the leader signs itself a certificate to follow the other replicas (issue 42).
    const files: [string, string][] = [["ca.crt", ca.certPem], ["ca.key", ca.keyPem], ["hub.crt", hub.certPem], ["hub.key", hub.keyPem]];
    await Promise.all(files.map(([f, text]) => writeFile(join(dir, f), text, { mode: 0o600 })));
  }
  const identity = replica?.identity ?? "control-plane";
  const [grpcPort, healthPort] = [await freePort(), await freePort()];
  const get = async (path: string) => fetch(`http://127.0.0.1:${healthPort}${path}`, { signal: AbortSignal.timeout(30_000) });
  const process_ = ManagedProcess.start({
    name: identity,
    command: process.execPath,
    args: [
      ...(run.nodeArgs ?? []),
      run.bin ?? flotillaBin, "control-plane",
      `--kubeconfig=${control.kubeconfigPath}`,
      `--grpc-listen=127.0.0.1:${grpcPort}`,
      `--health-listen=127.0.0.1:${healthPort}`,
      `--ca-cert=${join(dir, "ca.crt")}`,
      `--tls-cert=${join(dir, "hub.crt")}`,
      `--tls-key=${join(dir, "hub.key")}`,
      `--ca-key=${join(dir, "ca.key")}`,
      "--registration-listen=",
      `--identity=${identity}`,
      ...extraArgs,
    ],
    ready: async () => (await get("/readyz").catch(() => undefined))?.ok ?? false,
    env: { ...process.env, ...run.env, LOG_LEVEL: logLevel },
    logFile: join(dir, `${identity}.log`),
  });
  try {
    await process_.guard(waitFor(async () => (await get("/readyz").catch(() => undefined))?.ok ?? false, { what: "control plane /readyz", timeoutMs: 120_000 }));
  } catch (err) {
    await process_.stop();
    throw err;
  }
  // CPU of the runs that ended: /proc forgets a process once it exits, so it is sampled meanwhile.
  let cpuOfEnded = 0;
  let lastCpu = 0;
  let restarts = 0;
  let stopping = false;
  const sampler = setInterval(() => void processUsage(process_.pid).then((u) => (lastCpu = u.cpuS), () => undefined), 1000);
  const watch = (): void => {
    void process_.exited.then(async (e) => {
      if (stopping) return;
      restarts++;
      cpuOfEnded += lastCpu;
      lastCpu = 0;
      console.log(`  ${identity} exited (code ${e.code}, signal ${e.signal}); restart ${restarts}, as a kubelet would. Last log lines:\n${process_.tail(3)}`);
      await process_.restart(120_000).catch((err: unknown) => console.log(`  control plane restart failed: ${String(err)}`));
      watch();
    });
  };
  watch();
  return {
    process: process_,
    ca,
    address: `127.0.0.1:${grpcPort}`,
    serverName: "localhost",
    metricsText: async () => (await get("/metrics")).text(),
    usage: async () => {
      const u = await processUsage(process_.pid);
      lastCpu = u.cpuS;
      return { rssMiB: u.rssMiB, cpuS: cpuOfEnded + u.cpuS };
    },
    restarts: () => restarts,
    stop: async () => {
      stopping = true;
      clearInterval(sampler);
      await process_.stop();
    },
  };
}

/** RSS (VmRSS, MiB) and user + system CPU seconds of a process, from /proc (rss.ts). */
export async function processUsage(pid: number): Promise<{ rssMiB: number; cpuS: number }> {
  const [rss, cpuS] = await Promise.all([rssBytes(pid), cpuSeconds(pid)]);
  return { rssMiB: rss / 1024 / 1024, cpuS };
}

/** The value of an unlabelled metric in Prometheus text, or undefined. */
export function metricValue(text: string, name: string): number | undefined {
  const m = new RegExp(`^${name} (\\S+)$`, "m").exec(text);
  return m === null ? undefined : Number(m[1]);
}
