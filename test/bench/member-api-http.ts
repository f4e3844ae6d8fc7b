// Raw HTTPS to one Kubernetes API endpoint for bench:member-api: member1 through the control
// plane's member API (/clusters/member1) or member1's apiserver itself, with the headers kubectl
// sends. A list is timed from the request to its last byte; a watch calls back with each event
// and the time (performance.now()) its line arrived. HTTP/1.1 on both sides (the member API
// speaks nothing else; kubectl would use HTTP/2 against an apiserver).
import { Agent, request } from "node:https";
import type { ClientRequest, IncomingMessage } from "node:http";
import { gunzipSync } from "node:zlib";

/** Where requests go: `base` is the path the Kubernetes API sits below ("" for an apiserver). */
export interface Endpoint {
  name: string;
  host: string;
  port: number;
  base: string;
  tls: { ca: string; cert: string; key: string; servername?: string };
  /** Sent with every request (the direct side's Impersonate-*: the identity the agent gives the caller). */
  headers: Record<string, string>;
  agent: Agent;
  /** Requests sent again because the kept-alive connection they went on had been closed by the server meanwhile. */
  retried: number;
}

export function endpoint(e: Omit<Endpoint, "agent" | "retried">): Endpoint {
  return { ...e, agent: new Agent({ keepAlive: true, maxSockets: Infinity }), retried: 0 };
}

/** What `kubectl get pods -A` (client-go) sends: a Table, or the objects where no Table is served; gzip. */
export const KUBECTL_LIST_HEADERS: Readonly<Record<string, string>> = {
  accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json",
  "accept-encoding": "gzip",
  "user-agent": "kubectl/v1.34.0 (linux/amd64) kubernetes/bench",
};
/** kubectl get pods -A's first page. */
export const LIST_ALL_PODS = "/api/v1/pods?limit=500";

export interface Answer {
  status: number;
  /** Bytes on the wire (compressed when gzip). */
  bytes: number;
  body: Buffer;
  headers: IncomingMessage["headers"];
  /** From the request to the last byte. */
  ms: number;
}

type SendOptions = { headers?: Record<string, string>; body?: Buffer; timeoutMs?: number };

/**
 * One request, read to its end. One that fails before any answer on a kept-alive connection (the
 * server closed it as it was reused) is sent once more, as Go's transport (kubectl) does for
 * idempotent requests, and counted in `ep.retried`.
 */
export async function send(ep: Endpoint, method: string, path: string, opts: SendOptions = {}): Promise<Answer> {
  const t0 = performance.now();
  try {
    return await sendOnce(ep, method, path, opts, t0);
  } catch (err) {
    if (!(err as { reused?: boolean }).reused || (method !== "GET" && method !== "HEAD")) throw err;
    ep.retried++;
    return sendOnce(ep, method, path, opts, t0);
  }
}

function sendOnce(ep: Endpoint, method: string, path: string, opts: SendOptions, t0: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers = { ...ep.headers, ...opts.headers, ...(opts.body === undefined ? {} : { "content-length": String(opts.body.byteLength) }) };
    let answered = false;
    const req = request({ ...ep.tls, agent: ep.agent, host: ep.host, port: ep.port, method, path: `${ep.base}${path}`, headers }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const body = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, bytes: body.byteLength, body, headers: res.headers, ms: performance.now() - t0 });
      });
      res.on("error", reject);
    });
    req.on("error", (err) => reject(Object.assign(err, { reused: req.reusedSocket && !answered })));
    req.setTimeout(opts.timeoutMs ?? 60_000, () => req.destroy(new Error(`${ep.name} ${method} ${path}: no answer within ${(opts.timeoutMs ?? 60_000) / 1000} s`)));
    req.end(opts.body);
  });
}

/** kubectl get pods -A, timed. */
export function listPods(ep: Endpoint): Promise<Answer> {
  return send(ep, "GET", LIST_ALL_PODS, { headers: KUBECTL_LIST_HEADERS });
}

/** The rows of a list answer (a Table's rows, or a list's items), gunzipped as needed. */
export function rowsOf(a: Answer): number {
  const text = (a.headers["content-encoding"] === "gzip" ? gunzipSync(a.body) : a.body).toString("utf8");
  const parsed = JSON.parse(text) as { rows?: unknown[]; items?: unknown[] };
  return (parsed.rows ?? parsed.items ?? []).length;
}

export interface WatchEvent {
  type: string;
  object: { metadata?: { name?: string; resourceVersion?: string; annotations?: Record<string, string> }; data?: Record<string, string> };
}

export interface Watch {
  /** Settles once the answer's head arrived (rejects on a non-200 status). */
  ready: Promise<void>;
  /** Whether the stream is still open. */
  open(): boolean;
  close(): void;
}

/**
 * A watch (path with ?watch=1…): `onEvent` gets each event and the time its line was read. One
 * that fails before any answer on a kept-alive connection is sent once more, as `send` does.
 */
export function openWatch(ep: Endpoint, path: string, onEvent: (e: WatchEvent, at: number) => void, onEnd: (why: string) => void = () => undefined): Watch {
  let open = true;
  let req: ClientRequest | undefined;
  let res: IncomingMessage | undefined;
  const ended = (why: string) => {
    open = false;
    onEnd(why);
  };
  const ready = new Promise<void>((resolve, reject) => {
    const start = (again: boolean) => {
      const r0 = request({ ...ep.tls, agent: ep.agent, host: ep.host, port: ep.port, method: "GET", path: `${ep.base}${path}`, headers: { ...ep.headers, accept: "application/json", "user-agent": KUBECTL_LIST_HEADERS["user-agent"] as string } });
      req = r0;
      r0.on("response", (r) => {
        res = r;
        if (r.statusCode !== 200) {
          let body = "";
          r.on("data", (c: Buffer) => (body += c.toString()));
          r.on("end", () => {
            reject(new Error(`${ep.name} watch ${path}: HTTP ${r.statusCode} ${body.slice(0, 300)}`));
            ended(`HTTP ${r.statusCode}`);
          });
          return;
        }
        resolve();
        let pending = "";
        r.on("data", (c: Buffer) => {
          const at = performance.now();
          pending += c.toString("utf8");
          for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n")) {
            const line = pending.slice(0, nl);
            pending = pending.slice(nl + 1);
            if (line.trim() !== "") onEvent(JSON.parse(line) as WatchEvent, at);
          }
        });
        r.on("end", () => ended("the watch ended"));
        r.on("error", (err) => ended(err.message));
      });
      r0.on("error", (err) => {
        if (!open) return;
        if (res === undefined && r0.reusedSocket && !again) {
          ep.retried++;
          start(true);
          return;
        }
        reject(err);
        ended(err.message);
      });
      r0.end();
    };
    start(false);
  });
  ready.catch(() => undefined);
  return {
    ready,
    open: () => open,
    close: () => {
      open = false;
      res?.destroy();
      req?.destroy();
    },
  };
}
