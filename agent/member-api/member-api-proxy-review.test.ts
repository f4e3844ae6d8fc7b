// Adversarial review of issue 41 (the agent's end of the member API): each test failed before its fix,
// against a fake apiserver that records every byte the agent writes on its connections.
import assert from "node:assert/strict";
import { createServer as createTlsServer, type Server as TlsServer, type TLSSocket } from "node:tls";
import { createServer as createHttpsServer } from "node:https";
import { before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { KubeConfig } from "@kubernetes/client-node";
import pino from "pino";
import type { AgentMessage, MemberApiRequest } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { MEMBER_API_WINDOW } from "../../shared/member-api.ts";
import { createCa, issueCertificate, type KeyPair } from "../../shared/pki.ts";
import { type FrameWriter, type MemberApiFrame, MemberApiProxy } from "./member-api-proxy.ts";

const execRequest = (streamId = 1): MemberApiRequest => ({
  streamId,
  method: "POST",
  path: "/api/v1/namespaces/demo/pods/web/exec?command=sh&stdin=true&stdout=true",
  headers: { connection: "Upgrade", upgrade: "SPDY/3.1", "x-stream-protocol-version": "v4.channel.k8s.io" },
  body: Buffer.alloc(0),
  user: "alice",
  role: "admin",
  window: MEMBER_API_WINDOW,
  upgrade: true,
});

/** A raw TLS "apiserver": records each connection's bytes; `answer` decides what it writes back once it has bytes. */
async function fakeApiserver(cert: KeyPair, answer: (conn: { bytes: () => string; socket: TLSSocket }) => void) {
  const conns: { bytes: () => string; socket: TLSSocket }[] = [];
  const server: TlsServer = createTlsServer({ cert: cert.certPem, key: cert.keyPem }, (socket) => {
    let got = "";
    const conn = { bytes: () => got, socket };
    conns.push(conn);
    socket.on("data", (c: Buffer) => {
      got += c.toString("latin1");
      answer(conn);
    });
    socket.on("error", () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return { conns, port, close: () => new Promise<void>((r) => { for (const c of conns) c.socket.destroy(); server.close(() => r()); }) };
}

function kubeconfig(port: number, ca: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "m", server: `https://127.0.0.1:${port}`, caData: Buffer.from(ca).toString("base64"), skipTLSVerify: false }],
    users: [{ name: "agent", token: "the-agents-own-token" }],
    contexts: [{ name: "m", cluster: "m", user: "agent" }],
    currentContext: "m",
  });
  return kc;
}

/** The hub's side, as hub-connection.ts wires it: a fresh writer closure for every frame the hub sends. */
function hub(proxy: MemberApiProxy, flush = true) {
  const sent: AgentMessage[] = [];
  const write = (m: AgentMessage, flushed: () => void) => {
    sent.push(m);
    if (flush) setImmediate(flushed);
  };
  const send = (frame: MemberApiFrame) => proxy.received(frame, ((m, f) => write(m, f)) as FrameWriter);
  return { sent, send };
}

describe("member API proxy (agent): adversarial review (issue 41)", () => {
  let ca: KeyPair;
  let serverCert: KeyPair;
  before(async () => {
    ca = await createCa("member-ca");
    serverCert = await issueCertificate(ca, { commonName: "apiserver", ipAddresses: ["127.0.0.1"], usage: "server" });
  });

  it("an upgrade writes its own request head first: the caller's bytes never reach the apiserver ahead of it (request smuggling as the agent)", { timeout: 10_000 }, async () => {
    const api = await fakeApiserver(serverCert, () => undefined);
    const proxy = new MemberApiProxy({ kc: kubeconfig(api.port, ca.certPem), cluster: "m", allowWrites: true, maxRequests: 8, log: pino({ level: "silent" }) });
    try {
      const h = hub(proxy);
      h.send({ $case: "memberApiRequest", value: execRequest() });
      // The hub sends the caller's first bytes as soon as the upgrade is carried (tunnel() flushes at once);
      // a hostile caller makes them an HTTP request of its own that swallows the agent's request line.
      const open = (proxy as unknown as { open: Map<number, { socket?: unknown }> }).open;
      for (let i = 0; i < 200 && open.get(1)?.socket === undefined; i++) await sleep(1);
      const smuggled = "GET /api/v1/namespaces/kube-system/secrets HTTP/1.1\r\nimpersonate-user: system:admin\r\nx-swallow: ";
      h.send({ $case: "memberApiData", value: { streamId: 1, data: Buffer.from(smuggled), end: false } });
      for (let i = 0; i < 200 && (api.conns[0]?.bytes().length ?? 0) < 200; i++) await sleep(5);
      const bytes = api.conns[0]?.bytes() ?? "";
      assert.ok(bytes.startsWith("POST /api/v1/namespaces/demo/pods/web/exec"), `the apiserver must see the agent's own request first, saw: ${JSON.stringify(bytes.slice(0, 160))}`);
    } finally {
      proxy.destroy();
      await api.close();
    }
  });

  it("the caller's first bytes of an upgrade are not lost while the agent is still connecting: held, then written once the apiserver switched protocols, and their window comes back", { timeout: 10_000 }, async () => {
    // The apiserver switches protocols once it has the agent's request head.
    const api = await fakeApiserver(serverCert, (conn) => {
      if (conn.bytes().includes("\r\n\r\n") && !(conn as { switched?: boolean }).switched) {
        (conn as { switched?: boolean }).switched = true;
        conn.socket.write("HTTP/1.1 101 Switching Protocols\r\nconnection: Upgrade\r\nupgrade: SPDY/3.1\r\n\r\n");
      }
    });
    const proxy = new MemberApiProxy({ kc: kubeconfig(api.port, ca.certPem), cluster: "m", allowWrites: true, maxRequests: 8, log: pino({ level: "silent" }) });
    try {
      const h = hub(proxy);
      // What tunnel() does: the request, then at once the bytes that came with it (kubectl's first frames, stdin).
      h.send({ $case: "memberApiRequest", value: execRequest() });
      h.send({ $case: "memberApiData", value: { streamId: 1, data: Buffer.from("STDIN-FIRST-BYTES"), end: false } });
      for (let i = 0; i < 100 && !(api.conns[0]?.bytes() ?? "").includes("STDIN-FIRST-BYTES"); i++) await sleep(10);
      const bytes = api.conns[0]?.bytes() ?? "";
      assert.ok(bytes.includes("STDIN-FIRST-BYTES"), `the caller's bytes must reach the member, the apiserver saw only: ${JSON.stringify(bytes.slice(-80))}`);
      assert.ok(bytes.indexOf("STDIN-FIRST-BYTES") > bytes.indexOf("\r\n\r\n"), "after the agent's own request head");
      for (let i = 0; i < 100 && !h.sent.some((m) => m.kind?.$case === "memberApiResponse" && m.kind.value.credit > 0); i++) await sleep(10);
      const credited = h.sent.reduce((n, m) => n + (m.kind?.$case === "memberApiResponse" ? m.kind.value.credit : 0), 0);
      assert.equal(credited, "STDIN-FIRST-BYTES".length, "the window of the bytes written comes back");
    } finally {
      proxy.destroy();
      await api.close();
    }
  });

  it("an upgrade the apiserver answers without switching carries no further request on the agent's connection", { timeout: 10_000 }, async () => {
    // The apiserver answers a plain 200 and keeps the connection alive (HTTP/1.1), as it does for a path that does not upgrade.
    const api = await fakeApiserver(serverCert, (conn) => {
      const requests = conn.bytes().split("\r\n\r\n").length - 1;
      if (requests === 1 && !(conn as { answered?: boolean }).answered) {
        (conn as { answered?: boolean }).answered = true;
        conn.socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}');
      }
    });
    const proxy = new MemberApiProxy({ kc: kubeconfig(api.port, ca.certPem), cluster: "m", allowWrites: true, maxRequests: 8, log: pino({ level: "silent" }) });
    try {
      const h = hub(proxy);
      h.send({ $case: "memberApiRequest", value: { ...execRequest(), method: "GET", path: "/version" } });
      for (let i = 0; i < 200 && !h.sent.some((m) => m.kind?.$case === "memberApiResponse" && Buffer.from(m.kind.value.data).toString().includes("200 OK")); i++) await sleep(5);
      h.send({ $case: "memberApiData", value: { streamId: 1, data: Buffer.from("GET /api/v1/namespaces/kube-system/secrets HTTP/1.1\r\nhost: x\r\nimpersonate-user: system:admin\r\n\r\n"), end: false } });
      await sleep(300);
      const bytes = api.conns[0]?.bytes() ?? "";
      assert.equal(bytes.includes("kube-system/secrets"), false, `a second request reached the apiserver on the agent's authenticated connection: ${JSON.stringify(bytes.slice(-120))}`);
    } finally {
      proxy.destroy();
      await api.close();
    }
  });

  it("at most 4 member API frames wait in the stream, however many frames the hub sends meanwhile (heartbeats and statuses first)", { timeout: 10_000 }, async () => {
    const big = Buffer.alloc(4 * 1024 * 1024, 0x61);
    const api = createHttpsServer({ cert: serverCert.certPem, key: serverCert.keyPem }, (_req, res) => res.end(big));
    await new Promise<void>((r) => api.listen(0, "127.0.0.1", r));
    const port = (api.address() as { port: number }).port;
    const proxy = new MemberApiProxy({ kc: kubeconfig(port, ca.certPem), cluster: "m", allowWrites: false, maxRequests: 8, log: pino({ level: "silent" }) });
    try {
      // The stream never flushes (a slow link): nothing the agent wrote has left.
      const h = hub(proxy, false);
      h.send({ $case: "memberApiRequest", value: { ...execRequest(), method: "GET", path: "/api/v1/pods", headers: {}, upgrade: false } });
      await sleep(300);
      // The hub goes on talking on the stream (credits as the caller reads, other requests, cancels): each frame arrives with its own writer.
      for (let i = 0; i < 6; i++) {
        h.send({ $case: "memberApiCredit", value: { streamId: 1, bytes: MEMBER_API_WINDOW / 4 } });
        await sleep(100);
      }
      const frames = h.sent.filter((m) => m.kind?.$case === "memberApiResponse").length;
      assert.ok(frames <= 4, `${frames} member API frames were handed to a stream that flushed none of them`);
    } finally {
      proxy.destroy();
      api.closeAllConnections();
      api.close();
    }
  });
});
