// The dashboard's listener in-process, over real TLS (no cluster): the login exchange works once
// and gives a Secure HttpOnly session; the API needs an identity; every write is refused; only
// built assets are served; the events stream is text/event-stream and carries changes; a pod's log
// is followed with flow control (a browser that does not read holds its member's agent back).
import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { request } from "node:https";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, describe, it } from "node:test";
import pino from "pino";
import { createCa, issueCertificate } from "../../shared/pki.ts";
import { dashboardTokenKey, signToken, UsedLogins } from "./dashboard-tokens.ts";
import { startDashboardServer } from "./dashboard-server.ts";
import { LiveViews } from "./live-views.ts";
import { MEMBER_API_FRAME, MEMBER_API_WINDOW } from "../../shared/member-api.ts";
import { exchange, type MemberRequests } from "../member-api/member-api-exchange.ts";
import { MemberReads } from "./member-reads.ts";

/** What a log's agent sent and was granted back, and whether its request was cancelled. */
const logAgent = { sent: 0, consumed: 0, cancelled: false, total: 64 * 1024 * 1024 };
/** A member's log as a well-behaved agent sends it: 32 KiB frames of 1 KiB lines, never past the window it was granted. */
const logMember: MemberRequests = {
  requestMember(_call, sink) {
    Object.assign(logAgent, { sent: 0, consumed: 0, cancelled: false });
    const frame = Buffer.alloc(MEMBER_API_FRAME, `${"x".repeat(1023)}\n`);
    let allowed = MEMBER_API_WINDOW;
    let open = true;
    const pump = () => {
      while (open && allowed >= frame.length && logAgent.sent < logAgent.total) {
        allowed -= frame.length;
        logAgent.sent += frame.length;
        sink.data(frame);
      }
      if (open && logAgent.sent >= logAgent.total) {
        open = false;
        sink.end();
      }
    };
    setImmediate(() => {
      sink.head(200, { "content-type": "text/plain" });
      pump();
    });
    return {
      consumed: (n) => {
        logAgent.consumed += n;
        allowed += n;
        setImmediate(pump);
      },
      cancel: () => {
        open = false;
        logAgent.cancelled = true;
      },
      send: (data) => data.byteLength,
    };
  },
};

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

describe("the dashboard's listener", () => {
  let dir: string;
  let server: Awaited<ReturnType<typeof startDashboardServer>>;
  let ca: string;
  let key: Buffer;
  let live: LiveViews;
  let clusters = 1;
  /** The admin revocation list's fingerprints, changed by a test. */
  const revoked = new Set<string>();
  const viewer = { user: "vera", role: "viewer" as const, fingerprint256: "AA", serialNumber: "01" };

  const get = (path: string, opts: { method?: string; cookie?: string; until?: (body: string) => boolean } = {}) =>
    new Promise<Answer>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port: server.port, path, method: opts.method ?? "GET", ca, servername: "localhost", headers: opts.cookie ? { cookie: opts.cookie } : {} }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => {
          body += d;
          if (opts.until?.(body)) {
            res.destroy();
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
          }
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on("error", reject);
      req.end();
    });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "flotilla-dashboard-"));
    await writeFile(join(dir, "index.html"), "<!doctype html><title>t</title>");
    await writeFile(join(dir, "app.js"), "console.log(1)");
    const authority = await createCa("test-ca");
    const hub = await issueCertificate(authority, { commonName: "hub", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"], usage: "server" });
    ca = authority.certPem;
    key = dashboardTokenKey(hub.keyPem);
    live = new LiveViews({ compute: (v) => ({ v, clusters }), quietMs: 10 });
    server = await startDashboardServer({
      listen: "127.0.0.1:0",
      tls: { caPem: authority.certPem, certPem: hub.certPem, keyPem: hub.keyPem },
      tokenKey: key,
      sessionTtlMs: 60_000,
      usedLogins: new UsedLogins(),
      webDir: pathToFileURL(`${dir}/`),
      live,
      view: (k) => ({ k }),
      explain: async (q) => ({ text: `explained ${q.get("name")}` }),
      member: new MemberReads({ carry: (cluster, call, out, ms) => exchange(logMember, call, out, ms, cluster), known: () => true }),
      revocations: async () => ({ list: { fingerprints: revoked, serials: new Set<string>(), errors: [] } }),
      log: pino({ level: "silent" }),
      streamRecheckMs: 50,
    });
  });
  after(async () => {
    live.stop();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("serves the page with a strict CSP, and only the built assets", async () => {
    const page = await get("/");
    assert.equal(page.status, 200);
    assert.match(String(page.headers["content-security-policy"]), /default-src 'self'.*frame-ancestors 'none'/);
    assert.equal((await get("/assets/app.js")).headers["content-type"], "text/javascript; charset=utf-8");
    // A path out of /assets/ is normalised first (and then needs an identity); none reaches the filesystem.
    for (const p of ["/assets/../../etc/passwd", "/assets/%2e%2e%2fetc%2fpasswd", "/assets/nope.js", "/assets/index.html/.."]) {
      const r = await get(p);
      assert.ok(r.status === 404 || r.status === 401, `${p}: ${r.status}`);
      assert.doesNotMatch(r.body, /root:/);
    }
  });

  it("an API read without an identity is 401; a login link gives a session once", async () => {
    assert.equal((await get("/api/view?view=overview")).status, 401);
    const token = signToken(key, viewer, "login", Date.now(), 60_000);
    const login = await get(`/login?token=${token}`);
    assert.equal(login.status, 303);
    const cookie = String(login.headers["set-cookie"]);
    assert.match(cookie, /^flotilla_session=[\w-]+\.[\w-]+; Path=\/; HttpOnly; Secure; SameSite=Strict; Max-Age=60$/);
    const session = cookie.split(";")[0] ?? "";
    assert.deepEqual(JSON.parse((await get("/api/whoami", { cookie: session })).body), { user: "vera", role: "viewer", via: "session", memberReads: true });
    assert.deepEqual(JSON.parse((await get("/api/view?view=overview", { cookie: session })).body), { view: { k: "overview" } });
    assert.deepEqual(JSON.parse((await get("/api/explain?name=web&kind=Deployment", { cookie: session })).body), { text: "explained web" });
    const again = await get(`/login?token=${token}`);
    assert.equal(again.status, 401);
    assert.match(again.body, /used already/);
    // A session cookie is no login token, and a login token is no session.
    assert.equal((await get(`/login?token=${session.split("=")[1]}`)).status, 401);
    assert.equal((await get("/api/whoami", { cookie: `flotilla_session=${token}` })).status, 401);
  });

  it("refuses every write, with or without a session", async () => {
    const session = `flotilla_session=${signToken(key, { ...viewer, role: "admin" }, "session", Date.now(), 60_000)}`;
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      for (const path of ["/", "/api/view?view=overview", "/login"]) {
        const r = await get(path, { method, cookie: session });
        assert.equal(r.status, 405, `${method} ${path}`);
        assert.equal(r.headers.allow, "GET, HEAD");
      }
    }
  });

  it("streams a view as server-sent events, and sends it again when it changes", async () => {
    const session = `flotilla_session=${signToken(key, viewer, "session", Date.now(), 60_000)}`;
    setTimeout(() => {
      clusters = 2;
      live.changed();
    }, 100);
    const r = await get("/api/events?view=overview", { cookie: session, until: (b) => b.includes('"clusters":2') });
    assert.equal(r.headers["content-type"], "text/event-stream");
    assert.deepEqual(r.body.trim().split("\n\n").map((e) => JSON.parse(e.replace(/^data: /, "")).view.clusters), [1, 2]);
  });

  // Issue 37: a stream outlived its session's expiry and the caller's revocation.
  const lastEvent = (body: string) => JSON.parse(body.trim().split("\n\n").at(-1)?.replace(/^data: /, "") ?? "{}") as { error?: string };
  it("ends a stream once its session expires, saying why", { timeout: 10_000 }, async () => {
    const session = `flotilla_session=${signToken(key, viewer, "session", Date.now(), 1_500)}`;
    const r = await get("/api/events?view=overview", { cookie: session });
    assert.equal(r.status, 200);
    assert.match(lastEvent(r.body).error ?? "", /^the session is not valid \(.*expired.*\)/);
  });

  it("ends a stream once its caller's certificate is revoked, saying why; others' streams go on", { timeout: 10_000 }, async () => {
    const mallory = { user: "mallory", role: "admin" as const, fingerprint256: "BB", serialNumber: "02" };
    const theirs = `flotilla_session=${signToken(key, mallory, "session", Date.now(), 60_000)}`;
    const ours = `flotilla_session=${signToken(key, viewer, "session", Date.now(), 60_000)}`;
    setTimeout(() => revoked.add("BB"), 200);
    try {
      const r = await get("/api/events?view=overview", { cookie: theirs });
      assert.match(lastEvent(r.body).error ?? "", /^certificate revoked: admin mallory's certificate is in the admin revocation list/);
      // Past several rechecks (50 ms each): a change sent 400 ms in still reaches vera, and no error does.
      setTimeout(() => {
        clusters += 1;
        live.changed();
      }, 400);
      const still = await get("/api/events?view=overview", { cookie: ours, until: (b) => b.split("data: ").length > 2 });
      assert.equal(still.status, 200);
      assert.ok(!still.body.includes('"error"'), `vera reads on: ${still.body}`);
    } finally {
      revoked.delete("BB");
    }
  });

  it("a member read with a bad name is a 400 that says which", async () => {
    const session = `flotilla_session=${signToken(key, viewer, "session", Date.now(), 60_000)}`;
    const bad = await get("/api/member/log?cluster=m1&namespace=demo&pod=..", { cookie: session });
    assert.equal(bad.status, 400);
    assert.deepEqual(JSON.parse(bad.body), { error: 'pod: ".." is not a pod name (a DNS subdomain)' });
    const workload = await get("/api/member/workload?cluster=m1&apiVersion=apps%2Fv1&kind=Deployment&namespace=Demo&name=web", { cookie: session });
    assert.equal(workload.status, 400);
    assert.match(JSON.parse(workload.body).error, /^namespace: "Demo" is not a namespace/);
  });

  it("follows a pod's log: a browser that does not read holds the agent to its window; reading on, it gets every byte", { timeout: 30_000 }, async (t) => {
    const session = `flotilla_session=${signToken(key, viewer, "session", Date.now(), 60_000)}`;
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port: server.port, path: "/api/member/log?cluster=m1&namespace=demo&pod=web-1&container=app", ca, servername: "localhost", headers: { cookie: session } }, resolve);
      req.on("error", reject);
      req.end();
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers["content-type"], "text/plain; charset=utf-8");
    // Not read for a while: only a window past what the sockets took (kernel buffers included) is sent, not the 64 MiB.
    await new Promise((r) => setTimeout(r, 500));
    const held = logAgent.sent;
    assert.ok(held < 32 * 1024 * 1024, `the agent sent ${held} bytes to a browser that read nothing`);
    assert.ok(logAgent.sent - logAgent.consumed <= MEMBER_API_WINDOW, `at most a window in flight (${logAgent.sent - logAgent.consumed})`);
    let received = 0;
    res.on("data", (c: Buffer) => (received += c.byteLength));
    await new Promise((r) => res.on("end", r));
    assert.equal(received, logAgent.total);
    // The last writes' callbacks may run just after the browser saw the end.
    for (let i = 0; i < 50 && logAgent.consumed < logAgent.total; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(logAgent.consumed, logAgent.total, "every byte the browser took was granted back");
    t.diagnostic(`a browser that read nothing for 500 ms held the agent at ${held} of ${logAgent.total} bytes`);
  });

  it("a browser that leaves a log cancels its request in the member", { timeout: 10_000 }, async () => {
    const session = `flotilla_session=${signToken(key, viewer, "session", Date.now(), 60_000)}`;
    await get("/api/member/log?cluster=m1&namespace=demo&pod=web-1", { cookie: session, until: (b) => b.length > 0 });
    for (let i = 0; i < 100 && !logAgent.cancelled; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(logAgent.cancelled, true);
    assert.ok(logAgent.sent < logAgent.total);
  });
});
