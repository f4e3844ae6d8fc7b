// The parent's side of bench:fleet's agent workers: forks them, and asks each over IPC.
import { type ChildProcess, fork } from "node:child_process";
import { openSync, closeSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { onExit } from "../env/cleanup.ts";
import type { AgentsSummary, ToParent, ToWorker } from "./fleet-protocol.ts";

const workerFile = fileURLToPath(new URL("./fleet-agents.ts", import.meta.url));

type Request = ToWorker extends infer T ? (T extends { id: number } ? Omit<T, "id"> : never) : never;

class Worker {
  readonly child: ChildProcess;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private exitedWith: string | undefined;

  constructor(index: number, logFile: string) {
    const out = openSync(logFile, "a");
    try {
      // More heap than the default: thousands of channels per worker.
      this.child = fork(workerFile, [], { stdio: ["ignore", out, out, "ipc"], execArgv: ["--max-old-space-size=8192"], serialization: "advanced" });
    } finally {
      closeSync(out);
    }
    this.child.on("message", (m: ToParent) => {
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (m.error !== undefined) w?.reject(new Error(`agent worker ${index}: ${m.error}`));
      else w?.resolve(m.result);
    });
    this.child.on("exit", (code, signal) => {
      this.exitedWith = `agent worker ${index} exited (code ${code}, signal ${signal}); see ${logFile}`;
      for (const w of this.waiting.values()) w.reject(new Error(this.exitedWith));
      this.waiting.clear();
    });
  }

  ask<T>(req: Request): Promise<T> {
    if (this.exitedWith !== undefined) return Promise.reject(new Error(this.exitedWith));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.child.send({ ...req, id } as ToWorker);
    });
  }
}

/** W worker processes, each running a contiguous slice of the agents. */
export class AgentWorkers {
  private readonly workers: Worker[];
  private readonly unregister: () => void;

  constructor(count: number, logFile: (i: number) => string) {
    this.workers = Array.from({ length: count }, (_, i) => new Worker(i, logFile(i)));
    this.unregister = onExit(() => {
      for (const w of this.workers) w.child.kill("SIGKILL");
    });
  }

  get count(): number {
    return this.workers.length;
  }

  /** The worker processes' pids (for their CPU). */
  get pids(): number[] {
    return this.workers.map((w) => w.child.pid ?? 0);
  }

  /** Asks every worker (requests built per worker index) and returns the answers in order. */
  all<T>(req: Request | ((i: number) => Request)): Promise<T[]> {
    return Promise.all(this.workers.map((w, i) => w.ask<T>(typeof req === "function" ? req(i) : req)));
  }

  one<T>(index: number, req: Request): Promise<T> {
    return (this.workers[index] as Worker).ask<T>(req);
  }

  async summary(since?: number): Promise<AgentsSummary> {
    const parts = await this.all<AgentsSummary>({ type: "summary", since });
    const sum = (f: (s: AgentsSummary) => number) => parts.reduce((n, s) => n + f(s), 0);
    return {
      agents: sum((s) => s.agents),
      synced: sum((s) => s.synced),
      connects: sum((s) => s.connects),
      syncs: sum((s) => s.syncs),
      manifestBytes: sum((s) => s.manifestBytes),
      held: sum((s) => s.held),
      minHeld: Math.min(...parts.map((s) => s.minHeld)),
      lastSyncAt: Math.max(...parts.map((s) => s.lastSyncAt)),
      syncedSince: sum((s) => s.syncedSince),
    };
  }

  /** Stops the agents (best effort), then the processes. */
  async stop(): Promise<void> {
    await Promise.race([this.all({ type: "stop" }).catch(() => undefined), new Promise((r) => setTimeout(r, 5_000))]);
    await Promise.all(
      this.workers.map(
        (w) =>
          new Promise<void>((resolve) => {
            if (w.child.exitCode !== null || w.child.signalCode !== null) return resolve();
            w.child.once("exit", () => resolve());
            w.child.kill("SIGTERM");
            setTimeout(() => w.child.kill("SIGKILL"), 3_000).unref();
          }),
      ),
    );
    this.unregister();
  }
}
