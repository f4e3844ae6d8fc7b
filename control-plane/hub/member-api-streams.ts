// The hub's end of the member API on one agent's stream (issue 41): each caller's request goes to
// the agent with a window of response bytes; the agent's frames go to the caller's sink, and more
// window is granted as the caller takes them. A slow caller therefore holds at most one window in
// this process and never stops the stream (Works, heartbeats and other callers go on).
import type { ControlMessage, MemberApiResponse } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { MEMBER_API_WINDOW, responseHeaders } from "../../shared/member-api.ts";
import type { AdminRole } from "../../shared/pki.ts";

/** One request for the member's apiserver, as the caller made it (headers already filtered). */
export interface MemberApiCall {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
  user: string;
  role: AdminRole;
  /** An upgrade (exec, attach, port-forward): the answer comes raw, the caller's bytes follow through the handle's send(). */
  upgrade?: boolean;
}

/** Where the answer goes: the caller's response. */
export interface MemberApiSink {
  head(status: number, headers: Record<string, string>): void;
  data(chunk: Buffer): void;
  /** The answer is complete, or (error set) broke off; before head(), the request failed (the sink answers a 503 with the error). */
  end(error?: string): void;
  /** An upgrade: the agent took more of the caller's bytes, so send() takes more again. */
  credit?(): void;
}

/** A request in flight: the caller tells how much it has taken, or gives up. */
export interface MemberApiHandle {
  /** The caller took n more bytes (its socket flushed them): the agent may send as many more. */
  consumed(n: number): void;
  /** The caller went away: the agent stops the request. */
  cancel(): void;
  /**
   * An upgrade: sends the caller's bytes (and with `end`, that the caller closed its side), as many
   * as the agent's window allows; returns how many it took. The rest waits for the sink's credit().
   */
  send(data: Buffer, end: boolean): number;
}

interface Open {
  sink: MemberApiSink;
  /** Bytes the agent may still send before more window is granted. */
  allowed: number;
  /** Bytes the caller took and not yet granted back (granted in batches of a quarter window). */
  taken: number;
  headSeen: boolean;
  /** An upgrade: the caller's bytes the agent will take before it credits more. */
  upstream: number;
  /** The request body's size: what it may hold ahead of Works in the stream. */
  body: number;
}

/** Request bodies one cluster's requests in flight may carry at once (a write's body goes ahead of Works on the stream). */
const MAX_BODIES_IN_FLIGHT = 8 * 1024 * 1024;

export class MemberApiStreams {
  private readonly open = new Map<number, Open>();
  private readonly write: (m: ControlMessage) => void;
  private readonly max: number;
  private nextId = 1;

  /** `max`: requests one cluster may have in flight at once. */
  constructor(write: (m: ControlMessage) => void, max: number) {
    this.write = write;
    this.max = max;
  }

  get inFlight(): number {
    return this.open.size;
  }

  /** Whether a request of this id is in flight (its frames are bounded by its window). */
  has(streamId: number): boolean {
    return this.open.has(streamId);
  }

  /** Sends the request to the agent, or undefined when this cluster already has `max` in flight, or MAX_BODIES_IN_FLIGHT of bodies. */
  start(call: MemberApiCall, sink: MemberApiSink): MemberApiHandle | undefined {
    if (this.open.size >= this.max) return undefined;
    const bodies = [...this.open.values()].reduce((n, e) => n + e.body, 0);
    if (call.body.byteLength > 0 && bodies + call.body.byteLength > MAX_BODIES_IN_FLIGHT) return undefined;
    const streamId = this.freeId();
    const entry: Open = { sink, allowed: MEMBER_API_WINDOW, taken: 0, headSeen: false, upstream: MEMBER_API_WINDOW, body: call.body.byteLength };
    this.open.set(streamId, entry);
    this.write({ kind: { $case: "memberApiRequest", value: { streamId, ...call, upgrade: call.upgrade === true, window: MEMBER_API_WINDOW } } });
    return {
      consumed: (n) => {
        if (this.open.get(streamId) !== entry) return;
        entry.taken += n;
        if (entry.taken < MEMBER_API_WINDOW / 4) return;
        entry.allowed += entry.taken;
        this.write({ kind: { $case: "memberApiCredit", value: { streamId, bytes: entry.taken } } });
        entry.taken = 0;
      },
      send: (data, end) => {
        if (this.open.get(streamId) !== entry) return data.byteLength;
        const n = Math.min(data.byteLength, entry.upstream, MEMBER_API_WINDOW / 8);
        entry.upstream -= n;
        const last = end && n === data.byteLength;
        if (n > 0 || last) this.write({ kind: { $case: "memberApiData", value: { streamId, data: data.subarray(0, n), end: last } } });
        return n;
      },
      cancel: () => {
        if (this.open.get(streamId) !== entry) return;
        this.open.delete(streamId);
        this.write({ kind: { $case: "memberApiCancel", value: { streamId } } });
      },
    };
  }

  /** A frame from the agent. One for no open request (cancelled, or made up) is dropped; one past its window ends that request only. */
  received(frame: MemberApiResponse): void {
    const entry = this.open.get(frame.streamId);
    if (entry === undefined) return;
    if (!entry.headSeen) {
      entry.headSeen = true;
      // Only the documented headers pass: the agent is not trusted with the caller's response (no cookies, no redirects).
      entry.sink.head(frame.status >= 100 && frame.status <= 599 ? frame.status : 502, responseHeaders(frame.headers));
    }
    if (frame.data.byteLength > entry.allowed) {
      this.finish(frame.streamId, entry, `the agent sent ${frame.data.byteLength} bytes with ${entry.allowed} left in its window`);
      this.write({ kind: { $case: "memberApiCancel", value: { streamId: frame.streamId } } });
      return;
    }
    entry.allowed -= frame.data.byteLength;
    if (frame.credit > 0) {
      entry.upstream = Math.min(entry.upstream + frame.credit, MEMBER_API_WINDOW);
      entry.sink.credit?.();
    }
    if (frame.data.byteLength > 0) entry.sink.data(Buffer.from(frame.data));
    if (frame.end) this.finish(frame.streamId, entry, frame.error === "" ? undefined : frame.error);
  }

  /** The stream closed: every request in flight breaks off. */
  closeAll(why: string): void {
    const entries = [...this.open.values()];
    this.open.clear();
    for (const e of entries) e.sink.end(why);
  }

  private finish(streamId: number, entry: Open, error: string | undefined): void {
    this.open.delete(streamId);
    entry.sink.end(error);
  }

  private freeId(): number {
    for (;;) {
      const id = this.nextId;
      this.nextId = this.nextId >= 0xffff_ffff ? 1 : this.nextId + 1;
      if (!this.open.has(id)) return id;
    }
  }
}
