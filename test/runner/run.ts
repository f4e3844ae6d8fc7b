// The test suite's runner (`npm run test:only`): runs the test files as parallel `node --test`
// jobs, prints each job's output when it ends, then the slowest files, the per-file budget's
// verdict, and one closing line of counts. Exits non-zero when a test failed or a file went over
// its budget. The decisions are in suite-plan.ts and file-budget.ts; docs/development/testing.md
// says how to use it.
import { spawn } from "node:child_process";
import { closeSync, createReadStream, openSync, readFileSync } from "node:fs";
import { glob, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { finished } from "node:stream/promises";
import { parseArgs } from "node:util";
import { budgetReport, FILE_BUDGET_MS, judgeFileTimes, OVER_BUDGET_EXCUSED } from "./file-budget.ts";
import { type FileTime, type ReportLine, SHARED_PROCESS_ENV } from "./file-times-reporter.ts";
import { companionsToRaise, type Job, jobsToStart, planJobs, type Running, UNIT_BATCH } from "./suite-plan.ts";
import { judgeSuite } from "./suite-verdict.ts";
import { nodeCompileCacheDir } from "../env/compile-cache.ts";
import { autogroupNice, autogroupsUsable, inheritAutogroupNice, LOW_NICE, setAutogroupNice, setTreeAutogroupNice } from "../env/autogroup.ts";

const usage = `usage: node test/runner/run.ts [options] [FILE...]
  FILE...                  test files to run (default: every *.test.ts of shared/, bin/, control-plane/, agent/ and test/)
  --concurrency N          jobs at once (default: FLOTILLA_TEST_CONCURRENCY, else 2: see docs/development/testing.md)
  --start-slots N          fleets that may start at once across jobs (default: FLOTILLA_TEST_START_SLOTS, else 2)
  --file-budget-s S        a file's time limit in seconds (default ${FILE_BUDGET_MS / 1000})
  --slowest N              how many of the slowest files to list (default 15)
  --times FILE             where to keep the files' times (default: <cache>/test-times.json)
  --global-setup FILE      run FILE's globalSetup() once first (default test/global-setup.ts; "" for none)
  --job-timeout-s S        kill a job still running after S seconds (default 1200)
  --beside CMD             run the shell command CMD from the start, at the lowest priority beside everything else (npm test: the lint and type check); the run fails when it fails`;

const DEFAULT_GLOBS = ["shared/**/*.test.ts", "bin/**/*.test.ts", "control-plane/**/*.test.ts", "agent/**/*.test.ts", "test/**/*.test.ts"];
const reporter = new URL("./file-times-reporter.ts", import.meta.url).pathname;

interface Options {
  files: string[];
  concurrency: number;
  startSlots: number;
  budgetMs: number;
  slowest: number;
  timesFile: string;
  globalSetup: string;
  jobTimeoutMs: number;
  beside: string;
}

function positive(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, not ${JSON.stringify(value)}`);
  return n;
}

function count(name: string, value: string | undefined, fallback: number): number {
  const n = positive(name, value, fallback);
  if (!Number.isInteger(n)) throw new Error(`${name} must be a whole number, not ${JSON.stringify(value)}`);
  return n;
}

export function cacheDir(): string {
  return process.env.FLOTILLA_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "flotilla");
}

async function parseOptions(argv: string[]): Promise<Options> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      concurrency: { type: "string" },
      "start-slots": { type: "string" },
      "file-budget-s": { type: "string" },
      slowest: { type: "string" },
      times: { type: "string" },
      "global-setup": { type: "string" },
      "job-timeout-s": { type: "string" },
      beside: { type: "string" },
      help: { type: "boolean" },
    },
  });
  if (values.help) {
    console.log(usage);
    process.exit(0);
  }
  let files = positionals.map((f) => relative(process.cwd(), resolve(f)));
  if (files.length === 0) {
    const found = new Set<string>();
    for (const pattern of DEFAULT_GLOBS) for await (const f of glob(pattern, { exclude: (p) => p.includes("node_modules") })) found.add(f);
    files = [...found].sort();
  }
  return {
    files,
    // Two at once by default: on the 2-core machine the whole suite took 55 min one at a time and
    // 40 min two at once, with the same CPU; 3 at once made files 3 to 10 times slower
    // (docs/development/testing.md).
    concurrency: count("--concurrency", values.concurrency ?? process.env.FLOTILLA_TEST_CONCURRENCY, 2),
    startSlots: count("--start-slots", values["start-slots"] ?? process.env.FLOTILLA_TEST_START_SLOTS, 2),
    budgetMs: positive("--file-budget-s", values["file-budget-s"], FILE_BUDGET_MS / 1000) * 1000,
    slowest: count("--slowest", values.slowest, 15),
    timesFile: values.times ?? join(cacheDir(), "test-times.json"),
    globalSetup: values["global-setup"] ?? "test/global-setup.ts",
    jobTimeoutMs: positive("--job-timeout-s", values["job-timeout-s"], 1200) * 1000,
    beside: values.beside ?? "",
  };
}

/** The times file: each job's and each file's wall time in the last run that ran it. */
interface Times {
  jobs: Record<string, number>;
  files: Record<string, number>;
}

async function readTimes(path: string): Promise<Times> {
  try {
    const t = JSON.parse(await readFile(path, "utf8")) as Partial<Times>;
    return { jobs: t.jobs ?? {}, files: t.files ?? {} };
  } catch {
    return { jobs: {}, files: {} };
  }
}

interface JobResult {
  job: Job;
  /** Its files' base path: <base>.log holds its output, <base>.jsonl its reporter's lines. */
  base: string;
  code: number | null;
  signal: string | null;
  ms: number;
  /** Ended by --job-timeout-s. */
  timedOut: boolean;
  lines: ReportLine[];
  /** Started as a companion, at the lowest priority beside an alone job (suite-plan.ts). */
  low: boolean;
}

function s(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

async function main(): Promise<number> {
  const opts = await parseOptions(process.argv.slice(2));
  const started = Date.now();
  const work = await mkdtemp(join(tmpdir(), "flotilla-suite-"));
  const slotDir = join(work, "start-slots");
  await mkdir(slotDir);
  // Ports the jobs' listeners hold, one file each (test/env/free-port.ts): no two jobs pick the same one.
  const portDir = join(work, "ports");
  await mkdir(portDir);
  const children = new Set<number>();
  const killAll = () => {
    for (const pid of children) signalGroup(pid, "SIGKILL");
  };
  // A signal ends every running job as a timeout does (SIGTERM, so test/env removes its clusters,
  // then SIGKILL), and no other job starts; the run then ends with 128 + the signal's number and
  // keeps no times. Jobs also get SIGTERM from their parent-death signal if this process is killed.
  let stoppedBy: NodeJS.Signals | undefined;
  let jobsStarted = false;
  const signalExit = (sig: NodeJS.Signals) => 128 + (sig === "SIGINT" ? 2 : sig === "SIGHUP" ? 1 : 15);
  const onSignal = (sig: NodeJS.Signals) => {
    if (stoppedBy !== undefined) return;
    stoppedBy = sig;
    // Before the first job (the global setup): nothing of ours runs but the --beside command, which
    // gets its SIGTERM below (and its parent-death signal when this process exits).
    if (!jobsStarted) void rm(work, { recursive: true, force: true }).finally(() => process.exit(signalExit(sig)));
    for (const pid of children) void endGroup(pid);
  };
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(sig, onSignal);
  try {
    // Companions and a low-priority --beside need autogroup priorities this process may set as often
    // as it needs (test/env/autogroup.ts); without them, alone files run with nothing beside them
    // and the --beside command runs before the jobs.
    const priorities = autogroupsUsable();
    const beside = opts.beside === "" ? undefined : runBeside(opts.beside, join(work, "beside.log"), children);
    // Until it ends, the --beside command counts as a light companion (suite-plan.ts): it takes the
    // place of other companions beside the first alone file, and a job at normal priority waits
    // for it only when no alone file is left.
    let besideRunning = beside !== undefined;
    const besideEnded = beside?.then(() => {
      besideRunning = false;
    });
    const besideJob: Job = { name: `beside: ${opts.beside}`, files: [], alone: false, companions: "any", estimateMs: 0 };
    if (opts.globalSetup !== "") {
      const t = Date.now();
      console.log(`suite: global setup (${opts.globalSetup}): building or finding the test binaries`);
      const mod = (await import(resolve(opts.globalSetup))) as { globalSetup?: () => Promise<void> };
      await mod.globalSetup?.();
      console.log(`suite: global setup done in ${s(Date.now() - t)}`);
    }
    if (!priorities) {
      console.log("suite: this process cannot set autogroup priorities (no autogroups in this kernel): no companions beside alone files");
      await beside;
    }
    const previous = await readTimes(opts.timesFile);
    const waiting = planJobs(opts.files, previous.jobs);
    console.log(`suite: ${opts.files.length} files in ${waiting.length} jobs, ${opts.concurrency} at once, ${opts.startSlots} fleet starts at once`);
    // NODE_TEST_CONTEXT would make a job think it runs inside a test file (as when this runner is itself under test) and run nothing.
    const { NODE_TEST_CONTEXT: _, ...outside } = process.env;
    // Test files load the same modules again and again: Node's compile cache halves that (test/env/compile-cache.ts).
    const env = { ...outside, FLOTILLA_TEST_START_SLOTS: String(opts.startSlots), FLOTILLA_TEST_SLOT_DIR: slotDir, FLOTILLA_TEST_PORT_DIR: portDir, NODE_COMPILE_CACHE: nodeCompileCacheDir() };
    const results: JobResult[] = [];
    const running = new Map<Job, { done: Promise<JobResult>; pid: number; low: boolean }>();
    const now = (): Running[] => [...[...running].map(([job, r]) => ({ job, low: r.low })), ...(besideRunning ? [{ job: besideJob, low: true }] : [])];
    let n = 0;
    jobsStarted = true;
    while ((stoppedBy === undefined && waiting.length > 0) || running.size > 0) {
      // Once no alone job runs or waits, companions take their share again (their whole process tree).
      for (const { job } of companionsToRaise(waiting, now())) {
        const r = running.get(job);
        if (r === undefined) continue;
        r.low = false;
        setTreeAutogroupNice(r.pid, autogroupNice("self") ?? 0);
      }
      for (const { job, low } of stoppedBy === undefined ? jobsToStart(waiting, now(), opts.concurrency, priorities) : []) {
        waiting.splice(waiting.indexOf(job), 1);
        const i = n++;
        const started = runJob(job, join(work, `job-${i}`), env, opts.jobTimeoutMs, children, low);
        running.set(job, { ...started, low });
      }
      if (running.size === 0 && !besideRunning) throw new Error(`no job could start (${waiting.length} waiting)`);
      const done = await Promise.race([...[...running.values()].map((r) => r.done), ...(besideRunning && besideEnded ? [besideEnded] : [])]);
      if (done === undefined) continue;
      running.delete(done.job);
      results.push(done);
      await printJob(done);
    }
    if (stoppedBy !== undefined) {
      console.log(`suite: stopped by ${stoppedBy}: ${results.length} jobs ended, ${waiting.length} never started; no times kept`);
      return signalExit(stoppedBy);
    }
    const besideProblems: string[] = [];
    if (beside !== undefined) {
      const b = await beside;
      if (stoppedBy !== undefined) return signalExit(stoppedBy);
      console.log(`\n${b.code === 0 ? "▶" : "✖"} beside: ${opts.beside} (${s(b.ms)}${b.code === 0 ? "" : `, exit ${b.code ?? b.signal}`})`);
      await printLog(join(work, "beside.log"));
      if (b.code !== 0) besideProblems.push(`${opts.beside}: exit ${b.code ?? b.signal}`);
    }
    return await finish(opts, results, previous, Date.now() - started, besideProblems);
  } finally {
    killAll();
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * The --beside command: a shell command in a session of its own at the lowest priority (it takes
 * only CPU the jobs leave idle), its output to logPath; ends with the run's signals as a job does.
 */
function runBeside(command: string, logPath: string, children: Set<number>): Promise<{ code: number | null; signal: string | null; ms: number }> {
  const t = Date.now();
  const log = openSync(logPath, "w");
  const child = spawn("setpriv", ["--pdeathsig", "TERM", "--", "bash", "-c", command], { detached: true, stdio: ["ignore", log, log] });
  closeSync(log);
  const pid = child.pid ?? 0;
  if (pid > 0) children.add(pid);
  setAutogroupNice(pid, LOW_NICE);
  return new Promise((resolve) => {
    child.on("error", () => undefined);
    child.on("close", (code, signal) => {
      children.delete(pid);
      resolve({ code, signal, ms: Date.now() - t });
    });
  });
}

/** Runs one job: `node --test` on its files, its output to <base>.log, the reporter's lines to <base>.jsonl. */
function runJob(job: Job, base: string, env: NodeJS.ProcessEnv, timeoutMs: number, children: Set<number>, low: boolean): { done: Promise<JobResult>; pid: number } {
  const sharedProcess = job.name === UNIT_BATCH;
  const args = [
    "--test",
    "--test-timeout=600000",
    // The unit batch's files share one process: each file in a process of its own spent 175 s of
    // CPU (91.9 s wall) on what one process runs in 62 s (46.7 s), mostly loading the same modules
    // again (226 files, 2026-11-30). shared-process-report.ts credits their tests to the files.
    ...(sharedProcess ? ["--test-isolation=none"] : ["--test-concurrency=1"]),
    "--test-reporter=spec",
    "--test-reporter-destination=stdout",
    `--test-reporter=${reporter}`,
    `--test-reporter-destination=${base}.jsonl`,
    ...job.files,
  ];
  const t = Date.now();
  const log = openSync(`${base}.log`, "w");
  // Its own process group, and SIGTERM when this runner dies however it dies (setpriv, as test/env does).
  const jobEnv = sharedProcess ? { ...env, [SHARED_PROCESS_ENV]: "none" } : env;
  const child = spawn("setpriv", ["--pdeathsig", "TERM", "--", process.execPath, ...args], { env: jobEnv, detached: true, stdio: ["ignore", log, log] });
  closeSync(log);
  const pid = child.pid ?? 0;
  if (pid > 0) children.add(pid);
  // A companion: its session's autogroup at the lowest priority before it runs any code (spawn
  // returns after the exec); what it starts inherits it (test/env/autogroup.ts).
  if (low) setAutogroupNice(pid, LOW_NICE);
  else inheritAutogroupNice(pid);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void endGroup(pid);
  }, timeoutMs);
  const done = new Promise<JobResult>((resolveJob) => {
    child.on("error", () => undefined);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      children.delete(pid);
      // What the job left in its group (a test file still cleaning up after a SIGTERM: test/env's
      // cleanup.ts) gets GRACE_MS to end, then goes with it.
      void drainGroup(pid)
        .then(() => readLines(`${base}.jsonl`))
        .then((lines) => resolveJob({ job, base, code, signal, ms: Date.now() - t, lines, timedOut, low }));
    });
  });
  return { done, pid };
}

function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  // No pid (the spawn failed): -0 would be this runner's own group.
  if (!(pid > 0)) return false;
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** How long a job's processes get to clean up after a SIGTERM, or after the job's own process ended. */
const GRACE_MS = 10_000;

/** SIGTERM to a job's group (its test files clean up: test/env/cleanup.ts), SIGKILL GRACE_MS later if it still runs. */
async function endGroup(pid: number): Promise<void> {
  if (signalGroup(pid, "SIGTERM")) await drainGroup(pid);
}

/** Waits up to GRACE_MS for a group to have no process left, then SIGKILLs what remains. */
async function drainGroup(pid: number): Promise<void> {
  for (let waited = 0; waited < GRACE_MS && signalGroup(pid, 0); waited += 100) await new Promise((r) => setTimeout(r, 100));
  signalGroup(pid, "SIGKILL");
}

async function readLines(path: string): Promise<ReportLine[]> {
  try {
    const text = await readFile(path, "utf8");
    return text
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as ReportLine);
  } catch {
    return [];
  }
}

async function printJob(r: JobResult): Promise<void> {
  const ok = r.code === 0;
  const how = r.timedOut ? `, still running after --job-timeout-s: ended, exit ${r.code ?? r.signal}` : ok ? "" : `, exit ${r.code ?? r.signal}`;
  const beside = r.low ? ", started at low priority beside an alone file" : "";
  console.log(`\n${ok ? "▶" : "✖"} ${r.job.name} (${s(r.ms)}${beside}${how})`);
  await printLog(`${r.base}.log`);
}

/** Copies a job's (or --beside's) output to this process's stdout. */
async function printLog(path: string): Promise<void> {
  const out = createReadStream(path);
  out.pipe(process.stdout, { end: false });
  await finished(out).catch(() => undefined);
}

async function finish(opts: Options, results: JobResult[], previous: Times, wallMs: number, besideProblems: string[]): Promise<number> {
  const fileTimes: FileTime[] = [];
  for (const r of results) {
    for (const l of r.lines) if (l.kind === "file") fileTimes.push({ file: l.file, ms: l.ms, passed: l.passed });
    // A file the reporter said nothing of (its job died first) counts as failed, with its job's time.
    for (const f of r.job.files) {
      if (fileTimes.some((t) => t.file === f)) continue;
      fileTimes.push({ file: f, ms: r.job.files.length === 1 ? r.ms : 0, passed: false });
    }
  }
  const verdict = judgeFileTimes(fileTimes, { budgetMs: opts.budgetMs, excused: OVER_BUDGET_EXCUSED, slowest: opts.slowest });
  console.log("");
  for (const line of budgetReport(verdict, opts.budgetMs)) console.log(line);
  const suite = judgeSuite(results.map((r) => ({ name: r.job.name, files: r.job.files, code: r.code, lines: r.lines })));
  for (const p of [...suite.problems, ...besideProblems]) console.log(`failed: ${p}`);
  for (const f of suite.failures) console.log(`failed test: ${f}`);
  const times: Times = {
    jobs: { ...previous.jobs, ...Object.fromEntries(results.map((r) => [r.job.name, r.ms])) },
    files: { ...previous.files, ...Object.fromEntries(fileTimes.map((t) => [t.file, t.ms])) },
  };
  await mkdir(dirname(opts.timesFile), { recursive: true });
  await writeFile(opts.timesFile, `${JSON.stringify(times, null, 1)}\n`);
  const cpuMs = childrenCpuMs();
  const companions = results.filter((r) => r.low).length;
  console.log(`suite: ${results.length} jobs (${companions} started as companions of alone files), ${fileTimes.length} files in ${s(wallMs)} wall, ${s(cpuMs)} CPU in the jobs (CPU/wall ${(cpuMs / wallMs).toFixed(2)}); the files' times are in ${opts.timesFile}`);
  const ok = suite.problems.length === 0 && besideProblems.length === 0 && verdict.over.length === 0;
  // The plain closing line, counted over every file.
  console.log(`tests: ${suite.passed} passed, ${suite.failed} failed, ${suite.skipped} skipped`);
  return ok ? 0 : 1;
}

/** CPU time of this process's ended children and what they waited for (/proc: cutime + cstime). */
function childrenCpuMs(): number {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // After the command: state is field 3, so cutime (16) and cstime (17) are at 13 and 14 here; ticks of 10 ms.
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return 0;
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`suite: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(2);
  },
);
