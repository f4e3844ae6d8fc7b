import type { Logger } from "pino";
import { counter, gaugeOf, histogram } from "./metrics.ts";
import { WorkQueue } from "./work-queue.ts";

/** Controllers between start() and stop(), whose queues the depth gauge reads. */
const started = new Set<Controller>();
gaugeOf("flotilla_workqueue_depth", "Keys waiting in a controller's work queue.", () => [...started].map((c) => [{ name: c.name }, c.queue.length] as const), ["name"]);
const reconcileSeconds = histogram("flotilla_reconcile_duration_seconds", "Time one reconcile took.", ["name"]);
const reconcileErrors = counter("flotilla_reconcile_errors_total", "Reconciles that failed (retried or terminal).", ["name"]);

/** What a reconcile asks of the engine besides the default (forget the key). */
export type ReconcileResult = undefined | { requeueAfterMs: number };

/** An error retrying cannot fix (bad user input already reported on the object): no requeue. */
export class TerminalError extends Error {
  override name = "TerminalError";
}

export interface ControllerOptions {
  name: string;
  /** Level-based: gets a key, reads current state from caches, makes the world match. */
  reconcile: (key: string) => Promise<ReconcileResult>;
  workers?: number;
  queue?: WorkQueue;
  log: Logger;
}

/**
 * The controller-runtime engine: N workers take keys from a coalescing queue and map outcomes to
 * retries: error → rate-limited requeue; TerminalError → no retry; requeueAfterMs → timed requeue;
 * success → forget.
 */
export class Controller {
  readonly name: string;
  readonly queue: WorkQueue;
  private readonly reconcile: ControllerOptions["reconcile"];
  private readonly workers: number;
  private readonly log: Logger;
  private running: Promise<void>[] = [];

  constructor(opts: ControllerOptions) {
    this.name = opts.name;
    this.reconcile = opts.reconcile;
    this.workers = opts.workers ?? 2;
    this.queue = opts.queue ?? new WorkQueue();
    this.log = opts.log.child({ controller: opts.name });
  }

  enqueue(key: string): void {
    this.queue.add(key);
  }

  start(): void {
    started.add(this);
    for (let i = 0; i < this.workers; i++) this.running.push(this.work());
  }

  /** Stops taking keys; resolves when in-flight reconciles finish. */
  async stop(): Promise<void> {
    await this.queue.shutDown();
    await Promise.all(this.running);
    this.running = [];
    started.delete(this);
  }

  private async work(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      await this.process(key);
      this.queue.done(key);
    }
  }

  /** Runs one reconcile and applies the retry policy. */
  async process(key: string): Promise<void> {
    try {
      const observe = reconcileSeconds.startTimer({ name: this.name });
      const result = await this.reconcile(key).finally(observe);
      this.queue.forget(key);
      if (result !== undefined) this.queue.addAfter(key, result.requeueAfterMs);
    } catch (err) {
      reconcileErrors.inc({ name: this.name });
      const message = err instanceof Error ? err.message : String(err);
      if (err instanceof TerminalError) {
        this.queue.forget(key);
        this.log.warn({ key, err: message }, "reconcile failed; not retrying");
        return;
      }
      this.log.warn({ key, err: message, retries: this.queue.numRequeues(key) }, "reconcile failed; retrying");
      this.queue.addRateLimited(key);
    }
  }
}
