import { execFile } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { binaryPath } from "./binaries.ts";
import { freePort } from "./free-port.ts";
import { ManagedProcess } from "./managed-process.ts";
import { retryOnPortClash } from "./port-retry.ts";
import { waitFor } from "./wait.ts";

export interface Etcd {
  process: ManagedProcess;
  clientUrl: string;
  /** The client and peer ports it listens on. */
  ports: number[];
}

/**
 * Starts a single-member etcd on loopback ports, data in dir/etcd; resolves once /health is true.
 * seed: a data directory to start from (a copy of it; etcd-seed.ts), else an empty one.
 */
export function startEtcd(opts: { binDir: string; dir: string; name: string; seed?: string }): Promise<Etcd> {
  return retryOnPortClash(async () => {
    const [clientPort, peerPort] = [await freePort(), await freePort()];
    const clientUrl = `http://127.0.0.1:${clientPort}`;
    const peerUrl = `http://127.0.0.1:${peerPort}`;
    const dataDir = join(opts.dir, "etcd");
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    if (opts.seed !== undefined) await copySeed(opts.seed, dataDir);
    const healthy = async () => {
      const res = await fetch(`${clientUrl}/health`, { signal: AbortSignal.timeout(5_000) });
      return res.ok && ((await res.json()) as { health?: string }).health === "true";
    };
    const process = ManagedProcess.start({
      name: `${opts.name}-etcd`,
      command: binaryPath(opts.binDir, "etcd"),
      args: [
        `--name=${opts.name}`,
        `--data-dir=${dataDir}`,
        `--listen-client-urls=${clientUrl}`,
        `--advertise-client-urls=${clientUrl}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        `--initial-cluster=${opts.name}=${peerUrl}`,
        "--unsafe-no-fsync=true",
        "--log-level=warn",
      ],
      logFile: join(opts.dir, "etcd.log"),
      ready: () => healthy().catch(() => false),
    });
    try {
      await process.guard(
        waitFor(healthy, { what: `${opts.name} etcd health`, timeoutMs: 30_000, intervalMs: 50 }),
      );
    } catch (err) {
      await process.kill();
      throw err;
    }
    return { process, clientUrl, ports: [clientPort, peerPort] };
  });
}

/**
 * Copies an etcd seed's contents (etcd-seed.ts) into dataDir, which exists. GNU cp keeps the
 * holes of the seed's sparse WAL: a 64 MiB segment of which a few KiB are written copies in
 * milliseconds.
 */
export async function copySeed(seed: string, dataDir: string): Promise<void> {
  await promisify(execFile)("cp", ["-R", "--sparse=always", `${seed}/.`, dataDir]);
}
