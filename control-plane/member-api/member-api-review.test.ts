// Adversarial review of issue 41 (the member API's listener): each test failed before its fix.
import assert from "node:assert/strict";
import { connect as tlsConnect } from "node:tls";
import { request } from "node:https";
import { before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import pino from "pino";
import { createCa, issueAdminCertificate, issueCertificate, issueReplicaCertificate, type KeyPair } from "../../shared/pki.ts";
import type { MemberApiCall, MemberApiHandle, MemberApiSink } from "../hub/member-api-streams.ts";
import type { MemberRequests } from "./member-api-exchange.ts";
import { startMemberApiServer } from "./member-api-server.ts";

const EXEC = "POST /clusters/m1/api/v1/namespaces/ns/pods/p/exec?command=sh&stdin=true HTTP/1.1\r\nhost: x\r\nconnection: Upgrade\r\nupgrade: SPDY/3.1\r\n\r\n";

/** A member that answers a head at once and then never ends (a watch, a log followed, an exec). */
function lastingMember(head: { status: number; headers: Record<string, string> } = { status: 200, headers: { "content-type": "application/json" } }) {
  const calls: MemberApiCall[] = [];
  let open = 0;
  const requests: MemberRequests = {
    requestMember(call: MemberApiCall, sink: MemberApiSink): MemberApiHandle {
      calls.push(call);
      open++;
      let cancelled = false;
      setImmediate(() => {
        sink.head(head.status, head.headers);
        sink.data(Buffer.from("{}\n"));
      });
      return {
        consumed: () => undefined,
        send: (d) => d.byteLength,
        cancel: () => {
          if (!cancelled) open--;
          cancelled = true;
        },
      };
    },
  };
  return { requests, calls, open: () => open };
}

describe("member API listener: adversarial review (issue 41)", () => {
  let ca: KeyPair;
  let serverCert: KeyPair;
  let viewer: KeyPair;
  let admin: KeyPair;
  before(async () => {
    ca = await createCa("review-ca");
    serverCert = await issueCertificate(ca, { commonName: "localhost", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"], usage: "server" });
    viewer = await issueAdminCertificate(ca, "vera", 3_600_000, "viewer");
    admin = await issueAdminCertificate(ca, "alice", 3_600_000, "admin");
  });

  const start = (requests: MemberRequests, o: { revocationDelayMs?: number; recheckMs?: number } = {}) =>
    startMemberApiServer({
      listen: { host: "127.0.0.1", port: 0 },
      tls: { caPem: ca.certPem, certPem: serverCert.certPem, keyPem: serverCert.keyPem },
      // Reading the revocation list takes a little while (a file re-read, a slow disk): the caller may be gone meanwhile.
      revocations: async () => {
        if ((o.revocationDelayMs ?? 0) > 0) await sleep(o.revocationDelayMs ?? 0);
        return { list: { fingerprints: new Set<string>(), serials: new Set<string>(), errors: [] } };
      },
      known: () => true,
      requests: () => requests,
      log: pino({ level: "silent" }),
      recheckMs: o.recheckMs ?? 60_000,
    });

  it("an upgrade whose caller left while it was being judged is not left running in the member", { timeout: 10_000 }, async () => {
    const member = lastingMember({ status: 101, headers: {} });
    // The revocation list is a file: at most once a second it is stat'ed, and the caller can be gone meanwhile.
    const server = await start(member.requests, { revocationDelayMs: 200, recheckMs: 60_000 });
    try {
      const socket = tlsConnect({ host: "127.0.0.1", port: server.port, ca: ca.certPem, cert: admin.certPem, key: admin.keyPem, servername: "localhost" });
      await new Promise((r) => socket.once("secureConnect", r));
      socket.write(EXEC);
      await sleep(50);
      socket.destroy();
      await sleep(800);
      assert.equal(member.open(), 0, `the exec was carried to the agent (${member.calls.length} call) after its caller left, and never cancelled: it holds a per-cluster slot and runs in the member for as long as the shell lives`);
    } finally {
      await server.close();
    }
  });

  it("the recheck of a lasting request whose caller's socket is gone does not crash the control plane", { timeout: 10_000 }, async () => {
    const member = lastingMember({ status: 101, headers: {} });
    const server = await start(member.requests, { revocationDelayMs: 200, recheckMs: 300 });
    const rejections: unknown[] = [];
    const onRejection = (err: unknown) => rejections.push(err);
    process.on("unhandledRejection", onRejection);
    try {
      const socket = tlsConnect({ host: "127.0.0.1", port: server.port, ca: ca.certPem, cert: admin.certPem, key: admin.keyPem, servername: "localhost" });
      await new Promise((r) => socket.once("secureConnect", r));
      socket.write(EXEC);
      await sleep(50);
      socket.destroy();
      await sleep(1_000);
      assert.deepEqual(rejections.map((e) => String(e)), [], "judge() threw on the destroyed socket (getPeerCertificate() is null): an unhandled rejection, which ends the process by default");
    } finally {
      process.removeListener("unhandledRejection", onRejection);
      await server.close();
    }
  });

  it("stopping a replica does not wait for an exec it forwarded to another replica", { timeout: 15_000 }, async () => {
    // Replica B holds the agent's stream; replica A forwards the caller's exec there.
    const member = lastingMember({ status: 101, headers: {} });
    const b = await start(member.requests);
    const replica = await issueReplicaCertificate(ca, "replica-a", 3_600_000);
    const a = await startMemberApiServer({
      listen: { host: "127.0.0.1", port: 0 },
      tls: { caPem: ca.certPem, certPem: serverCert.certPem, keyPem: serverCert.keyPem },
      revocations: async () => ({ list: { fingerprints: new Set<string>(), serials: new Set<string>(), errors: [] } }),
      known: () => true,
      requests: () => undefined,
      forwardTo: () => `127.0.0.1:${b.port}`,
      replicaCert: async () => replica,
      log: pino({ level: "silent" }),
    });
    const socket = tlsConnect({ host: "127.0.0.1", port: a.port, ca: ca.certPem, cert: admin.certPem, key: admin.keyPem, servername: "localhost" });
    try {
      await new Promise((r) => socket.once("secureConnect", r));
      socket.write(EXEC);
      await new Promise((r) => socket.once("data", r));
      const closed = await Promise.race([a.close().then(() => true), sleep(3_000).then(() => false)]);
      assert.equal(closed, true, "replica A's member API listener did not close within 3 s: it waits for the forwarded exec (closeAllConnections() does not reach upgraded sockets)");
    } finally {
      socket.destroy();
      await b.close();
    }
  });

  it("the agent's response headers pass only the documented ones (a hostile agent must not set cookies or other headers on the control plane's origin)", { timeout: 10_000 }, async () => {
    const member = lastingMember({ status: 200, headers: { "content-type": "application/json", "set-cookie": "flotilla-session=attacker; Path=/", "x-evil": "1", location: "https://evil.example/" } });
    const server = await start(member.requests);
    try {
      const headers = await new Promise<Record<string, unknown>>((resolve, reject) => {
        const req = request({ host: "127.0.0.1", port: server.port, path: "/clusters/m1/api/v1/pods", ca: ca.certPem, cert: admin.certPem, key: admin.keyPem, servername: "localhost" }, (res) => {
          resolve(res.headers);
          res.destroy();
        });
        req.on("error", reject);
        req.end();
      });
      assert.equal(headers["set-cookie"], undefined);
      assert.equal(headers["x-evil"], undefined);
      assert.equal(headers.location, undefined);
    } finally {
      await server.close();
    }
  });

  it("a viewer's GET carries no request body to the agent (else a viewer pushes 64 x 3 MiB ahead of the cluster's Works)", { timeout: 10_000 }, async () => {
    const member = lastingMember();
    const server = await start(member.requests);
    try {
      await new Promise<void>((resolve, reject) => {
        const req = request({ host: "127.0.0.1", port: server.port, method: "GET", path: "/clusters/m1/api/v1/pods", ca: ca.certPem, cert: viewer.certPem, key: viewer.keyPem, servername: "localhost", headers: { "content-length": String(3 * 1024 * 1024) } }, (res) => {
          res.destroy();
          resolve();
        });
        req.on("error", reject);
        req.end(Buffer.alloc(3 * 1024 * 1024, 0x41));
      });
      assert.equal(member.calls[0]?.body.byteLength ?? 0, 0);
    } finally {
      await server.close();
    }
  });

  it("CONNECT is answered 405 and closed, never left hanging (found by the fuzz test)", { timeout: 10_000 }, async () => {
    const server = await start(lastingMember().requests);
    try {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = tlsConnect({ host: "127.0.0.1", port: server.port, ca: ca.certPem, cert: admin.certPem, key: admin.keyPem, servername: "localhost" }, () => socket.write("CONNECT example.com:443 HTTP/1.1\r\nhost: example.com:443\r\n\r\n"));
        let got = "";
        socket.on("data", (c: Buffer) => (got += c.toString()));
        socket.on("close", () => resolve(got));
        socket.on("error", reject);
      });
      assert.match(answer, /^HTTP\/1\.1 405 /);
      assert.match(answer, /does not carry CONNECT/);
    } finally {
      await server.close();
    }
  });
});
