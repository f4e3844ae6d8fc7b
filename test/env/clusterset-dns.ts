// A member's clusterset DNS for tests: CoreDNS (test/env's build, with rewrite and kubernetes)
// serving CLUSTERSET_COREFILE_STANZA's rewrite from one member's kube-apiserver, on a loopback
// port. It reads the member's derived Services and their EndpointSlices; nothing else runs.
import { rmSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { CLUSTERSET_ZONE, clustersetCorefile } from "../../shared/api/mcs-dns.ts";
import { binaryPath, ensureDnsBinaries } from "./binaries.ts";
import { onExit } from "./cleanup.ts";
import { queryAt } from "./dns-client.ts";
import { freePort } from "./free-port.ts";
import { ManagedProcess } from "./managed-process.ts";
import { retryOnPortClash } from "./port-retry.ts";
import { waitFor } from "./wait.ts";

export interface ClustersetDnsOptions {
  /** Its own directory (Corefile, log); created, and removed by stop(). */
  dir: string;
  /** Admin kubeconfig of the member whose imports it serves (a Cluster's kubeconfigPath). */
  kubeconfigPath: string;
  /** Where coredns is; ensureDnsBinaries() when absent. */
  dnsBinDir?: string;
}

export interface ClustersetDns {
  /** "127.0.0.1:<port>", UDP and TCP: what dns-client.ts's resolveAt/queryAt take. */
  server: string;
  port: number;
  process: ManagedProcess;
  /** Stops CoreDNS and removes dir. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts CoreDNS with the clusterset server block for one member; resolves once it answers a
 * clusterset name (the kubernetes plugin answers only after its informers synced, or after its
 * 5 s startup timeout). On failure stops it and removes dir.
 */
export async function startClustersetDns(opts: ClustersetDnsOptions): Promise<ClustersetDns> {
  const dnsBinDir = opts.dnsBinDir ?? (await ensureDnsBinaries());
  const { dir } = opts;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const unregisterDir = onExit(() => rmSync(dir, { recursive: true, force: true }));
  let process: ManagedProcess | undefined;
  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      await process?.stop();
      await rm(dir, { recursive: true, force: true });
      unregisterDir();
    })();
    return stopped;
  };
  try {
    const started = await retryOnPortClash(async () => {
      const port = await freePort();
      const conf = join(dir, "Corefile");
      await writeFile(conf, clustersetCorefile({ port, bind: "127.0.0.1", kubeconfig: opts.kubeconfigPath }));
      const answers = () => answersClustersetName(port);
      const p = ManagedProcess.start({
        name: "coredns-clusterset",
        command: binaryPath(dnsBinDir, "coredns"),
        args: ["-conf", conf],
        logFile: join(dir, "coredns.log"),
        ready: answers,
      });
      try {
        await p.guard(waitFor(answers, { what: "CoreDNS answering clusterset names", timeoutMs: 30_000, intervalMs: 100 }));
      } catch (err) {
        await p.stop(0);
        throw err;
      }
      return { process: p, port };
    });
    process = started.process;
    return { server: `127.0.0.1:${started.port}`, port: started.port, process, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Whether CoreDNS on 127.0.0.1:port gives an answer (any rcode) for a clusterset name. */
async function answersClustersetName(port: number): Promise<boolean> {
  try {
    await queryAt(`127.0.0.1:${port}`, `flotilla-probe.default.svc.${CLUSTERSET_ZONE}`, "A", 500);
    return true;
  } catch {
    return false;
  }
}
