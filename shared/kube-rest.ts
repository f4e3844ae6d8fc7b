// A small REST client for any Kubernetes kind, over the credentials of a client-node KubeConfig.
// client-node's typed APIs cover built-in kinds; Flotilla handles templates of ANY kind, so the
// generic path (server-side apply, status, delete, list) goes through here.
import { Agent, request as httpsRequest, type RequestOptions } from "node:https";
import type { KubeConfig } from "@kubernetes/client-node";

/** An error answer from the apiserver; `status` is the HTTP code (404, 409, 422, …). */
export class KubeError extends Error {
  override name = "KubeError";
  readonly status: number;
  readonly reason: string;
  constructor(status: number, reason: string, message: string) {
    super(message);
    this.status = status;
    this.reason = reason;
  }
}

/** Whether err is a KubeError with one of the codes. */
export function isKubeStatus(err: unknown, ...codes: number[]): err is KubeError {
  return err instanceof KubeError && codes.includes(err.status);
}

/** What a resource's URL needs: from discovery. */
export interface ResourceInfo {
  apiVersion: string;
  kind: string;
  /** The plural resource name, e.g. "deployments". */
  plural: string;
  namespaced: boolean;
}

/** The collection path of a resource, optionally in one namespace. */
export function collectionPath(res: ResourceInfo, namespace?: string): string {
  const base = res.apiVersion.includes("/") ? `/apis/${res.apiVersion}` : `/api/${res.apiVersion}`;
  return res.namespaced && namespace ? `${base}/namespaces/${encodeURIComponent(namespace)}/${res.plural}` : `${base}/${res.plural}`;
}

/** The path of one object, optionally of a subresource ("status"). */
export function objectPath(res: ResourceInfo, namespace: string | undefined, name: string, subresource?: string): string {
  return `${collectionPath(res, namespace)}/${encodeURIComponent(name)}${subresource ? `/${subresource}` : ""}`;
}

export interface RequestInit {
  body?: unknown;
  contentType?: string;
  query?: Record<string, string | undefined>;
  /** The request fails when the connection is idle this long (default 60 s). */
  timeoutMs?: number;
}

/** A write this client refused to send: its owner may not write now (a leader past its renew deadline). */
export class WriteFencedError extends Error {
  override name = "WriteFencedError";
}

export interface KubeRestOptions {
  maxSockets?: number;
  /** Sent as User-Agent on every request, so the apiserver's audit log names the writer. */
  userAgent?: string;
  /**
   * Asked right before a write (any verb but GET) is sent: a reason not to send it, or undefined.
   * A refused write rejects with WriteFencedError and never reaches the apiserver.
   */
  writeFence?: () => string | undefined;
}

/** Makes REST calls with one keep-alive connection pool per client. */
export class KubeRest {
  private readonly kc: KubeConfig;
  private readonly server: URL;
  private readonly agent: Agent;
  private readonly userAgent: string | undefined;
  private readonly writeFence: (() => string | undefined) | undefined;
  private tls: RequestOptions | undefined;

  constructor(kc: KubeConfig, opts: KubeRestOptions = {}) {
    this.kc = kc;
    this.userAgent = opts.userAgent;
    this.writeFence = opts.writeFence;
    const cluster = kc.getCurrentCluster();
    if (cluster === null) throw new Error("the kubeconfig has no current cluster");
    this.server = new URL(cluster.server);
    this.agent = new Agent({ keepAlive: true, maxSockets: opts.maxSockets ?? 16 });
  }

  /** Sends a request; resolves with the parsed JSON body, rejects with KubeError on an error status. */
  async request<T = unknown>(method: string, path: string, init: RequestInit = {}): Promise<T> {
    if (this.tls === undefined) {
      const opts: RequestOptions = {};
      await this.kc.applyToHTTPSOptions(opts);
      this.tls = opts;
    }
    const query = Object.entries(init.query ?? {}).filter((e): e is [string, string] => e[1] !== undefined);
    const search = query.length > 0 ? `?${new URLSearchParams(query).toString()}` : "";
    const payload = init.body === undefined ? undefined : typeof init.body === "string" ? init.body : JSON.stringify(init.body);
    const headers: Record<string, string> = { ...(this.tls.headers as Record<string, string> | undefined), accept: "application/json" };
    if (this.userAgent !== undefined) headers["user-agent"] = this.userAgent;
    // Checked synchronously before the request is sent: nothing runs between this and the send.
    const fenced = method === "GET" ? undefined : this.writeFence?.();
    if (fenced !== undefined) throw new WriteFencedError(`${method} ${path}: not sent: ${fenced}`);
    if (payload !== undefined) {
      headers["content-type"] = init.contentType ?? "application/json";
      headers["content-length"] = String(Buffer.byteLength(payload));
    }
    return new Promise<T>((resolve, reject) => {
      const req = httpsRequest(
        {
          ...this.tls,
          headers,
          agent: this.agent,
          method,
          host: this.server.hostname,
          port: this.server.port || 443,
          path: `${this.server.pathname.replace(/\/$/, "")}${path}${search}`,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            let body: unknown;
            try {
              body = text === "" ? undefined : JSON.parse(text);
            } catch {
              body = text;
            }
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300) {
              resolve(body as T);
              return;
            }
            const s = (typeof body === "object" && body !== null ? body : {}) as { reason?: string; message?: string };
            reject(new KubeError(status, s.reason ?? "", s.message ?? `${method} ${path}: HTTP ${status} ${text.slice(0, 200)}`));
          });
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.setTimeout(init.timeoutMs ?? 60_000, () => req.destroy(new Error(`${method} ${path}: timed out`)));
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }

  get<T = unknown>(path: string, query?: Record<string, string | undefined>): Promise<T> {
    return this.request<T>("GET", path, { query });
  }

  /** Server-side apply of obj (a full object with apiVersion, kind, metadata.name). */
  apply<T = unknown>(path: string, obj: unknown, fieldManager: string, force = true): Promise<T> {
    return this.request<T>("PATCH", path, {
      body: obj,
      contentType: "application/apply-patch+yaml",
      query: { fieldManager, force: force ? "true" : "false" },
    });
  }

  /** JSON merge patch. */
  mergePatch<T = unknown>(path: string, patch: unknown, fieldManager?: string): Promise<T> {
    return this.request<T>("PATCH", path, { body: patch, contentType: "application/merge-patch+json", query: { fieldManager } });
  }

  delete<T = unknown>(path: string, body?: unknown): Promise<T> {
    return this.request<T>("DELETE", path, { body });
  }

  /** Closes idle connections. */
  close(): void {
    this.agent.destroy();
  }
}
