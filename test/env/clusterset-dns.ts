// A member's clusterset DNS for tests: CoreDNS (test/env's build, with rewrite and kubernetes)
// serving CLUSTERSET_COREFILE_STANZA's rewrite from one member's kube-apiserver, on a loopback
// port. It reads the member's derived Services and their EndpointSlices; nothing else runs.
import { rmSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { CLUSTERSET_ZONE, clustersetCorefile } from "../../shared/api/mcs-dns.ts";
import { ensureDnsBinaries } from "./binaries.ts";
import { onExit } from "./cleanup.ts";
import { queryAt } from "./dns-client.ts";
import { startCoreDns } from "./dns.ts";
import type { ManagedProcess } from "./managed-process.ts";

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
    const started = await startCoreDns({
      dnsBinDir,
      dir,
      name: "coredns-clusterset",
      corefile: (port) => clustersetCorefile({ port, bind: "127.0.0.1", kubeconfig: opts.kubeconfigPath }),
      answers: answersClustersetName,
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
