// One member API request carried to its agent and its answer written back to the caller (issue 41):
// the caller's socket grants the agent its window as it takes the bytes, a caller who leaves
// cancels the request, and an agent that does not answer within the head timeout gets a 504.
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import type { MemberApiCall, MemberApiHandle, MemberApiSink } from "../hub/member-api-streams.ts";
import { responseHeaders } from "../../shared/member-api.ts";

/** Where an answer goes: a ServerResponse, or the raw socket of an upgrade request. */
export interface CallerOut {
  readonly headersSent: boolean;
  writeHead(status: number, headers: Record<string, string>): void;
  /** `taken` runs once the bytes left for the caller. */
  write(chunk: Buffer, taken: () => void): void;
  end(): void;
  /** Cuts the answer short (the caller sees a broken response, not a complete one). */
  destroy(): void;
  /** Runs once when the caller goes away or the answer ended. */
  onClose(f: () => void): void;
}

/** What carries a request to a cluster's agent (the hub session's AgentRequests). */
export interface MemberRequests {
  requestMember(call: MemberApiCall, sink: MemberApiSink): MemberApiHandle | Error | undefined;
}

/**
 * Carries one call for a cluster wherever its agent streams (startMemberApi's `carry`): over the
 * agent's stream on this replica, else forwarded to the replica that holds it; undefined when
 * neither can take it (nothing was written to `out`). Resolves when the exchange is over.
 */
export type CarryMember = (cluster: string, call: MemberApiCall, out: CallerOut, headTimeoutMs: number) => Promise<ExchangeOutcome | undefined>;

/** Answers with a Kubernetes Status, as the apiserver would. */
export function sendStatus(out: CallerOut, status: number, reason: string, message: string, headers: Record<string, string> = {}): void {
  if (out.headersSent) return out.destroy();
  const body = Buffer.from(JSON.stringify({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code: status }));
  out.writeHead(status, { "content-type": "application/json", ...headers });
  out.write(body, () => undefined);
  out.end();
}

/** How the exchange ended, for the log and metrics. */
export type ExchangeOutcome = { status: number } | { status: number; broken: string };

/**
 * Carries `call` over `requests` and writes the answer to `out`; resolves when the exchange is over.
 * `headTimeoutMs`: how long the agent may take to answer at all.
 */
export function exchange(requests: MemberRequests, call: MemberApiCall, out: CallerOut, headTimeoutMs: number, cluster: string): Promise<ExchangeOutcome> {
  return new Promise((resolve) => {
    let status = 0;
    let done = false;
    const timer: { head?: NodeJS.Timeout } = {};
    const finish = (o: ExchangeOutcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer.head);
      resolve(o);
    };
    // The sink runs only once the agent answers, after `started` is set.
    const sink: MemberApiSink = {
      head: (s, headers) => {
        clearTimeout(timer.head);
        status = s;
        try {
          out.writeHead(s, responseHeaders(headers));
        } catch {
          // Headers Node refuses: the agent's answer is not passed on.
          (started as MemberApiHandle).cancel();
          sendStatus(out, 502, "InternalError", `the agent of ${cluster} answered with headers the control plane cannot pass on`);
          finish({ status: 502, broken: "unsendable headers" });
        }
      },
      data: (chunk) => out.write(chunk, () => (started as MemberApiHandle).consumed(chunk.byteLength)),
      end: (error) => {
        if (!out.headersSent) {
          sendStatus(out, 503, "ServiceUnavailable", `the request to ${cluster} failed: ${error ?? "the agent ended it without an answer"}`, { "retry-after": "5" });
          return finish({ status: 503, broken: error ?? "no answer" });
        }
        if (error !== undefined) out.destroy();
        else out.end();
        finish(error === undefined ? { status } : { status, broken: error });
      },
    };
    const started = requests.requestMember(call, sink);
    if (started === undefined) {
      sendStatus(out, 429, "TooManyRequests", `${cluster} has its most member API requests in flight through this control plane; retry`, { "retry-after": "1" });
      return finish({ status: 429 });
    }
    if (started instanceof Error) {
      sendStatus(out, 503, "ServiceUnavailable", started.message, { "retry-after": "5" });
      return finish({ status: 503 });
    }
    timer.head = setTimeout(() => {
      started.cancel();
      sendStatus(out, 504, "Timeout", `the agent of ${cluster} did not answer within ${headTimeoutMs} ms`);
      finish({ status: 504 });
    }, headTimeoutMs);
    out.onClose(() => {
      if (done) return;
      started.cancel();
      finish({ status, broken: "the caller went away" });
    });
  });
}

/** A CallerOut over a raw socket (an upgrade request: exec, attach, port-forward), answered as plain HTTP/1.1 and closed. */
export function socketOut(socket: Duplex): CallerOut {
  let sent = false;
  return {
    get headersSent() {
      return sent;
    },
    writeHead: (status, headers) => {
      sent = true;
      const lines = Object.entries({ ...headers, connection: "close" }).map(([k, v]) => `${k}: ${v}\r\n`);
      socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}\r\n${lines.join("")}\r\n`);
    },
    write: (chunk, taken) => void socket.write(chunk, () => taken()),
    end: () => void socket.end(),
    destroy: () => void socket.destroy(),
    onClose: (f) => void socket.once("close", f),
  };
}

/**
 * An upgrade (exec, attach, port-forward) carried both ways: the member's raw answer to the
 * caller's socket, the caller's bytes (and `head`, what came with the request) to the member
 * within the agent's window; the socket is paused while bytes wait for the agent's credit.
 */
export function tunnel(requests: MemberRequests, call: MemberApiCall, socket: Duplex, head: Buffer, headTimeoutMs: number, cluster: string): Promise<ExchangeOutcome> {
  return new Promise((resolve) => {
    const out = socketOut(socket);
    const pending: Buffer[] = head.byteLength > 0 ? [head] : [];
    let done = false;
    let answered = false;
    let callerEnded = false;
    let endSent = false;
    const timer: { head?: NodeJS.Timeout } = {};
    const finish = (o: ExchangeOutcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer.head);
      resolve(o);
    };
    const sink: MemberApiSink = {
      head: () => {
        answered = true;
        clearTimeout(timer.head);
      },
      data: (chunk) => socket.write(chunk, () => (started as MemberApiHandle).consumed(chunk.byteLength)),
      end: (error) => {
        if (error !== undefined && !answered) sendStatus(out, 503, "ServiceUnavailable", `the request to ${cluster} failed: ${error}`, { "retry-after": "5" });
        else if (error !== undefined) socket.destroy();
        else socket.end();
        finish(error === undefined ? { status: 101 } : { status: 101, broken: error });
      },
      credit: () => flush(),
    };
    const started = requests.requestMember({ ...call, upgrade: true }, sink);
    if (started === undefined || started instanceof Error) {
      if (started === undefined) sendStatus(out, 429, "TooManyRequests", `${cluster} has its most member API requests in flight through this control plane; retry`, { "retry-after": "1" });
      else sendStatus(out, 503, "ServiceUnavailable", started.message, { "retry-after": "5" });
      return finish({ status: started === undefined ? 429 : 503 });
    }
    /** Sends what the agent's window takes; pauses the caller while anything waits. */
    const flush = () => {
      while (pending.length > 0) {
        const chunk = pending[0] as Buffer;
        const n = started.send(chunk, false);
        if (n < chunk.byteLength) {
          pending[0] = chunk.subarray(n);
          return;
        }
        pending.shift();
      }
      if (callerEnded && !endSent) {
        endSent = true;
        started.send(Buffer.alloc(0), true);
      }
      socket.resume();
    };
    socket.on("data", (chunk: Buffer) => {
      pending.push(chunk);
      socket.pause();
      flush();
    });
    socket.on("end", () => {
      callerEnded = true;
      flush();
    });
    socket.once("close", () => {
      if (done) return;
      started.cancel();
      finish({ status: 101, broken: "the caller went away" });
    });
    timer.head = setTimeout(() => {
      started.cancel();
      sendStatus(out, 504, "Timeout", `the agent of ${cluster} did not answer within ${headTimeoutMs} ms`);
      finish({ status: 504 });
    }, headTimeoutMs);
    flush();
  });
}
