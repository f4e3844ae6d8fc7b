import { rmSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureBinaries, ensureMetricsBinaries } from "./binaries.ts";
import { onExit } from "./cleanup.ts";
import { type Cluster, startCluster } from "./cluster.ts";
import { isProcessAlive } from "./managed-process.ts";
import { withStartSlot } from "./start-slots.ts";

/** A control cluster and its members. */
export interface Fleet {
  /** Where the clusters keep their files. */
  root: string;
  control: Cluster;
  members: Cluster[];
  /** Every cluster, control first. */
  all(): Cluster[];
  /** Stops every cluster and removes what startFleet created. Idempotent. */
  stop(): Promise<void>;
}

export interface FleetOptions {
  /** Number of members, named member1 … memberN (default 2). */
  members?: number;
  /** Fake Nodes per member (default 2). */
  nodesPerMember?: number;
  /** The control cluster's apiserver keeps an audit log of writes (Cluster.auditLogPath). */
  auditControl?: boolean;
  /** Every member's apiserver keeps an audit log of writes (Cluster.auditLogPath). */
  auditMembers?: boolean;
  /**
   * Every member runs metrics-server, and kwok reports pod usage that tests set (usage.ts):
   * `kubectl get --raw /apis/metrics.k8s.io/v1beta1/...` and member HPAs see it. Default off.
   */
  metrics?: boolean;
  /** Members run every default controller, not only what tests need (cluster.ts: allControllers). */
  allControllers?: boolean;
  /**
   * Directory for the clusters' files; a fresh temp dir when absent. startFleet removes what it
   * creates there on stop, and a temp dir entirely.
   */
  root?: string;
}

const tempPrefix = "flotilla-env-";
const ownerFile = "owner.pid";

/** Member names, as DESIGN §10 fixes them. */
export function memberNames(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `member${i + 1}`);
}

/**
 * Starts the control cluster and the members in parallel. If any fails, all are stopped and the
 * error names the component whose log explains it.
 */
export async function startFleet(opts: FleetOptions = {}): Promise<Fleet> {
  const binDir = await ensureBinaries();
  const metricsBinDir = opts.metrics ? await ensureMetricsBinaries() : undefined;
  const ownRoot = opts.root === undefined;
  let root: string;
  if (opts.root === undefined) {
    await sweepStaleTempRoots();
    root = await mkdtemp(join(tmpdir(), tempPrefix));
    await writeFile(join(root, ownerFile), String(process.pid));
  } else {
    root = opts.root;
    await mkdir(root, { recursive: true });
  }
  const clustersDir = join(root, "clusters");
  const unregister = onExit(() => {
    rmSync(ownRoot ? root : clustersDir, { recursive: true, force: true });
  });
  // Across parallel test files, only a few fleets start at once (start-slots.ts).
  const results = await withStartSlot(() =>
    Promise.allSettled([
      startCluster({ name: "control", role: "control", dir: join(clustersDir, "control"), binDir, audit: opts.auditControl }),
      ...memberNames(opts.members ?? 2).map((name) =>
        startCluster({
          name,
          role: "member",
          dir: join(clustersDir, name),
          binDir,
          nodes: opts.nodesPerMember,
          metrics: opts.metrics,
          metricsBinDir,
          allControllers: opts.allControllers,
          audit: opts.auditMembers,
        }),
      ),
    ]),
  );
  const started = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  const stop = async () => {
    await Promise.all(started.map((c) => c.stop()));
    await rm(ownRoot ? root : clustersDir, { recursive: true, force: true });
    unregister();
  };
  if (failed !== undefined) {
    await stop();
    throw failed.reason;
  }
  const [control, ...members] = started as [Cluster, ...Cluster[]];
  let stopping: Promise<void> | undefined;
  return {
    root,
    control,
    members,
    all: () => [control, ...members],
    stop: () => (stopping ??= stop()),
  };
}

/** Removes temp roots left by processes that were killed before they could clean up. */
async function sweepStaleTempRoots(): Promise<void> {
  const dir = tmpdir();
  for (const entry of await readdir(dir)) {
    if (!entry.startsWith(tempPrefix)) continue;
    const path = join(dir, entry);
    const owner = Number(await readFile(join(path, ownerFile), "utf8").catch(() => "0"));
    if (owner > 0 && !isProcessAlive(owner)) await rm(path, { recursive: true, force: true });
  }
}
