// Leader election in its own worker thread (issue 25). In a reconnect storm the main thread runs
// thousands of TLS handshakes and resyncs back to back; a renewal whose timer and reply wait
// behind them misses the renew deadline, and the leader exits mid-storm. The worker has its own
// event loop and its own connections to the apiserver, so nothing on the main thread delays it.
// It shares its state through memory, not messages: the write fence is read at each write, and
// a message would arrive only when the busy main thread gets to it. Only the Lease's holder as
// observed comes as a message (a string): whom this replica lets follow its reports can wait for
// the main thread. A timer may run before a word that waits for it after a long busy turn, so
// peers/status-feed.ts judges a stream it would end again once the loop has taken its messages.
import { Worker } from "node:worker_threads";
import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import { workerFileBeside } from "../../shared/worker-file.ts";
import type { LeaderElectionOptions } from "./leader-election.ts";
import { liveHolder, type LeaseObservation } from "./lease-decision.ts";

/** Int32 slots of the shared state; the last renewal time is a BigInt64 after them. */
export const LEADING = 0;
export const DEPOSED = 1;
const FLAGS = 2;

/** The state the worker writes and the main thread reads: whether it leads, was deposed, and its last renewal. */
export interface SharedLeaseState {
  flags: Int32Array;
  renewedAt: BigInt64Array;
}

export function sharedLeaseState(buffer: SharedArrayBuffer): SharedLeaseState {
  return { flags: new Int32Array(buffer, 0, FLAGS), renewedAt: new BigInt64Array(buffer, 8, 1) };
}

/** Why a replica in this state may not write at `now`, or undefined (LeaderElector.writeFence's rule, pure). */
export function fenceOf(state: { leading: boolean; deposed: boolean; renewedAt: number }, now: number, renewDeadlineMs: number): string | undefined {
  if (state.deposed || (state.leading && now - state.renewedAt > renewDeadlineMs)) return "this replica led and missed its renew deadline";
  return undefined;
}

/** What the worker is given: the kubeconfig as text (a KubeConfig does not cross threads) and the election's timings. */
export interface LeaseWorkerData {
  kubeconfig: string;
  state: SharedArrayBuffer;
  election: Omit<LeaderElectionOptions, "rest" | "log" | "onStartedLeading" | "onStoppedLeading" | "onRenewed" | "onObserved">;
  userAgent: string;
  /** The main thread's log level. */
  logLevel: string;
}

/** Worker → main thread. */
export type LeaseWorkerMessage =
  | { type: "started" }
  | { type: "startFailed"; message: string }
  | { type: "leading" }
  | { type: "stoppedLeading" }
  | { type: "released" }
  | { type: "observed"; observation: LeaseObservation };

/** The lease worker's file beside the module at `self` (worker-file.ts). */
export function leaseWorkerFile(self: string): URL {
  return workerFileBeside(self, "lease-worker");
}

/** LeaderElector's surface, run in a worker thread (lease-worker.ts). */
export class ThreadedLeaderElector {
  private readonly o: Pick<LeaderElectionOptions, "renewDeadlineMs" | "onStartedLeading" | "onStoppedLeading" | "log">;
  private readonly state: SharedLeaseState;
  private readonly worker: Worker;
  private deposed = false;
  private started: { resolve: () => void; reject: (err: Error) => void } | undefined;
  private released: (() => void) | undefined;
  private observation: LeaseObservation | undefined;

  constructor(opts: { kc: KubeConfig; userAgent: string; election: LeaseWorkerData["election"]; log: Logger; onStartedLeading: () => void; onStoppedLeading: () => void }) {
    this.o = { renewDeadlineMs: opts.election.renewDeadlineMs, onStartedLeading: opts.onStartedLeading, onStoppedLeading: opts.onStoppedLeading, log: opts.log };
    const buffer = new SharedArrayBuffer(16);
    this.state = sharedLeaseState(buffer);
    const data: LeaseWorkerData = { kubeconfig: opts.kc.exportConfig(), state: buffer, election: opts.election, userAgent: opts.userAgent, logLevel: opts.log.level };
    this.worker = new Worker(leaseWorkerFile(import.meta.url), { workerData: data });
    this.worker.on("message", (m: LeaseWorkerMessage) => this.onMessage(m));
    this.worker.on("error", (err) => {
      opts.log.error({ err: String(err) }, "the leader election thread failed");
      this.started?.reject(err);
      this.deposed = true;
      if (Atomics.load(this.state.flags, LEADING) === 1) this.o.onStoppedLeading();
    });
  }

  get isLeader(): boolean {
    return !this.deposed && Atomics.load(this.state.flags, LEADING) === 1;
  }

  /** LeaderElector.observedHolder, from the worker's last word on the Lease (its `until` is by the same process clock). */
  observedHolder(now = Date.now()): string | undefined {
    return liveHolder(this.observation, now);
  }

  /** LeaderElector.writeFence, from the worker's shared state at this very moment. */
  writeFence(): string | undefined {
    if (this.deposed) return "this replica led and missed its renew deadline";
    const s = { leading: Atomics.load(this.state.flags, LEADING) === 1, deposed: Atomics.load(this.state.flags, DEPOSED) === 1, renewedAt: Number(Atomics.load(this.state.renewedAt, 0)) };
    const fence = fenceOf(s, Date.now(), this.o.renewDeadlineMs);
    if (fence !== undefined) this.deposed = true;
    return fence;
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => (this.started = { resolve, reject }));
  }

  /** Stops competing; a leader releases the lease (in the worker), then the worker ends. */
  async stop(): Promise<void> {
    const released = new Promise<void>((resolve) => (this.released = resolve));
    this.worker.postMessage({ type: "stop" });
    await Promise.race([released, new Promise((resolve) => setTimeout(resolve, this.o.renewDeadlineMs).unref())]);
    await this.worker.terminate();
  }

  private onMessage(m: LeaseWorkerMessage): void {
    switch (m.type) {
      case "started":
        this.started?.resolve();
        break;
      case "startFailed":
        this.started?.reject(new Error(m.message));
        break;
      case "leading":
        // Deposed meanwhile (the message waited behind the main thread's work): never start.
        if (this.writeFence() === undefined) this.o.onStartedLeading();
        break;
      case "stoppedLeading":
        this.deposed = true;
        this.o.onStoppedLeading();
        break;
      case "released":
        this.released?.();
        break;
      case "observed":
        this.observation = m.observation;
        break;
    }
  }
}
