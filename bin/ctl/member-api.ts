// The member API's client (issue 41): HTTPS to `<member_api_url>/clusters/<name>/…` with the CA,
// the caller's certificate and key and the TLS name flotillactl's Admin connection uses, and the
// fan-out of one read over many members.
import type { IncomingMessage } from "node:http";
import { Agent, request } from "node:https";
import type { AdminClient } from "../../shared/gen/flotilla/v1alpha1/admin.ts";
import { KubeError } from "../../shared/kube-rest.ts";
import { call, type Credentials } from "./connection.ts";
import { selectClusters } from "./member-endpoints.ts";

/** Server-side printing: a meta.k8s.io Table, or the plain object from a server that prints none. */
export const TABLE_ACCEPT = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";

/** How many members one command reads at once. */
const CONCURRENCY = 16;

export class MemberApi {
  private readonly base: URL;
  private readonly agent: Agent;
  private readonly timeoutMs: number;

  constructor(memberApiUrl: string, credentials: Credentials, timeoutMs: number) {
    this.base = new URL(memberApiUrl);
    const { ca, cert, key, serverName } = credentials;
    this.agent = new Agent({ ca, cert, key, keepAlive: true, ...(serverName === undefined ? {} : { servername: serverName }) });
    this.timeoutMs = timeoutMs;
  }

  /** GETs path (with its query) from a member; the parsed JSON, or a KubeError with the member's (or the control plane's) status and message. */
  async get<T>(cluster: string, path: string, accept = "application/json"): Promise<T> {
    const res = await this.open(cluster, path, accept, this.timeoutMs);
    const text = await readAll(res);
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new KubeError(res.statusCode ?? 0, "", `GET ${path}: not JSON: ${text.slice(0, 200)}`);
    }
  }

  /** GETs path as a stream (logs, watches): the response once its status is 2xx; `timeoutMs` bounds the wait for it, not the stream. */
  async stream(cluster: string, path: string, signal?: AbortSignal): Promise<IncomingMessage> {
    return this.open(cluster, path, "application/json, */*", this.timeoutMs, signal);
  }

  close(): void {
    this.agent.destroy();
  }

  private open(cluster: string, path: string, accept: string, timeoutMs: number, signal?: AbortSignal): Promise<IncomingMessage> {
    const prefix = `${this.base.pathname.replace(/\/+$/, "")}/clusters/${encodeURIComponent(cluster)}`;
    return new Promise((resolve, reject) => {
      const req = request({ agent: this.agent, host: this.base.hostname, port: this.base.port || 443, method: "GET", path: `${prefix}${path}`, headers: { accept }, ...(signal ? { signal } : {}) }, (res) => {
        clearTimeout(timer);
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) {
          resolve(res);
          return;
        }
        readAll(res).then((text) => reject(errorOf(status, text, path)), reject);
      });
      const timer = setTimeout(() => req.destroy(new Error(`GET ${path}: no answer in ${timeoutMs} ms`)), timeoutMs);
      req.on("error", (err) => {
        clearTimeout(timer);
        reject(err);
      });
      req.end();
    });
  }
}

function readAll(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on("data", (c: Buffer) => chunks.push(c));
    res.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    res.on("error", reject);
  });
}

/** An error answer as a KubeError: a Status's reason and message, else the HTTP code and the start of the body. */
export function errorOf(status: number, text: string, path: string): KubeError {
  let body: { kind?: string; reason?: string; message?: string } | undefined;
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    body = undefined;
  }
  if (typeof body?.message === "string" && body.message !== "") return new KubeError(status, body.reason ?? "", body.message);
  const snippet = text.trim().slice(0, 200);
  return new KubeError(status, "", `GET ${path}: HTTP ${status}${snippet === "" ? "" : `: ${snippet}`}`);
}

/** The member API client and the clusters `--clusters` selects (ListClusters gives both). */
export async function openMembers(client: AdminClient, credentials: Credentials, clustersFlag: string, timeoutMs: number): Promise<{ api: MemberApi; clusters: string[] }> {
  const list = await call(client, client.listClusters, {}, timeoutMs);
  const selected = selectClusters(list, clustersFlag);
  if ("error" in selected) throw new Error(selected.error);
  return { api: new MemberApi(list.memberApiUrl, credentials, timeoutMs), clusters: selected.clusters };
}

/** How fanOut names what it reads: in a failure's line (default `cluster <key>`) and in the count when all failed (default clusters), and how many at once. */
export interface FanOutOptions<K> {
  label?: (key: K) => string;
  noun?: string;
  concurrency?: number;
}

/**
 * Runs `read` for every key (a cluster, or a log stream), at most `concurrency` (16) at once,
 * and gives the answers in the keys' order. A key that fails is a line on stderr
 * (`cluster X: message`) at once, and the others still count; only when every one failed does
 * it reject (with that line itself when there was one key).
 */
export async function fanOut<K, T>(keys: readonly K[], read: (key: K) => Promise<T>, warn: (s: string) => void, o: FanOutOptions<K> = {}): Promise<{ key: K; value: T }[]> {
  const label = o.label ?? ((k: K) => `cluster ${String(k)}`);
  const results: ({ key: K; value: T } | undefined)[] = new Array(keys.length);
  let failed: string | undefined;
  let next = 0;
  const worker = async () => {
    while (next < keys.length) {
      const key = keys[next] as K;
      const i = next++;
      try {
        results[i] = { key, value: await read(key) };
      } catch (err) {
        failed = `${label(key)}: ${err instanceof Error ? err.message : String(err)}`;
        if (keys.length > 1) warn(failed);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(o.concurrency ?? CONCURRENCY, keys.length) }, worker));
  const answered = results.filter((r) => r !== undefined);
  if (answered.length === 0 && keys.length === 1) throw new Error(failed);
  if (answered.length === 0 && keys.length > 0) throw new Error(`every one of the ${keys.length} ${o.noun ?? "clusters"} failed`);
  return answered;
}
