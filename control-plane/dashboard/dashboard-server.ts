// The dashboard's HTTPS listener (issue 24): the page and its assets, the login exchange, JSON
// reads and server-sent events, and reads inside members (issue 41: pods, events, a log followed).
// TLS with the hub's certificate; a client certificate from the CA is asked for but not required
// (a browser without one signs in with a login link instead).
import { readdir, readFile } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { TLSSocket } from "node:tls";
import type { Logger } from "pino";
import { type RevocationList, revokingEntry } from "../../shared/revocation-list.ts";
import { splitHostPort as splitListen } from "../../shared/listen-address.ts";
import { dashboardAccess } from "./dashboard-access.ts";
import { type DashboardIdentity, signToken, type UsedLogins, verifyToken, type Verified } from "./dashboard-tokens.ts";
import type { LiveViews } from "./live-views.ts";
import type { MemberReads } from "./member-reads.ts";
import { viewKey } from "./view-key.ts";

export const SESSION_COOKIE = "flotilla_session";

export interface DashboardServerOptions {
  listen: string;
  tls: { caPem: string; certPem: string; keyPem: string };
  tokenKey: Buffer;
  sessionTtlMs: number;
  usedLogins: UsedLogins;
  /** The built page and assets (index.html, app.js, app.css). */
  webDir: URL;
  live: LiveViews;
  /** A view once (the same the events stream sends). */
  view(key: string): unknown;
  explain(q: URLSearchParams): Promise<unknown>;
  /** Reads inside members through the member API, as the signed-in user (issue 41). */
  member: Pick<MemberReads, "enabled" | "workload" | "pod" | "log">;
  /** The admin revocation list as it stands (read again when its file changes). */
  revocations(): Promise<{ list: RevocationList } | { broken: string }>;
  log: Logger;
  now?: () => number;
  /** How often an open events stream asks again whether its caller may read (default STREAM_RECHECK_MS). */
  streamRecheckMs?: number;
}

/**
 * An events stream's caller is judged again this often, as every request is: a session that
 * expired, or a certificate or session revoked (or a revocation list gone bad) meanwhile, ends the
 * stream with an error event (issue 37: a stream outlived both).
 */
export const STREAM_RECHECK_MS = 5_000;

const TYPES: Record<string, string> = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml" };
export const SECURITY_HEADERS = {
  "content-security-policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

export async function startDashboardServer(o: DashboardServerOptions): Promise<{ port: number; close(): Promise<void> }> {
  const now = o.now ?? Date.now;
  // Only files the build wrote are served: the names are read once, no path from a request reaches the filesystem.
  const assets = new Map<string, Buffer>();
  for (const name of await readdir(o.webDir).catch(() => [] as string[])) assets.set(name, await readFile(new URL(name, o.webDir)));

  /** Whether this request's caller may do what it asks, judged now (its certificate, its session, the revocation list). */
  const judge = async (req: IncomingMessage, url: URL) => {
    const socket = req.socket as TLSSocket;
    const peer = socket.authorized ? socket.getPeerCertificate() : undefined;
    const cert = peer === undefined || Object.keys(peer).length === 0 ? undefined : { subject: peer.subject as { CN?: string; O?: string }, fingerprint256: peer.fingerprint256, serialNumber: peer.serialNumber };
    const cookie = cookieValue(req.headers.cookie, SESSION_COOKIE);
    const session: Verified | undefined = cookie === undefined ? undefined : verifyToken(o.tokenKey, cookie, "session", now());
    const state = await o.revocations();
    const revocation = (who: DashboardIdentity) => ("broken" in state ? { listBroken: state.broken } : { revokedBy: revokingEntry(state.list, who) });
    return dashboardAccess({ method: req.method ?? "GET", path: url.pathname, ...(cert === undefined ? {} : { cert }), ...(session === undefined ? {} : { session }), revocation });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "https://dashboard.invalid");
    const access = await judge(req, url);
    if (!access.allowed) {
      o.log.info({ path: url.pathname, method: req.method, status: access.status, reason: access.reason }, "dashboard request refused");
      return sendJson(res, access.status, { error: access.reason }, access.status === 405 ? { allow: "GET, HEAD" } : {});
    }
    const path = url.pathname;
    if (path === "/" || path === "/index.html") return sendAsset(res, "index.html");
    if (path.startsWith("/assets/")) return sendAsset(res, path.slice("/assets/".length));
    if (path === "/login") return login(url, res);
    if (path === "/api/whoami") return sendJson(res, 200, { user: access.identity?.user, role: access.identity?.role, via: access.via, memberReads: o.member.enabled });
    if (path === "/api/view") return sendJson(res, 200, { view: o.view(viewKey(url.searchParams)) });
    if (path === "/api/explain") return sendJson(res, 200, await o.explain(url.searchParams));
    if (path === "/api/events") return events(viewKey(url.searchParams), req, res, () => judge(req, url));
    // A HEAD gets no body: the members are not asked (a log followed for nobody would only load them).
    if (path.startsWith("/api/member/") && req.method === "HEAD") return sendJson(res, 200, {});
    // Every /api/ path has an identity (dashboardAccess); the member's RBAC judges it there.
    const who = { user: access.identity?.user ?? "", role: access.identity?.role ?? "viewer" };
    if (path === "/api/member/workload") return sendJson(res, 200, await o.member.workload(url.searchParams, who));
    if (path === "/api/member/pod") return sendJson(res, 200, await o.member.pod(url.searchParams, who));
    if (path === "/api/member/log") return memberLog(url, who, req, res);
    return sendJson(res, 404, { error: `no such page: ${path}` });
  };

  const sendAsset = (res: ServerResponse, name: string) => {
    const body = assets.get(name);
    if (body === undefined) {
      return sendJson(res, name === "index.html" ? 503 : 404, { error: name === "index.html" ? "the dashboard's page is not built: run `npm run build` (or `npm run build:dashboard`)" : `no such asset: ${name}` });
    }
    res.writeHead(200, { ...SECURITY_HEADERS, "content-type": TYPES[name.slice(name.lastIndexOf("."))] ?? "application/octet-stream", "content-length": body.length });
    res.end(body);
  };

  const login = (url: URL, res: ServerResponse) => {
    const t = verifyToken(o.tokenKey, url.searchParams.get("token") ?? "", "login", now());
    if (!t.ok || !o.usedLogins.take(t.nonce, t.exp, now())) {
      const why = t.ok ? "this link was used already" : `the link is not valid (${t.reason})`;
      return sendJson(res, 401, { error: `${why}: run \`flotillactl dashboard\` for a new one` });
    }
    const session = signToken(o.tokenKey, t.identity, "session", now(), o.sessionTtlMs);
    o.log.info({ user: t.identity.user, role: t.identity.role }, "dashboard session started");
    res.writeHead(303, { ...SECURITY_HEADERS, location: "/", "set-cookie": `${SESSION_COOKIE}=${session}; Path=/; HttpOnly; Secure; SameSite=Strict; Max-Age=${Math.floor(o.sessionTtlMs / 1000)}` });
    res.end();
  };

  const events = (key: string, req: IncomingMessage, res: ServerResponse, again: () => ReturnType<typeof judge>) => {
    res.writeHead(200, { ...SECURITY_HEADERS, "content-type": "text/event-stream", connection: "keep-alive" });
    const sub = o.live.subscribe(key, { send: (data) => res.write(`data: ${data}\n\n`) });
    if (sub === undefined) {
      // EventSource would retry a refused stream at once; an error event tells the page why and ends it.
      res.end(`data: ${JSON.stringify({ error: "the dashboard serves its most live views; close a tab and reload" })}\n\n`);
      return;
    }
    res.on("drain", () => sub.drained());
    // A comment line now and then keeps idle proxies and load balancers from cutting a quiet stream.
    const keepAlive = setInterval(() => res.write(": keep-alive\n\n"), 25_000);
    keepAlive.unref();
    let ended = false;
    const stop = () => {
      if (ended) return;
      ended = true;
      clearInterval(keepAlive);
      stopRecheck();
      sub.end();
    };
    const stopRecheck = recheckWhileOpen(again, (reason) => {
      o.log.info({ path: "/api/events", reason }, "dashboard stream ended: its caller may no longer read");
      res.end(`data: ${JSON.stringify({ error: reason })}\n\n`);
      stop();
    });
    req.on("close", stop);
    res.on("close", stop);
  };

  /** A pod's log followed (member-reads.ts), ended once its caller may no longer read. */
  const memberLog = async (url: URL, who: { user: string; role: DashboardIdentity["role"] }, req: IncomingMessage, res: ServerResponse) => {
    const stopRecheck = recheckWhileOpen(
      () => judge(req, url),
      (reason) => {
        o.log.info({ path: "/api/member/log", reason }, "dashboard stream ended: its caller may no longer read");
        res.destroy();
      },
    );
    try {
      await o.member.log(url.searchParams, who, res);
    } finally {
      stopRecheck();
    }
  };

  /**
   * Judges an open stream's caller again every streamRecheckMs, one check at a time; `refuse` runs
   * once, with the reason, when it may no longer read or could not be judged. Returns the stopper.
   */
  const recheckWhileOpen = (again: () => ReturnType<typeof judge>, refuse: (reason: string) => void): (() => void) => {
    let checking = false;
    let stopped = false;
    const refuseOnce = (reason: string) => {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      refuse(reason);
    };
    const timer = setInterval(() => {
      if (checking || stopped) return;
      checking = true;
      again()
        .then(
          (access) => !access.allowed && refuseOnce(access.reason),
          (err: unknown) => refuseOnce(`the dashboard could not judge this stream's caller again: ${err instanceof Error ? err.message : String(err)}`),
        )
        .finally(() => {
          checking = false;
        });
    }, o.streamRecheckMs ?? STREAM_RECHECK_MS);
    timer.unref();
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  };

  const server: Server = createServer({ ca: o.tls.caPem, cert: o.tls.certPem, key: o.tls.keyPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    handle(req, res).catch((err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      o.log.warn({ err: message, path: req.url?.split("?")[0] }, "dashboard request failed");
      if (!res.headersSent) sendJson(res, err instanceof DashboardError ? err.status : 500, { error: message });
      else res.end();
    });
  });
  const { host, port } = splitHostPort(o.listen);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const bound = server.address();
  return {
    port: typeof bound === "object" && bound !== null ? bound.port : port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A refusal with an HTTP status (a bad view, an unknown template). */
export class DashboardError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const data = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { ...SECURITY_HEADERS, ...headers, "content-type": "application/json", "content-length": data.length });
  res.end(data);
}

export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return v.join("=");
  }
  return undefined;
}

export function splitHostPort(listen: string): { host: string; port: number } {
  return splitListen(listen, "--dashboard-address");
}
