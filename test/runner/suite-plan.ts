// The suite's plan, as pure decisions: which test files run as one job, which run alone, in what
// order, and which job starts next. run.ts is the I/O shell around these.

/**
 * Files that run alone: nothing else runs beside them. Each asserts an upper bound on how long the
 * system takes, or pauses and kills processes and then times what follows, so another file's load
 * on the 2 cores would make it fail or prove nothing.
 */
export const RUN_ALONE: Readonly<Record<string, string>> = {
  "test/chaos/chaos.test.ts": "the chaos run: minutes of seeded churn and faults, judged on convergence time",
  "test/image.test.ts": "builds the container image (CPU-bound) and asserts SIGTERM stops within STOP_WITHIN_MS",
  "test/e2e/ha.test.ts": "kills the leader and asserts failover within 10 s",
  "test/e2e/cluster-lease.test.ts": "kills a replica and asserts NotReady within the lease plus 4 s",
  "test/e2e/propagation.test.ts": "stops an agent and asserts NotReady within the threshold plus 5 s",
  "test/e2e/scheduling.test.ts": "stops an agent and asserts the share moves within the threshold plus 6 s",
  "test/e2e/admin-roles.test.ts": "asserts a revoked certificate is refused within 10 s",
  "test/e2e/progressive-rollout-restart.test.ts": "kills the control plane mid-rollout and asserts it is back within the soak",
  "test/leader-thread.test.ts": "blocks the main thread past the renew deadline and times the lease thread",
  "control-plane/peers/peer-collector.test.ts": "asserts a peer round takes under 3 s",
};

/** Whether a file runs in its own job; files outside test/ are fast unit tests, run as one batch. */
export function ownJob(file: string, runAlone: Readonly<Record<string, string>> = RUN_ALONE): boolean {
  return file.startsWith("test/") || file in runAlone;
}

/** One `node --test` process of the suite. */
export interface Job {
  /** The file, or "unit tests" for the batch. */
  name: string;
  files: string[];
  /** Runs with nothing beside it. */
  alone: boolean;
  /** What it took last time (ms), or a guess; the longest start first. */
  estimateMs: number;
}

export const UNIT_BATCH = "unit tests";

/**
 * The jobs for a list of files (paths relative to the repository), in the order they should
 * start: the files that run alone first, then the rest, each group longest first (the longest
 * file decides how soon a parallel run can end). previousMs: a job's time in an earlier run.
 */
export function planJobs(files: readonly string[], previousMs: Readonly<Record<string, number>>, runAlone: Readonly<Record<string, string>> = RUN_ALONE): Job[] {
  const batch = files.filter((f) => !ownJob(f, runAlone));
  const jobs: Job[] = files.filter((f) => ownJob(f, runAlone)).map((f) => ({ name: f, files: [f], alone: f in runAlone, estimateMs: previousMs[f] ?? guessMs(f) }));
  if (batch.length > 0) jobs.push({ name: UNIT_BATCH, files: batch, alone: false, estimateMs: previousMs[UNIT_BATCH] ?? 30_000 });
  const order = (a: Job, b: Job) => Number(b.alone) - Number(a.alone) || b.estimateMs - a.estimateMs || a.name.localeCompare(b.name);
  return jobs.sort(order);
}

/** Without an earlier run: real-cluster files are the long ones. */
function guessMs(file: string): number {
  if (file.startsWith("test/e2e/") || file.startsWith("test/env/")) return 60_000;
  return 10_000;
}

/**
 * Which of the waiting jobs (in plan order) start now, given what runs. A job that runs alone
 * starts only when nothing runs, and then nothing starts beside it; the queue keeps its order, so a
 * job that must run alone is not passed over indefinitely.
 */
export function jobsToStart(waiting: readonly Job[], running: readonly Job[], concurrency: number): Job[] {
  if (running.some((j) => j.alone)) return [];
  const start: Job[] = [];
  let busy = running.length;
  for (const job of waiting) {
    if (busy >= concurrency) break;
    if (job.alone) {
      if (busy === 0) start.push(job);
      break;
    }
    start.push(job);
    busy++;
  }
  return start;
}
