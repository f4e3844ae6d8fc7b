// A failed benchmark keeps the control plane's and agents' logs (fleet.stop() removes the fleet's
// root with them) and says where, for the post-mortem. With `clusters`, the clusters' own process
// logs too (`<cluster>/*.log`: kube-controller-manager, metrics-server, kwok, …), for benchmarks
// whose baseline runs in the members.
import { cp, mkdtemp, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Fleet } from "../env/fleet.ts";

export async function keepFlotillaLogs(fleet: Fleet | undefined, opts: { clusters?: boolean } = {}): Promise<void> {
  if (fleet === undefined) return;
  const keep = await mkdtemp(join(tmpdir(), "flotilla-bench-logs-"));
  await cp(join(fleet.root, "flotilla-logs"), keep, { recursive: true }).catch(() => undefined);
  if (opts.clusters) {
    for (const c of fleet.all()) {
      const logs = (await readdir(c.dir).catch(() => [])).filter((f) => f.endsWith(".log"));
      for (const f of logs) await cp(join(c.dir, f), join(keep, c.name, f)).catch(() => undefined);
    }
  }
  console.error(`${opts.clusters ? "Flotilla's and the clusters' logs" : "Flotilla logs"} kept in ${keep}`);
}

/** A benchmark that failed: says why, keeps the logs, and makes the process exit with 1. */
export async function benchFailed(err: unknown, fleet: Fleet | undefined): Promise<void> {
  process.exitCode = 1;
  console.error(err instanceof Error ? err.message : err);
  await keepFlotillaLogs(fleet);
}
