// Lua in a worker thread with a hard deadline (issue 37). The VM's own limit is a count hook
// that runs between Lua instructions, so a built-in function (a backtracking string.find over a
// long string) never reaches it, and on the calling thread it held the control plane's event
// loop for minutes. Here the VM (an InThreadLua) runs in a worker thread and the caller waits for
// it synchronously, on shared memory (Atomics.wait), so callers stay synchronous. A call still
// running `hardLimitMs` after it began has its thread terminated from outside, which no code in
// the VM can escape; the next call starts a fresh thread. The caller's thread is therefore held at
// most hardLimitMs per call. The worker's heap has a hard cap too (resourceLimits).
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from "node:worker_threads";
import { workerFileBeside } from "../../worker-file.ts";
import type { JsonValue } from "./convert.ts";
import type { LuaCallOptions, LuaCalls } from "./lua-calls.ts";
import { LuaScriptError } from "./vm.ts";

/**
 * The slots in shared memory. REPLY holds the request's sequence number times 4 plus its state,
 * which the worker moves to STARTED (silently, with the time in `startedAt`) and then to DONE (and
 * wakes the caller); REQUEST holds the last request's sequence number, which wakes the worker. The
 * caller waits until REPLY holds its own request's DONE: a value of an earlier request, or a late
 * wake-up, only sends it back to wait. One wake-up each way per call.
 */
export const REPLY = 0;
export const REQUEST = 1;
export const STARTED = 1;
export const DONE = 2;
export const slotValue = (seq: number, state: typeof STARTED | typeof DONE) => seq * 4 + state;
/** Sequence numbers stay within an Int32 slot. */
const MAX_SEQ = 2 ** 28;

/** What the caller asks the thread. */
export type LuaRequest = ({ type: "call"; script: string; fn: string; args: readonly unknown[]; nret: number } | { type: "check"; script: string; fn: string }) & { seq: number };

/** The thread's answer, with what the script printed (the caller logs it). */
export type LuaReply = { ok: true; results: (JsonValue | undefined)[]; prints: string[] } | { ok: false; error: "script" | "error"; message: string; prints: string[] };

/** What the worker is given: the slots, when its current call started (Date.now()), its two ports. */
export interface LuaWorkerData {
  signal: Int32Array;
  startedAt: Float64Array;
  requests: MessagePort;
  replies: MessagePort;
  options: Omit<LuaCallOptions, "logger">;
}

/**
 * Waits, on the calling thread, for request `seq`'s answer: "done"; "not-started" when the thread
 * did not begin it within `startLimitMs` of `postedAt`; "ended" when it began it and did not finish
 * within `hardMs` of its start. Times are Date.now()'s. It wakes at least every `hardMs` to read
 * whether the call has begun (the worker marks that without waking it).
 */
export function awaitReply(signal: Int32Array, startedAt: Float64Array, seq: number, postedAt: number, startLimitMs: number, hardMs: number): "done" | "not-started" | "ended" {
  for (;;) {
    const seen = Atomics.load(signal, REPLY);
    if (seen >= slotValue(seq, DONE)) return "done";
    const started = seen >= slotValue(seq, STARTED);
    const deadline = started ? (startedAt[0] as number) + hardMs : postedAt + startLimitMs;
    const left = deadline - Date.now();
    if (left <= 0) return started ? "ended" : "not-started";
    Atomics.wait(signal, REPLY, seen, Math.min(left, hardMs));
  }
}

/** How long a call may run before its thread is terminated: the time limit and a grace for the VM's own check to end it first. */
export function hardLimitMs(timeoutMs: number): number {
  return timeoutMs + Math.max(1000, timeoutMs);
}

/** How long a thread may take to begin a call (a new thread loads fengari first) before the call fails. */
export const START_LIMIT_MS = 10_000;

/** The heap cap of a Lua thread: room for the VM and its compiled scripts, and a few times the per-call limit. */
export function threadHeapMb(memoryBytes: number): number {
  return 64 + 4 * Math.ceil(memoryBytes / 2 ** 20);
}

/** Runs one request on `calls` and says how it went, never throwing: the worker's whole job. */
export function answer(calls: LuaCalls, req: LuaRequest, prints: string[]): LuaReply {
  try {
    if (req.type === "call") return { ok: true, results: calls.call(req.script, req.fn, req.args, req.nret), prints };
    calls.check(req.script, req.fn);
    return { ok: true, results: [], prints };
  } catch (e) {
    return { ok: false, error: e instanceof LuaScriptError ? "script" : "error", message: e instanceof Error ? e.message : String(e), prints };
  }
}

interface LuaThread {
  worker: Worker;
  signal: Int32Array;
  startedAt: Float64Array;
  /** The caller's ends of the request and reply channels. */
  requests: MessagePort;
  replies: MessagePort;
  /** The last request's sequence number. */
  seq: number;
  /** Why it failed to start, once its 'error' event said so. */
  failed?: string;
}

/** How long, after a thread failed to start, calls fail at once with the reason rather than wait on another. */
const START_FAILURE_BACKOFF_MS = 30_000;
/** How long a script that ran into the hard deadline is refused at once rather than run again. */
const ENDED_SCRIPT_MEMORY_MS = 60_000;
/** Scripts remembered as ended at the hard deadline, at most. */
const ENDED_SCRIPTS_KEPT = 256;

/** LuaCalls on a worker thread; see the file comment. */
export class ThreadedLua implements LuaCalls {
  private thread: LuaThread | undefined;
  private readonly opts: LuaCallOptions;
  private readonly file: URL;
  /** Until when calls fail at once, and why: the last thread did not start. */
  private startFailure: { until: number; message: string } | undefined;
  /**
   * Scripts (by content) whose call ran into the hard deadline, and until when: a customization that
   * does so on every call (an agent reports health often) would otherwise hold its caller that long
   * each time. Its error is given at once instead.
   */
  private readonly ended = new Map<string, { until: number; message: string }>();

  constructor(opts: LuaCallOptions, file = workerFileBeside(import.meta.url, "lua-worker")) {
    this.opts = opts;
    this.file = file;
  }

  call(script: string, fn: string, args: readonly unknown[], nret: number): (JsonValue | undefined)[] {
    return this.ask({ type: "call", script, fn, args, nret });
  }

  check(script: string, fn: string): void {
    this.ask({ type: "check", script, fn });
  }

  /** Ends the thread, if any; a later call starts another. */
  close(): void {
    const t = this.thread;
    this.thread = undefined;
    if (t) {
      t.requests.close();
      t.replies.close();
      void t.worker.terminate();
    }
  }

  private ask(req: DistributiveOmit<LuaRequest, "seq">): (JsonValue | undefined)[] {
    const reply = this.exchange(req);
    for (const output of reply.prints) this.opts.logger?.debug({ output }, "lua print");
    if (!reply.ok) throw reply.error === "script" ? new LuaScriptError(reply.message) : new Error(reply.message);
    return reply.results;
  }

  private exchange(req: DistributiveOmit<LuaRequest, "seq">): LuaReply {
    const now = performance.now();
    const hash = createHash("sha256").update(req.script).digest("hex");
    const ended = this.ended.get(hash);
    if (ended !== undefined && ended.until > now) throw new Error(ended.message);
    if (this.startFailure !== undefined && this.startFailure.until > now) throw new Error(this.startFailure.message);
    const t = (this.thread ??= this.start());
    if (t.seq + 1 >= MAX_SEQ) {
      this.close();
      return this.exchange(req);
    }
    const seq = ++t.seq;
    try {
      t.requests.postMessage({ ...req, seq });
    } catch (e) {
      // Arguments that cannot be cloned (a function): nothing reached the thread.
      throw new Error(`the arguments cannot be passed to Lua: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    Atomics.store(t.signal, REQUEST, seq);
    Atomics.notify(t.signal, REQUEST);
    const hard = hardLimitMs(this.opts.timeoutMs);
    const outcome = awaitReply(t.signal, t.startedAt, seq, Date.now(), START_LIMIT_MS, hard);
    if (outcome === "not-started") {
      const message = `the Lua thread did not begin the call within ${START_LIMIT_MS} ms${t.failed === undefined ? "" : `: ${t.failed}`}`;
      this.startFailure = { until: performance.now() + START_FAILURE_BACKOFF_MS, message };
      this.close();
      throw new Error(message);
    }
    this.startFailure = undefined;
    if (outcome === "ended") {
      this.close();
      // The next thread starts now, so that it loads fengari while the caller does other work.
      this.thread = this.tryStart();
      const message = `script exceeded the time limit of ${this.opts.timeoutMs} ms (its thread was ended ${hard} ms into the call)`;
      this.remember(hash, message);
      throw new Error(message);
    }
    const received = receiveMessageOnPort(t.replies);
    if (received === undefined) {
      this.close();
      throw new Error("the Lua thread ended the call without an answer");
    }
    return received.message as LuaReply;
  }

  private remember(hash: string, message: string): void {
    this.ended.delete(hash);
    this.ended.set(hash, { until: performance.now() + ENDED_SCRIPT_MEMORY_MS, message });
    while (this.ended.size > ENDED_SCRIPTS_KEPT) this.ended.delete(this.ended.keys().next().value as string);
  }

  /** A new thread, or undefined when it cannot be made (the next call says why). */
  private tryStart(): LuaThread | undefined {
    try {
      return this.start();
    } catch {
      return undefined;
    }
  }

  private start(): LuaThread {
    if (this.file.protocol === "file:" && !existsSync(fileURLToPath(this.file))) throw new Error(`the Lua thread's entry ${fileURLToPath(this.file)} is missing from this installation`);
    const signal = new Int32Array(new SharedArrayBuffer(8));
    const startedAt = new Float64Array(new SharedArrayBuffer(8));
    const requests = new MessageChannel();
    const replies = new MessageChannel();
    const { logger: _logger, ...options } = this.opts;
    const data: LuaWorkerData = { signal, startedAt, requests: requests.port2, replies: replies.port1, options };
    const worker = new Worker(this.file, {
      workerData: data,
      transferList: [requests.port2, replies.port1],
      resourceLimits: { maxOldGenerationSizeMb: threadHeapMb(this.opts.memoryBytes) },
      stdout: false,
      stderr: false,
    });
    worker.unref();
    requests.port1.unref();
    replies.port2.unref();
    const thread: LuaThread = { worker, signal, startedAt, requests: requests.port1, replies: replies.port2, seq: 0 };
    // A thread that dies between calls (its heap cap) is replaced at the next call.
    worker.on("exit", () => {
      if (this.thread === thread) this.thread = undefined;
    });
    worker.on("error", (err) => {
      thread.failed = err instanceof Error ? err.message : String(err);
    });
    return thread;
  }
}

/** Omit over each member of a union. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
