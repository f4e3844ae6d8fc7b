// A member API request for a cluster whose agent streams to another replica (issue 41): carried
// there over HTTPS with this replica's own control-plane certificate, the caller named in
// FORWARDED_FOR, which the other replica trusts only from a control-plane certificate. The answer
// comes back as it arrives, one chunk at a time (the caller's socket paces the other replica's).
import { request as httpsRequest } from "node:https";
import type { Duplex } from "node:stream";
import { connect as tlsConnect, type PeerCertificate } from "node:tls";
import { CONTROL_PLANE_ORGANIZATION, type AdminRole, type KeyPair } from "../../shared/pki.ts";
import { responseHeaders } from "../../shared/member-api.ts";
import { type CallerOut, type ExchangeOutcome, sendStatus, socketOut } from "./member-api-exchange.ts";

/** The header naming the caller of a forwarded request: "<role>:<user>", the user URI-encoded. */
export const FORWARDED_FOR = "x-flotilla-forwarded-for";

/** The caller a forwarded request names, or undefined when the header is missing or malformed. */
export function forwardedCaller(header: string | string[] | undefined): { user: string; role: AdminRole } | undefined {
  if (typeof header !== "string") return undefined;
  const i = header.indexOf(":");
  const role = header.slice(0, i);
  if (i < 0 || (role !== "admin" && role !== "viewer")) return undefined;
  try {
    const user = decodeURIComponent(header.slice(i + 1));
    return user === "" ? undefined : { user, role };
  } catch {
    return undefined;
  }
}

/** The client certificates a replica's serving certificate must not be (checked instead of its name: peers are dialled by pod address). */
const CLIENT_ORGS = ["flotilla:agents", "flotilla:admins", "flotilla:viewers", CONTROL_PLANE_ORGANIZATION];
const notAClient = (_host: string, cert: PeerCertificate) => ([cert.subject?.O ?? []].flat().some((org) => CLIENT_ORGS.includes(org)) ? new Error("the replica presented a client certificate") : undefined);

export interface ForwardOptions {
  /** host:port of the other replica's member API. */
  address: string;
  caPem: string;
  /** This replica's control-plane client certificate. */
  cert: KeyPair;
  method: string;
  /** The request's raw URL (/clusters/<name>/…). */
  url: string;
  headers: Record<string, string>;
  body: Buffer;
  caller: { user: string; role: AdminRole };
  out: CallerOut;
  headTimeoutMs: number;
}

export function forward(o: ForwardOptions): Promise<ExchangeOutcome> {
  return new Promise((resolve) => {
    const i = o.address.lastIndexOf(":");
    const host = o.address.slice(0, i).replace(/^\[|\]$/g, "");
    let done = false;
    const finish = (r: ExchangeOutcome) => {
      if (done) return;
      done = true;
      resolve(r);
    };
    const headers = { ...o.headers, [FORWARDED_FOR]: `${o.caller.role}:${encodeURIComponent(o.caller.user)}`, ...(o.body.byteLength > 0 ? { "content-length": String(o.body.byteLength) } : {}) };
    const req = httpsRequest(
      {
        host,
        port: Number(o.address.slice(i + 1)),
        method: o.method,
        path: o.url,
        headers,
        ca: o.caPem,
        cert: o.cert.certPem,
        key: o.cert.keyPem,
        checkServerIdentity: notAClient,
        timeout: o.headTimeoutMs,
      },
      (res) => {
        req.setTimeout(0);
        const status = res.statusCode ?? 502;
        o.out.writeHead(status, responseHeaders(res.headers));
        res.on("data", (chunk: Buffer) => {
          res.pause();
          o.out.write(chunk, () => res.resume());
        });
        res.on("end", () => {
          o.out.end();
          finish({ status });
        });
        res.on("error", (err) => {
          o.out.destroy();
          finish({ status, broken: err.message });
        });
      },
    );
    req.on("timeout", () => req.destroy(new Error(`the replica at ${o.address} did not answer within ${o.headTimeoutMs} ms`)));
    req.on("error", (err) => {
      sendStatus(o.out, 503, "ServiceUnavailable", `the agent streams to the replica at ${o.address}, which could not be reached: ${err.message}`, { "retry-after": "5" });
      finish({ status: 503, broken: err.message });
    });
    o.out.onClose(() => {
      if (!done) req.destroy(new Error("the caller went away"));
    });
    req.end(o.body);
  });
}

/** An upgrade for a cluster whose agent streams to another replica: the request head written there by hand, then the bytes piped both ways. */
export function forwardUpgrade(o: Omit<ForwardOptions, "out" | "body"> & { socket: Duplex; head: Buffer }): Promise<ExchangeOutcome> {
  return new Promise((resolve) => {
    const i = o.address.lastIndexOf(":");
    const host = o.address.slice(0, i).replace(/^\[|\]$/g, "");
    const peer = tlsConnect({ host, port: Number(o.address.slice(i + 1)), ca: o.caPem, cert: o.cert.certPem, key: o.cert.keyPem, checkServerIdentity: notAClient });
    const headers = { host: o.address, ...o.headers, [FORWARDED_FOR]: `${o.caller.role}:${encodeURIComponent(o.caller.user)}` };
    const lines = Object.entries(headers).filter(([, v]) => /^[\t\x20-\x7e]*$/.test(v)).map(([k, v]) => `${k}: ${v}\r\n`);
    let answered = false;
    // The other replica must answer within the head timeout, as an agent must.
    const timer = setTimeout(() => peer.destroy(new Error(`the replica at ${o.address} did not answer within ${o.headTimeoutMs} ms`)), o.headTimeoutMs);
    peer.once("data", () => {
      answered = true;
      clearTimeout(timer);
    });
    peer.once("secureConnect", () => {
      peer.write(`${o.method} ${o.url} HTTP/1.1\r\n${lines.join("")}\r\n`);
      if (o.head.byteLength > 0) peer.write(o.head);
      peer.pipe(o.socket);
      o.socket.pipe(peer);
    });
    peer.on("error", (err) => {
      clearTimeout(timer);
      if (!answered) sendStatus(socketOut(o.socket), 503, "ServiceUnavailable", `the agent streams to the replica at ${o.address}, which did not answer: ${err.message}`, { "retry-after": "5" });
      else o.socket.destroy();
      resolve({ status: 503, broken: err.message });
    });
    peer.once("close", () => {
      clearTimeout(timer);
      resolve({ status: 101 });
    });
    o.socket.once("close", () => peer.destroy());
  });
}
