// The member API's HTTPS listener (issue 41, DESIGN §14): /clusters/<name>/… speaks the Kubernetes
// API of that member, through its agent's stream. Every caller presents a client certificate from
// the fleet's CA, judged as on the Admin API (admin or viewer, the revocation list), again every
// RECHECK_MS while its request lasts (a watch, a log stream). Nothing is kept beyond the request.
import { createServer, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { TLSSocket } from "node:tls";
import type { Logger } from "pino";
import { counter } from "../../shared/metrics.ts";
import { MEMBER_API_MAX_BODY, passHeaders, REQUEST_HEADERS, UPGRADE_HEADERS, viewerRefusal } from "../../shared/member-api.ts";
import { adminOfSubject, type AdminRole, type KeyPair, replicaOfSubject } from "../../shared/pki.ts";
import { type RevocationList, revokingEntry } from "../../shared/revocation-list.ts";
import { type CallerOut, exchange, type MemberRequests, sendStatus, socketOut, tunnel } from "./member-api-exchange.ts";
import { memberRoute } from "./member-api-route.ts";
import { forward, FORWARDED_FOR, forwardedCaller, forwardUpgrade } from "./member-api-forward.ts";

export interface MemberApiServerOptions {
  listen: { host: string; port: number };
  tls: { caPem: string; certPem: string; keyPem: string };
  /** The admin revocation list as it stands. */
  revocations(): Promise<{ list: RevocationList } | { broken: string }>;
  /** Whether the control cluster has this Cluster. */
  known(cluster: string): boolean;
  /** What carries requests to the cluster's agent, when it streams to this replica. */
  requests(cluster: string): MemberRequests | undefined;
  log: Logger;
  /** How long an agent may take to answer at all (default 30 s). */
  headTimeoutMs?: number;
  /** How often a lasting request's caller is judged again (default RECHECK_MS). */
  recheckMs?: number;
  /** The member API address of the replica the cluster's agent streams to, when another one holds its Lease. */
  forwardTo?(cluster: string): string | undefined;
  /** This replica's control-plane client certificate, for forwarding; undefined without the CA key. */
  replicaCert?(): Promise<KeyPair | undefined>;
}

/** The methods whose requests carry a body. */
const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
/** Request bodies one replica holds at once, at most (each at most MEMBER_API_MAX_BODY); past it, 429. */
const MAX_BODIES_HELD = 64 * 1024 * 1024;

/** A lasting request's caller is judged again this often: a certificate revoked meanwhile ends its watch. */
export const RECHECK_MS = 5_000;

const requestsTotal = counter("flotilla_member_api_requests_total", "Member API requests (issue 41) by answer: the HTTP status class, or broken when an answer was cut short.", ["code"]);

/** Forwarded: another replica judged the caller and carried the request here (never carried on again). */
type Caller = { user: string; role: AdminRole; forwarded?: true };
type Judged = Caller | { status: number; reason: string; message: string };

export async function startMemberApiServer(o: MemberApiServerOptions): Promise<{ port: number; close(): Promise<void> }> {
  /** Request bodies read or being read, in bytes (reserved by their declared length). */
  let bodiesHeld = 0;
  const upgraded = new Set<Duplex>();

  /** The caller of a request, judged now: its certificate and the revocation list. */
  const judge = async (req: IncomingMessage): Promise<Judged> => {
    const socket = req.socket as TLSSocket;
    // A socket already gone has no certificate left to read (getPeerCertificate() gives null).
    const peer = socket.authorized && !socket.destroyed ? socket.getPeerCertificate() : undefined;
    if (peer === undefined || peer === null || Object.keys(peer).length === 0) return { status: 401, reason: "Unauthorized", message: "the member API needs a client certificate from the fleet's CA (an admin's or a viewer's: `flotilla certs admin`)" };
    if (replicaOfSubject(peer.subject as { CN?: string; O?: string }) !== undefined) {
      const caller = forwardedCaller(req.headers[FORWARDED_FOR]);
      return caller === undefined ? { status: 403, reason: "Forbidden", message: `a control-plane certificate only forwards a caller's request (${FORWARDED_FOR})` } : { ...caller, forwarded: true };
    }
    const who = adminOfSubject(peer.subject as { CN?: string; O?: string });
    if (who === undefined) return { status: 403, reason: "Forbidden", message: "the member API takes only admin and viewer certificates (O=flotilla:admins or O=flotilla:viewers)" };
    const state = await o.revocations();
    if ("broken" in state) return { status: 403, reason: "Forbidden", message: `every certificate is refused until the admin revocation list can be read: ${state.broken}` };
    const revoked = revokingEntry(state.list, peer);
    if (revoked !== undefined) return { status: 403, reason: "Forbidden", message: `certificate revoked: ${who.role} ${who.user}'s certificate is in the admin revocation list (${revoked})` };
    return who;
  };

  /** `upgrade`: the caller's socket and what came with its request, for exec, attach and port-forward. */
  const handle = async (req: IncomingMessage, out: CallerOut, upgrade?: { socket: Duplex; head: Buffer }): Promise<void> => {
    const method = (req.method ?? "GET").toUpperCase();
    // A caller who leaves while it is judged (awaits below) is noticed: nothing is started for it.
    let gone = false;
    out.onClose(() => (gone = true));
    const caller = await judge(req);
    const refuse = (status: number, reason: string, message: string, headers: Record<string, string> = {}) => {
      o.log.info({ method, path: req.url?.split("?")[0], status, reason: message }, "member API request refused");
      requestsTotal.inc({ code: `${Math.floor(status / 100)}xx` });
      sendStatus(out, status, reason, message, headers);
    };
    if ("status" in caller) return refuse(caller.status, caller.reason, caller.message);
    const route = memberRoute(req.url ?? "/");
    if ("status" in route) return refuse(route.status, route.reason, route.message);
    if (caller.role === "viewer") {
      const why = viewerRefusal(method, route.path, req.headers);
      if (why !== undefined) return refuse(403, "Forbidden", `${caller.user}: ${why}`);
    }
    if (!o.known(route.cluster)) return refuse(404, "NotFound", `cluster ${JSON.stringify(route.cluster)} not found`);
    const requests = o.requests(route.cluster);
    const elsewhere = requests !== undefined || caller.forwarded ? undefined : o.forwardTo?.(route.cluster);
    const cert = elsewhere === undefined ? undefined : await o.replicaCert?.();
    if (requests === undefined && cert === undefined) return refuse(503, "ServiceUnavailable", `the agent of ${route.cluster} is not connected to this control-plane replica; retry`, { "retry-after": "5" });
    const declared = Number(req.headers["content-length"] ?? 0);
    const reserve = upgrade === undefined && BODY_METHODS.has(method) ? Math.min(Number.isFinite(declared) && declared > 0 ? declared : MEMBER_API_MAX_BODY, MEMBER_API_MAX_BODY) : 0;
    if (bodiesHeld + reserve > MAX_BODIES_HELD) return refuse(429, "TooManyRequests", "the member API holds its most request bodies at once; retry", { "retry-after": "1" });
    bodiesHeld += reserve;
    try {
      // Only writes carry a body; a GET's is never read, nor sent on.
      const body = reserve === 0 ? Buffer.alloc(0) : await readBody(req);
      if (body === undefined) return refuse(413, "RequestEntityTooLarge", `a request body may hold at most ${MEMBER_API_MAX_BODY} bytes`);
      if (gone) return;
      await carry(req, out, { method, route, caller, requests, elsewhere, cert, body, upgrade });
    } finally {
      bodiesHeld -= reserve;
    }
  };

  /** Carries a judged request to its agent, here or on the replica that holds it, while its caller is judged again every few seconds. */
  const carry = async (req: IncomingMessage, out: CallerOut, r: { method: string; route: { cluster: string; path: string }; caller: Caller; requests: MemberRequests | undefined; elsewhere: string | undefined; cert: KeyPair | undefined; body: Buffer; upgrade: { socket: Duplex; head: Buffer } | undefined }) => {
    const { method, route, caller, requests, elsewhere, cert, body, upgrade } = r;
    // The caller is judged again while the answer lasts: revoked meanwhile, the answer is cut short.
    const recheck = setInterval(() => {
      void judge(req)
        .then((again) => {
          if (!("status" in again)) return;
          o.log.info({ cluster: route.cluster, user: caller.user, reason: again.message }, "member API request ended: its caller may no longer read");
          out.destroy();
        })
        .catch(() => out.destroy());
    }, o.recheckMs ?? RECHECK_MS);
    recheck.unref();
    try {
      const call = { method, path: route.path, headers: passHeaders(req.headers, upgrade === undefined ? REQUEST_HEADERS : [...REQUEST_HEADERS, ...UPGRADE_HEADERS]), body, user: caller.user, role: caller.role };
      const headTimeoutMs = o.headTimeoutMs ?? 30_000;
      const outcome =
        requests !== undefined && upgrade !== undefined
          ? await tunnel(requests, call, upgrade.socket, upgrade.head, headTimeoutMs, route.cluster)
          : requests !== undefined
          ? await exchange(requests, call, out, headTimeoutMs, route.cluster)
          : upgrade !== undefined
          ? await forwardUpgrade({ address: elsewhere as string, caPem: o.tls.caPem, cert: cert as KeyPair, method, url: req.url ?? "/", headers: call.headers, caller, headTimeoutMs, socket: upgrade.socket, head: upgrade.head })
          : await forward({ address: elsewhere as string, caPem: o.tls.caPem, cert: cert as KeyPair, method, url: req.url ?? "/", headers: call.headers, body, caller, out, headTimeoutMs });
      requestsTotal.inc({ code: "broken" in outcome ? "broken" : `${Math.floor(outcome.status / 100)}xx` });
      o.log.debug({ cluster: route.cluster, user: caller.user, method, path: route.path.split("?")[0], ...outcome }, "member API request");
    } finally {
      clearInterval(recheck);
    }
  };

  const failed = (out: CallerOut, err: unknown) => {
    o.log.warn({ err: err instanceof Error ? err.message : String(err) }, "member API request failed");
    sendStatus(out, 500, "InternalError", "the control plane failed on this request");
  };
  const server: Server = createServer({ ca: o.tls.caPem, cert: o.tls.certPem, key: o.tls.keyPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const out = responseOut(res);
    handle(req, out).catch((err: unknown) => failed(out, err));
  });
  // exec, attach and port-forward upgrade the connection: judged alike, then carried both ways (tunnel()).
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Upgraded sockets are the server's no more: close() ends them itself.
    upgraded.add(socket);
    socket.once("close", () => upgraded.delete(socket));
    const out = socketOut(socket);
    handle(req, out, { socket, head }).catch((err: unknown) => failed(out, err));
  });
  // CONNECT (a tunnel to anywhere) is no Kubernetes request: answered 405, as the apiserver does.
  server.on("connect", (_req: IncomingMessage, socket: Duplex) => {
    socket.on("error", () => undefined);
    sendStatus(socketOut(socket), 405, "MethodNotAllowed", "the member API does not carry CONNECT");
  });
  // An idle connection stays 90 s, as the apiserver's own does: a client that reuses it as it closes would see a broken request.
  server.keepAliveTimeout = 90_000;
  server.headersTimeout = 20_000;
  server.requestTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.listen.port, o.listen.host, () => resolve());
  });
  const bound = server.address();
  return {
    port: typeof bound === "object" && bound !== null ? bound.port : o.listen.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of upgraded) s.destroy();
        server.closeAllConnections();
      }),
  };
}

/** The request's body, or undefined when it is larger than MEMBER_API_MAX_BODY; a body that stops coming fails after 30 s. */
function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => req.destroy(new Error("the request body did not arrive within 30 s")), 30_000);
    req.on("data", (c: Buffer) => {
      size += c.byteLength;
      if (size > MEMBER_API_MAX_BODY) {
        clearTimeout(timer);
        req.removeAllListeners("data");
        req.resume();
        resolve(undefined);
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    req.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

function responseOut(res: ServerResponse): CallerOut {
  return {
    get headersSent() {
      return res.headersSent;
    },
    writeHead: (status, headers) => void res.writeHead(status, headers),
    write: (chunk, taken) => void res.write(chunk, () => taken()),
    end: () => void res.end(),
    destroy: () => void res.destroy(),
    onClose: (f) => void res.once("close", f),
  };
}
