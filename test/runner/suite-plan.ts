// The suite's plan, as pure decisions: which test files run as one job, which run alone, in what
// order, and which job starts next. run.ts is the I/O shell around these.

/**
 * Files that run alone: no other file runs beside them at its normal priority. Each asserts an
 * upper bound on how long the system takes, or pauses and kills processes and then times what
 * follows, so another file's load on the 2 cores would make it fail or prove nothing.
 */
export const RUN_ALONE: Readonly<Record<string, string>> = {
  "test/chaos/chaos.test.ts": "the chaos run: minutes of seeded churn and faults, judged on convergence time",
  "test/image.test.ts": "builds the container image (CPU-bound) and asserts SIGTERM stops within STOP_WITHIN_MS",
  "test/e2e/ha.test.ts": "kills the leader and asserts failover within 10 s",
  "test/e2e/cluster-lease.test.ts": "kills a replica and asserts NotReady within the lease plus 4 s",
  "test/e2e/scheduling.test.ts": "stops an agent and asserts NotReady within the threshold plus 5 s, and the share moved within it plus 6 s",
  "test/e2e/admin-roles.test.ts": "asserts a revoked certificate is refused within 10 s",
  "test/e2e/progressive-rollout-restart.test.ts": "kills the control plane mid-rollout and asserts it is back within the soak",
  "test/leader-thread.test.ts": "blocks the main thread past the renew deadline and times the lease thread",
  "control-plane/peers/peer-collector.test.ts": "asserts a peer round takes under 3 s",
};

/**
 * Files of RUN_ALONE that keep both cores busy for long: they start first, so that no companion
 * (light ones only, beside any alone file: jobsToStart) holds them up. A fleet at the lowest
 * priority could get no CPU for tens of seconds beside one, and its agents would miss heartbeats.
 */
export const BUSY_ALONE: Readonly<Record<string, string>> = {
  "test/chaos/chaos.test.ts": "2 control planes, 3 members and their churn: both cores for 100 s",
  "test/image.test.ts": "podman builds the image on both cores",
};

/**
 * Unit files outside test/ that mostly wait (on processes they start, on timers): each runs as a
 * job of its own, so the batch's one process (its files run one after another) does not wait on
 * them.
 */
export const WAITING_UNIT_FILES: Readonly<Record<string, string>> = {
  "bin/ctl/interpret-cli.test.ts": "starts flotillactl processes: 29 s, 0.3 of it CPU in the batch",
  "control-plane/hub/hub.test.ts": "real gRPC streams and their timers: 17 s in the batch",
};

/** Whether a file runs in its own job; other files outside test/ are fast unit tests, run as one batch. */
export function ownJob(file: string, runAlone: Readonly<Record<string, string>> = RUN_ALONE): boolean {
  return file.startsWith("test/") || file in runAlone || file in WAITING_UNIT_FILES;
}

/** One `node --test` process of the suite. */
export interface Job {
  /** The file, or "unit tests" for the batch. */
  name: string;
  files: string[];
  /** Runs with nothing beside it at its normal priority. */
  alone: boolean;
  /** Which companions may run beside this alone job: any, or only light ones (LIGHT_MS). */
  companions: "any" | "light";
  /** What it took last time (ms), or a guess; the longest start first. */
  estimateMs: number;
}

export const UNIT_BATCH = "unit tests";

/**
 * The jobs for a list of files (paths relative to the repository), in the order they should
 * start: the files that run alone first, then the rest, each group longest first (the longest
 * file decides how soon a parallel run can end). previousMs: a job's time in an earlier run.
 */
export function planJobs(
  files: readonly string[],
  previousMs: Readonly<Record<string, number>>,
  runAlone: Readonly<Record<string, string>> = RUN_ALONE,
  busyAlone: Readonly<Record<string, string>> = BUSY_ALONE,
): Job[] {
  const batch = files.filter((f) => !ownJob(f, runAlone));
  // Every alone job takes only light companions (see jobsToStart): a longer companion, a fleet at
  // the lowest priority, can get no CPU for tens of seconds beside one.
  const jobs: Job[] = files.filter((f) => ownJob(f, runAlone)).map((f) => ({ name: f, files: [f], alone: f in runAlone, companions: f in runAlone ? "light" : "any", estimateMs: previousMs[f] ?? guessMs(f) }));
  if (batch.length > 0) jobs.push({ name: UNIT_BATCH, files: batch, alone: false, companions: "any", estimateMs: previousMs[UNIT_BATCH] ?? 30_000 });
  // The busy alone jobs first: a companion that is not light, still running, would hold them up.
  const rank = (j: Job) => (j.alone ? (j.name in busyAlone ? 0 : 1) : 2);
  const order = (a: Job, b: Job) => rank(a) - rank(b) || b.estimateMs - a.estimateMs || a.name.localeCompare(b.name);
  return jobs.sort(order);
}

/** Without an earlier run: real-cluster files are the long ones. */
function guessMs(file: string): number {
  if (file.startsWith("test/e2e/") || file.startsWith("test/env/")) return 60_000;
  return 10_000;
}

/** A job that runs, and whether at the lowest priority (a companion). */
export interface Running {
  job: Job;
  low: boolean;
}

/** A light companion: a short job (by its last time), which passes whatever CPU it gets meanwhile. */
export const LIGHT_MS = 10_000;

/**
 * Which of the waiting jobs (in plan order) start now, given what runs, and which of them start at
 * the lowest priority. A job that runs alone starts only when no job runs at normal priority, and
 * then no other starts at normal priority beside it; the queue keeps its order, so a job that must
 * run alone is not passed over indefinitely. Beside an alone job, companions start at the lowest
 * priority and so take only the CPU it leaves idle (the runner lowers their whole process tree:
 * run.ts), never the unit batch (whose timing tests want their CPU): the shortest waiting jobs, and
 * planJobs makes every alone job take only light ones. Longer companions (the longest up to 90 s)
 * made a full run fail: never-destroy, a companion, took 146 s and failed, and the alone
 * progressive-rollout-restart beside it saw its control plane back 32.6 s after a kill, not 12;
 * so did the shortest ones of any length, once: interpreter-components, a companion beside ha,
 * took 96.8 s (29 s before) and its control plane stopped answering its webhook.
 * Without companions (the runner cannot set priorities) an
 * alone job runs with nothing at all beside it.
 */
export function jobsToStart(waiting: readonly Job[], running: readonly Running[], concurrency: number, companions = true): Running[] {
  const now = [...running];
  const start: Running[] = [];
  const queue = [...waiting];
  const light = (j: Job) => j.estimateMs <= LIGHT_MS;
  for (;;) {
    const alone = now.find((r) => r.job.alone);
    if (alone !== undefined) {
      if (!companions || now.length >= concurrency) return start;
      // Never the unit batch nor a waiting unit file: their timers are short (hub.test's 1 s hello timeout).
      const candidates = queue.filter((j) => !j.alone && j.name !== UNIT_BATCH && !(j.name in WAITING_UNIT_FILES));
      const companion = alone.job.companions === "light" ? candidates.findLast(light) : candidates.at(-1);
      if (companion === undefined) return start;
      queue.splice(queue.indexOf(companion), 1);
      const r = { job: companion, low: true };
      start.push(r);
      now.push(r);
      continue;
    }
    const next = queue[0];
    if (next === undefined || now.length >= concurrency) return start;
    if (next.alone && !now.every((r) => companions && r.low && (next.companions === "any" || light(r.job)))) return start;
    queue.shift();
    const r = { job: next, low: false };
    start.push(r);
    now.push(r);
  }
}

/**
 * Companions that may run at normal priority again: every one, once no alone job runs or waits.
 * Until then a companion stays low even between two alone jobs.
 */
export function companionsToRaise(waiting: readonly Job[], running: readonly Running[]): Running[] {
  if (waiting.some((j) => j.alone) || running.some((r) => r.job.alone)) return [];
  return running.filter((r) => r.low);
}
