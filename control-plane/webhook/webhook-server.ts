// The webhook's HTTPS listener: TLS with the hub's serving certificate, POST of a JSON
// AdmissionReview to one path, bounded in size and time. An apiserver presents a client
// certificate to a webhook only when its admission configuration gives it one (AdmissionConfiguration
// kubeConfigFile); with `clientAuth` the listener then takes only callers whose certificate its CA
// signed and whose common name is one of the names given (issue 37).
import { createServer, type Server } from "node:https";
import type { TLSSocket } from "node:tls";

/** An AdmissionReview holds the object and its old version; a customization is at most etcd's 1.5 MiB. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
/**
 * Reviews answered at once. Without clientAuth anyone who reaches the listener can make it list
 * customizations; a few concurrent reviews are all the apiserver ever needs, and more are turned
 * away rather than queued.
 */
const MAX_IN_FLIGHT = 16;
/** Longer than the apiserver waits (WEBHOOK_TIMEOUT_SECONDS), so it is the apiserver that gives up first. */
const REQUEST_TIMEOUT_MS = 15_000;

/** Thrown by a route for a body it cannot answer: the caller gets a 400 with the message. */
export class BadRequestError extends Error {
  override name = "BadRequestError";
}

export interface WebhookServerOptions {
  /** host:port; port 0 picks one. */
  listen: string;
  certPem: string;
  keyPem: string;
  /** The handler of each path: the parsed JSON body in, the JSON to answer out. */
  routes: Record<string, (body: unknown) => Promise<unknown>>;
  /** A handler that threw (the apiserver sees a 500, and with failurePolicy Fail refuses the write). */
  onError(err: unknown, path: string): void;
  /** Callers must present a certificate `caPem` signed, with one of `names` as its common name (none: any name). */
  clientAuth?: { caPem: string; names: readonly string[] };
}

/** Whether a caller with this certificate common name may call (TLS checked its signature already). */
export function callerAllowed(commonName: string | undefined, names: readonly string[]): boolean {
  if (names.length === 0) return true;
  return commonName !== undefined && names.includes(commonName);
}

export interface WebhookServer {
  port: number;
  close(): Promise<void>;
}

/** Listens until close(). */
export async function startWebhookServer(opts: WebhookServerOptions): Promise<WebhookServer> {
  const i = opts.listen.lastIndexOf(":");
  const host = opts.listen.slice(0, i).replace(/^\[|\]$/g, "");
  const port = Number(opts.listen.slice(i + 1));
  if (i < 0 || !Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid --webhook-listen ${JSON.stringify(opts.listen)}: want host:port`);
  let inFlight = 0;
  const auth = opts.clientAuth;
  const tls = auth === undefined ? {} : { ca: auth.caPem, requestCert: true, rejectUnauthorized: true };
  const server: Server = createServer({ cert: opts.certPem, key: opts.keyPem, minVersion: "TLSv1.2", requestTimeout: REQUEST_TIMEOUT_MS, ...tls }, (req, res) => {
    const answer = (code: number, body: unknown) => {
      const text = typeof body === "string" ? body : JSON.stringify(body);
      res.writeHead(code, { "content-type": typeof body === "string" ? "text/plain" : "application/json" });
      res.end(text);
    };
    if (auth !== undefined) {
      const subject = (req.socket as TLSSocket).getPeerCertificate().subject as Record<string, string | string[]> | undefined;
      const cn = subject?.CN;
      if (!callerAllowed(typeof cn === "string" ? cn : undefined, auth.names)) return answer(403, "this certificate may not call the webhook\n");
    }
    const path = req.url?.split("?")[0] ?? "";
    const route = opts.routes[path];
    if (route === undefined) return answer(404, "not found\n");
    if (req.method !== "POST") return answer(405, "POST only\n");
    if (inFlight >= MAX_IN_FLIGHT) return answer(429, "too many reviews at once\n");
    inFlight++;
    res.once("close", () => inFlight--);
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      // Drained, not kept (the request timeout bounds how long), so the answer reaches the caller.
      if (size > MAX_BODY_BYTES) chunks.length = 0;
      else chunks.push(c);
    });
    req.on("end", () => {
      if (size > MAX_BODY_BYTES) return answer(413, `a review is at most ${MAX_BODY_BYTES} bytes\n`);
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        return answer(400, "the body is not JSON\n");
      }
      route(body).then(
        (out) => answer(200, out),
        (err: unknown) => {
          if (err instanceof BadRequestError) return answer(400, `${err.message}\n`);
          opts.onError(err, path);
          answer(500, "the webhook failed; see the control plane's log\n");
        },
      );
    });
  });
  await new Promise<void>((resolve, reject) => server.listen(port, host, resolve).once("error", reject));
  const address = server.address();
  return {
    port: typeof address === "object" && address !== null ? address.port : port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
