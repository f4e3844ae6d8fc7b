// Copies an etcd seed (etcd-seed.ts) into a new etcd's data directory. Its own file, so that
// etcd.ts needs nothing of the seed's making (which starts an etcd itself).
import { execFile } from "node:child_process";
import { rm } from "node:fs/promises";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * Copies seed's contents into dataDir (which exists). GNU cp keeps the holes of the seed's sparse
 * WAL: a 64 MiB segment of which a few KiB are written copies in milliseconds.
 */
export async function copySeed(seed: string, dataDir: string): Promise<void> {
  try {
    await run("cp", ["-R", "--sparse=always", `${seed}/.`, dataDir]);
  } catch (err) {
    await rm(dataDir, { recursive: true, force: true });
    throw new Error(`copying the etcd seed ${seed}: ${(err as Error).message}`, { cause: err });
  }
}
