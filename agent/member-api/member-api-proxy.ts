// The agent's end of the member API (issue 41): each MemberApiRequest the hub sends is made to the
// member's apiserver as the caller (member-request.ts), and its answer goes back in frames. A
// response is read only as fast as the hub grants window and the stream has room: at most
// MAX_FRAMES_QUEUED frames wait in the stream ahead of a heartbeat or a Work's status, and a
// response the caller does not read stops at its window (the member's socket is paused).
import { Agent, request as httpsRequest, type RequestOptions } from "node:https";
import type { ClientRequest } from "node:http";
import type { Readable } from "node:stream";
import { connect as tlsConnect, type TLSSocket } from "node:tls";
import { isIP } from "node:net";
import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import type { AgentMessage, MemberApiCancel, MemberApiCredit, MemberApiData, MemberApiRequest, MemberApiResponse } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { MEMBER_API_FRAME, MEMBER_API_WINDOW, passHeaders, RESPONSE_HEADERS } from "../../shared/member-api.ts";
import { type MemberCall, memberCall, rawRefusal, type Refusal, statusBody, upgradeAnswer, upgradeHead } from "./member-request.ts";

/** Member API frames handed to the stream and not yet flushed, at most. */
const MAX_FRAMES_QUEUED = 4;

/** Writes a message to the hub's stream; `flushed` runs once it left. */
export type FrameWriter = (m: AgentMessage, flushed: () => void) => void;

export type MemberApiFrame =
  | { $case: "memberApiRequest"; value: MemberApiRequest }
  | { $case: "memberApiCredit"; value: MemberApiCredit }
  | { $case: "memberApiCancel"; value: MemberApiCancel }
  | { $case: "memberApiData"; value: MemberApiData };

interface Exchange {
  id: number;
  req: ClientRequest | undefined;
  /** The member's answer as it is read: a response body, or an upgrade's own connection. */
  source: Readable | undefined;
  /** An upgrade's connection to the apiserver, where the caller's bytes go. */
  socket: TLSSocket | undefined;
  upgrade: boolean;
  /** The caller's bytes the hub may still send (an upgrade's window), and those written not yet credited. */
  upstreamAllowed: number;
  creditOwed: number;
  /** An upgrade: the caller's bytes held until the apiserver switched protocols (never sent if it did not), and whether the caller ended. */
  upPending: Buffer[];
  upEnd: boolean;
  /** The apiserver answered the upgrade 101 Switching Protocols. */
  switched: boolean;
  /** The member's status and headers, once it answered (or the refusal's). */
  head: { status: number; headers: Record<string, string> } | undefined;
  headSent: boolean;
  queue: Buffer[];
  queued: number;
  /** Bytes the hub lets this exchange send now. */
  allowed: number;
  /** The member's answer ended (error set if it broke off); the end frame goes once the queue is empty. */
  ended: { error: string } | undefined;
}

export interface MemberApiProxyOptions {
  kc: KubeConfig;
  cluster: string;
  /** --member-api-writes. */
  allowWrites: boolean;
  /** Requests in flight at once; more are answered 429. */
  maxRequests: number;
  log: Logger;
}

export class MemberApiProxy {
  private readonly opts: MemberApiProxyOptions;
  private readonly agent: Agent;
  private readonly open = new Map<number, Exchange>();
  private write: FrameWriter | undefined;
  private framesQueued = 0;
  /** Counts the hub's streams: a frame flushed on an earlier one no longer counts against this one's bound. */
  private generation = 0;
  /** Requests answered, refused and broken off, for tests and metrics. */
  readonly counts = { requests: 0, refused: 0, broken: 0 };

  constructor(opts: MemberApiProxyOptions) {
    this.opts = opts;
    this.agent = new Agent({ keepAlive: true, maxSockets: opts.maxRequests });
  }

  /** A frame from the hub; `write` writes on the stream it came on. */
  received(frame: MemberApiFrame, write: FrameWriter): void {
    this.write = write;
    if (frame.$case === "memberApiRequest") void this.start(frame.value);
    else if (frame.$case === "memberApiCredit") {
      const x = this.open.get(frame.value.streamId);
      if (x === undefined) return;
      x.allowed = Math.min(x.allowed + frame.value.bytes, 4 * MEMBER_API_WINDOW);
      this.pump();
    } else if (frame.$case === "memberApiData") this.upstream(frame.value);
    else this.stop(frame.value.streamId, "cancelled by the hub");
  }

  /**
   * The caller's bytes on an upgrade: held until the apiserver switched protocols, then written to
   * the member and credited back once written; never written on a connection it did not switch
   * (nothing the caller sends can be read by the apiserver as a request of its own). Past the
   * window, the exchange ends.
   */
  private upstream(d: MemberApiData): void {
    const x = this.open.get(d.streamId);
    if (x === undefined || !x.upgrade) return;
    const n = d.data.byteLength;
    if (n > x.upstreamAllowed) return this.stop(x.id, "the hub sent past its window");
    x.upstreamAllowed -= n;
    const refused = x.head !== undefined && !x.switched;
    if (n > 0 && !refused) x.upPending.push(Buffer.from(d.data));
    if (d.end) x.upEnd = true;
    this.flushUp(x);
  }

  /** Writes an upgrade's held bytes once the apiserver switched protocols. */
  private flushUp(x: Exchange): void {
    const socket = x.socket;
    if (!x.switched || socket === undefined) return;
    for (const chunk of x.upPending.splice(0)) {
      socket.write(chunk, () => {
        x.upstreamAllowed += chunk.byteLength;
        x.creditOwed += chunk.byteLength;
        this.pump();
      });
    }
    if (x.upEnd) socket.end();
  }

  /** The stream ended: every request in flight stops (the hub failed them on its side). */
  closed(): void {
    for (const id of [...this.open.keys()]) this.stop(id, "the hub's stream ended");
    this.write = undefined;
    this.framesQueued = 0;
    this.generation++;
  }

  /** Closes idle connections to the member. */
  destroy(): void {
    this.closed();
    this.agent.destroy();
  }

  private async start(r: MemberApiRequest): Promise<void> {
    if (this.open.has(r.streamId)) return;
    const x: Exchange = { id: r.streamId, req: undefined, source: undefined, socket: undefined, upgrade: r.upgrade, upstreamAllowed: MEMBER_API_WINDOW, creditOwed: 0, upPending: [], upEnd: false, switched: false, head: undefined, headSent: false, queue: [], queued: 0, allowed: Math.min(r.window, 4 * MEMBER_API_WINDOW), ended: undefined };
    this.open.set(r.streamId, x);
    this.counts.requests++;
    const call = this.open.size > this.opts.maxRequests ? { status: 429, reason: "TooManyRequests", message: `the agent of ${this.opts.cluster} has ${this.opts.maxRequests} member API requests in flight; retry` } : memberCall(r, this.opts.allowWrites, this.opts.cluster);
    if ("status" in call) return this.refuse(x, call);
    const tls: RequestOptions = {};
    try {
      await this.opts.kc.applyToHTTPSOptions(tls);
    } catch (err) {
      return this.refuse(x, { status: 502, reason: "InternalError", message: `the agent of ${this.opts.cluster} has no credentials for its member: ${(err as Error).message}` });
    }
    if (this.open.get(r.streamId) !== x) return;
    const server = new URL(this.opts.kc.getCurrentCluster()?.server ?? "https://127.0.0.1");
    if (r.upgrade) return this.tunnel(x, call, tls, server);
    const body = Buffer.from(r.body);
    const headers: Record<string, string> = { ...(tls.headers as Record<string, string> | undefined), ...call.headers };
    if (body.byteLength > 0) headers["content-length"] = String(body.byteLength);
    const req = httpsRequest({ ...tls, headers, agent: this.agent, method: call.method, host: server.hostname, port: server.port || 443, path: `${server.pathname.replace(/\/$/, "")}${call.path}` }, (res) => {
      x.head = { status: res.statusCode ?? 502, headers: passHeaders(res.headers, RESPONSE_HEADERS) };
      this.read(x, res);
    });
    x.req = req;
    req.on("error", (err) => {
      if (x.source === undefined) this.refuse(x, { status: 502, reason: "InternalError", message: `the agent of ${this.opts.cluster} could not reach its member's apiserver: ${err.message}` });
      else this.ended(x, err.message);
    });
    req.end(body);
  }

  /** An upgrade: the agent's own connection to the apiserver, the request head written by hand, the answer passed on raw. */
  private tunnel(x: Exchange, call: MemberCall, tls: RequestOptions, server: URL): void {
    const host = server.hostname.replace(/^\[|\]$/g, "");
    const socket = tlsConnect({ host, port: Number(server.port || 443), ca: tls.ca, cert: tls.cert, key: tls.key, rejectUnauthorized: tls.rejectUnauthorized !== false, ...(isIP(host) === 0 ? { servername: host } : {}) });
    x.socket = socket;
    const auth = passHeaders((tls.headers ?? {}) as Record<string, string>, ["authorization"]);
    socket.once("secureConnect", () => {
      socket.write(upgradeHead(call.method, `${server.pathname.replace(/\/$/, "")}${call.path}`, server.host, { ...auth, ...call.headers }));
      // The answer's head says whether the caller's bytes may follow; until it is read, nothing goes back either (the hub's head timeout runs).
      let seen = Buffer.alloc(0);
      const sniff = (chunk: Buffer) => {
        seen = Buffer.concat([seen, chunk]);
        const answer = upgradeAnswer(seen);
        if (answer === undefined) return;
        socket.off("data", sniff);
        x.switched = answer.switched;
        x.head = { status: answer.status, headers: {} };
        if (!x.switched) x.upPending = [];
        this.flushUp(x);
        this.pump();
      };
      socket.on("data", sniff);
      this.read(x, socket);
    });
    socket.on("error", (err) => {
      if (x.source === undefined) this.refuse(x, { status: 502, reason: "InternalError", message: `the agent of ${this.opts.cluster} could not reach its member's apiserver: ${err.message}` });
      else this.ended(x, err.message);
    });
  }

  /** Reads the member's answer into the exchange's queue, pausing it while two frames wait. */
  private read(x: Exchange, source: Readable): void {
    x.source = source;
    source.on("data", (chunk: Buffer) => {
      x.queue.push(chunk);
      x.queued += chunk.byteLength;
      if (x.queued >= 2 * MEMBER_API_FRAME) source.pause();
      this.pump();
    });
    source.on("end", () => this.ended(x, ""));
    source.on("error", (err) => this.ended(x, err.message));
    this.pump();
  }

  private refuse(x: Exchange, r: Refusal): void {
    if (this.open.get(x.id) !== x) return;
    this.counts.refused++;
    const body = x.upgrade ? rawRefusal(r) : statusBody(r);
    x.head = { status: r.status, headers: { "content-type": "application/json", ...(r.status === 429 ? { "retry-after": "1" } : {}) } };
    x.queue.push(body);
    x.queued += body.byteLength;
    this.ended(x, "");
  }

  private ended(x: Exchange, error: string): void {
    if (x.ended !== undefined) return;
    x.ended = { error };
    if (error !== "") this.counts.broken++;
    this.pump();
  }

  private stop(id: number, why: string): void {
    const x = this.open.get(id);
    if (x === undefined) return;
    this.open.delete(id);
    x.req?.destroy(new Error(why));
    x.socket?.destroy();
  }

  /** Sends what the window and the stream's room allow, a frame per exchange in turn. */
  private pump(): void {
    const write = this.write;
    if (write === undefined) return;
    let progress = true;
    while (progress && this.framesQueued < MAX_FRAMES_QUEUED) {
      progress = false;
      for (const x of [...this.open.values()]) {
        if (this.framesQueued >= MAX_FRAMES_QUEUED) break;
        const frame = this.nextFrame(x);
        if (frame === undefined) continue;
        progress = true;
        this.framesQueued++;
        const generation = this.generation;
        write({ kind: { $case: "memberApiResponse", value: frame } }, () => {
          if (this.generation !== generation) return;
          this.framesQueued--;
          this.pump();
        });
      }
    }
  }

  /** The next frame of an exchange the window allows (its head first), or undefined. */
  private nextFrame(x: Exchange): MemberApiResponse | undefined {
    const head = x.head;
    if (head === undefined) return undefined;
    const size = Math.min(MEMBER_API_FRAME, x.allowed, x.queued);
    const finishing = x.ended !== undefined && size === x.queued;
    const credit = x.creditOwed;
    if (size === 0 && x.headSent && !finishing && credit === 0) return undefined;
    x.creditOwed = 0;
    const data = size > 0 ? this.take(x, size) : Buffer.alloc(0);
    x.allowed -= size;
    if (x.queued < MEMBER_API_FRAME) x.source?.resume();
    const first = !x.headSent;
    x.headSent = true;
    if (finishing) this.open.delete(x.id);
    return { streamId: x.id, status: first ? head.status : 0, headers: first ? head.headers : {}, data, end: finishing, error: finishing ? (x.ended?.error ?? "") : "", credit };
  }

  private take(x: Exchange, n: number): Buffer {
    const parts: Buffer[] = [];
    let left = n;
    while (left > 0) {
      const head = x.queue[0] as Buffer;
      if (head.byteLength <= left) {
        parts.push(head);
        x.queue.shift();
        left -= head.byteLength;
      } else {
        parts.push(head.subarray(0, left));
        x.queue[0] = head.subarray(left);
        left = 0;
      }
    }
    x.queued -= n;
    return parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
  }
}
