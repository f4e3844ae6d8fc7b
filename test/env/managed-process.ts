import { spawn } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { onExit } from "./cleanup.ts";
import { waitFor } from "./wait.ts";
import { inheritAutogroupNice } from "./autogroup.ts";

/** How a process ended. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface StartOptions {
  /** Short name for messages and pid files, e.g. "member1-kube-apiserver". */
  name: string;
  command: string;
  args: string[];
  /** stdout and stderr go here. */
  logFile: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Says whether the process serves; restart() waits for it (default: running is enough). */
  ready?: () => Promise<boolean>;
}

/**
 * The Go processes of test clusters (etcd, kube-apiserver, controllers, kwok) collect garbage at
 * 400% heap growth instead of Go's 100%: a member's start took 15% less CPU (median 3.9 s against
 * 4.3 s, 5 starts each, 2026-11-29), for heaps a few hundred MiB larger. A GOGC in the
 * environment wins. Node.js ignores it.
 */
const GO_TEST_ENV: NodeJS.ProcessEnv = { GOGC: "400" };

/**
 * The environment of the short-lived `kubectl` commands the e2e helpers run: no garbage collection
 * until the heap nears 1 GiB, which such a command never reaches. A `kubectl apply` took 0.15 s
 * of CPU instead of 0.21 s (GOGC=off against Go's default, 4 applies each, 2026-11-30); a suite
 * runs some 1,700 of them. A GOGC or GOMEMLIMIT in the environment wins.
 */
export function goCommandEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { GOGC: "off", GOMEMLIMIT: "1GiB", ...env };
}

/**
 * A child process the test environment owns. It runs in its own process group with a parent-death
 * signal (setpriv --pdeathsig), so it never outlives this process, however this process ends.
 */
export class ManagedProcess {
  readonly name: string;
  readonly logFile: string;
  /** The current run's pid (a restart changes it). */
  pid = 0;
  /** Settles when the current run exits (a restart replaces it). */
  exited: Promise<ProcessExit> = Promise.resolve({ code: null, signal: null });
  /** How many times the process was started (1 before any restart). */
  runs = 0;
  /** When the current run started (Date.now()). */
  startedAtMs = 0;
  private nextRunWaiters: (() => void)[] = [];
  private exit: ProcessExit | undefined;
  private unregister: () => void = () => undefined;
  private opts: StartOptions;

  private constructor(opts: StartOptions) {
    this.name = opts.name;
    this.logFile = opts.logFile;
    this.opts = { ...opts, args: [...opts.args] };
    this.spawn();
  }

  private spawn(): void {
    const opts = this.opts;
    this.exit = undefined;
    this.runs++;
    this.startedAtMs = Date.now();
    const log = openSync(opts.logFile, "a");
    try {
      const child = spawn("setpriv", ["--pdeathsig", "KILL", "--", opts.command, ...opts.args], {
        cwd: opts.cwd,
        env: { ...GO_TEST_ENV, ...(opts.env ?? process.env) },
        detached: true,
        stdio: ["ignore", log, log],
      });
      if (child.pid === undefined) throw new Error(`${opts.name}: could not start ${opts.command}`);
      // Its own session is its own autogroup: as low a priority as this process's (autogroup.ts).
      inheritAutogroupNice(child.pid);
      this.pid = child.pid;
      this.exited = new Promise((resolve) => {
        child.on("exit", (code, signal) => {
          const exit = { code, signal };
          if (this.pid === child.pid) this.exit = exit;
          resolve(exit);
        });
      });
    } finally {
      closeSync(log);
    }
    const pid = this.pid;
    this.unregister = onExit(() => killGroup(pid, "SIGKILL"));
    const waiters = this.nextRunWaiters;
    this.nextRunWaiters = [];
    for (const w of waiters) w();
  }

  /** Resolves when the process is next started (by restart()); never if it is not. */
  nextRun(): Promise<void> {
    return new Promise((resolve) => this.nextRunWaiters.push(resolve));
  }

  /** Starts a process; its output is appended to opts.logFile. */
  static start(opts: StartOptions): ManagedProcess {
    return new ManagedProcess(opts);
  }

  /** The arguments the process runs (or last ran) with. */
  get args(): readonly string[] {
    return this.opts.args;
  }

  get running(): boolean {
    return this.exit === undefined;
  }

  /** SIGSTOP to the process group: it stays, silent, as behind a network partition. */
  pause(): void {
    if (this.running) killGroup(this.pid, "SIGSTOP");
  }

  /** SIGCONT to the process group: a paused process goes on. */
  resume(): void {
    if (this.running) killGroup(this.pid, "SIGCONT");
  }

  /**
   * Starts the process again with the same command, arguments and environment, so the same ports
   * and data directory (a crashed process restarted in place); kills the current run first if it
   * still runs. Resolves once `ready` says it serves; rejects with its log tail if it exits first.
   * `args` replaces the arguments for this run and those after it (a process replaced by another
   * version of itself); `graceful` stops the current run with SIGTERM rather than a crash's SIGKILL.
   */
  async restart(timeoutMs = 60_000, o: { args?: string[]; graceful?: boolean } = {}): Promise<void> {
    if (o.graceful) await this.stop();
    else await this.kill();
    if (o.args !== undefined) this.opts = { ...this.opts, args: [...o.args] };
    this.spawn();
    const ready = this.opts.ready;
    if (ready === undefined) return;
    await this.guard(waitFor(ready, { what: `${this.name} ready after restart`, timeoutMs, intervalMs: 100 }));
  }

  /** SIGKILL to the process group (a crash); resolves once it has exited. */
  async kill(): Promise<void> {
    if (this.running) {
      killGroup(this.pid, "SIGKILL");
      await this.exited;
    }
    this.unregister();
  }

  /** SIGTERM to the process group, then SIGKILL after graceMs; resolves once it has exited. */
  async stop(graceMs = 5000): Promise<void> {
    if (this.running) {
      killGroup(this.pid, "SIGTERM");
      // A paused process handles SIGTERM only once it runs again.
      killGroup(this.pid, "SIGCONT");
      const timer = setTimeout(() => killGroup(this.pid, "SIGKILL"), graceMs);
      await this.exited;
      clearTimeout(timer);
    }
    this.unregister();
  }

  /** The last lines of the process's log, for error messages. */
  tail(lines = 20): string {
    try {
      return readFileSync(this.logFile, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
    } catch {
      return "(no log)";
    }
  }

  /** Rejects with the log tail if the process exits before `until` settles. */
  async guard<T>(until: Promise<T>): Promise<T> {
    let settled = false;
    const died = this.exited.then((e): never => {
      if (settled) return undefined as never;
      throw new Error(`${this.name} exited early (code ${e.code}, signal ${e.signal}); last log lines:\n${this.tail()}`);
    });
    try {
      return await Promise.race([until, died]);
    } finally {
      settled = true;
    }
  }
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** Whether a process with this pid exists (signal 0 probes without signalling). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
