// Issue 42, an adversarial review (connections admitted before TLS). Adversarial tests over real TLS and gRPC on
// loopback; each fails on main at 64cc46c. A hostile client here has no certificate at all: it
// only opens TCP connections to the hub's port.
import assert from "node:assert/strict";
import { connect as netConnect, type Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { connect as tlsConnect } from "node:tls";
import type { ServerCredentials } from "@grpc/grpc-js";
import { Server } from "@grpc/grpc-js";
import { silentLogger } from "../../shared/logger.ts";
import { createCa, issueAgentCertificate, type KeyPair } from "../../shared/pki.ts";
import { stormGraceLeft } from "../clusters/cluster-readiness.ts";
import { WorkStore } from "../works/work-store.ts";
import { AgentAdmissions } from "./agent-admissions.ts";
import { AgentHubServiceEncodedOnce } from "./encoded-messages.ts";
import { gatedListeners, hubCredentials } from "./gated-listener.fixtures.ts";
import { Hub } from "./hub.ts";

/** A TLS handshake from `localAddress`: how long it took, or why it failed. */
function handshake(port: number, ca: KeyPair, pair: KeyPair, waitMs: number, localAddress = "127.0.0.1"): Promise<{ ok: true; ms: number } | { ok: false; why: string }> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const raw = netConnect({ host: "127.0.0.1", port, localAddress });
    raw.on("error", () => undefined);
    const socket = tlsConnect({ socket: raw, servername: "localhost", ca: ca.certPem, cert: pair.certPem, key: pair.keyPem, ALPNProtocols: ["h2"] });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ ok: false, why: `no handshake within ${waitMs} ms` });
    }, waitMs);
    socket.once("secureConnect", () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ ok: true, ms: Date.now() - t0 });
    });
    socket.once("error", (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve({ ok: false, why: e.code ?? e.message });
    });
  });
}

/** Plain TCP connections from `localAddress` that say nothing (no certificate, no ClientHello). */
async function tcp(port: number, n: number, localAddress: string): Promise<Socket[]> {
  return Promise.all(
    Array.from({ length: n }, () => new Promise<Socket>((resolve, reject) => {
      const s = netConnect({ host: "127.0.0.1", port, localAddress });
      s.on("error", () => undefined);
      s.once("connect", () => resolve(s));
      s.once("error", reject);
    })),
  );
}

describe("review 42: the gated listener and untrusted TCP peers", () => {
  let ca: KeyPair;
  let agent: KeyPair;
  let server: Server;
  let serverCreds: ServerCredentials;
  const listeners = gatedListeners(() => server, () => serverCreds);
  const sockets: Socket[] = [];

  before(async () => {
    ca = await createCa("test-ca");
    agent = await issueAgentCertificate(ca, "a0", "uid-a0");
    const hub = new Hub({ works: new WorkStore(), log: silentLogger(), clusterNamed: () => undefined, events: { status: () => undefined, heartbeat: () => undefined, connected: () => undefined } });
    server = new Server();
    server.addService(AgentHubServiceEncodedOnce, hub.service());
    serverCreds = await hubCredentials(ca);
  });
  after(() => {
    for (const s of sockets) s.destroy();
    listeners.closeAll();
    server.forceShutdown();
  });

  const listen = (admissions: AgentAdmissions) => listeners.listen(admissions);

  async function waitFor(cond: () => boolean, ms = 5_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!cond() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  }

  it("one address holding silent TCP connections does not shut every agent out", async () => {
    // 5 a second: the queue holds a minute of admissions (301). One host without any certificate fills it.
    const admissions = new AgentAdmissions({ perSecond: 5, burst: 1 });
    const port = await listen(admissions);
    sockets.push(...(await tcp(port, 310, "127.0.0.2")));
    await waitFor(() => (listeners.last()).waiting >= 300);
    const outcome = await handshake(port, ca, agent, 3_000);
    assert.equal(outcome.ok, true, `an agent from another address is refused before TLS (${JSON.stringify(outcome)}), and is as long as that host keeps its sockets and opens 5 more a second`);
  });

  it("silent TCP connections, with no agent lost here, hold no silent cluster Ready", async () => {
    const admissions = new AgentAdmissions({ perSecond: 5, burst: 1 });
    const port = await listen(admissions);
    sockets.push(...(await tcp(port, 20, "127.0.0.3")));
    await waitFor(() => (listeners.last()).waiting >= 19);
    // cluster-controller.ts: while this is defined, a Ready cluster whose heartbeats stopped is not
    // made NotReady (judged again after it, when a client that keeps connections waiting keeps it defined).
    const grace = stormGraceLeft({ ready: true, admissionBacklogMs: admissions.backlogMs(), failureMs: 40_000 });
    assert.equal(grace, undefined, `a client without a certificate defers every NotReady judgement on this replica by ${grace} ms, again and again: failover never starts`);
  });

  it("a connection its client already closed costs no admission", async () => {
    const admissions = new AgentAdmissions({ perSecond: 4, burst: 1 });
    const port = await listen(admissions);
    // Clients that gave up while waiting (a flotillactl deadline, a TCP probe, an agent pod restarted).
    const gaveUp = await tcp(port, 9, "127.0.0.4");
    await waitFor(() => (listeners.last()).waiting >= 8);
    for (const s of gaveUp) s.destroy();
    await new Promise((r) => setTimeout(r, 100));
    const outcome = await handshake(port, ca, agent, 5_000);
    assert.ok(outcome.ok && outcome.ms < 1_000, `the live agent waits behind the dead connections, each taking a token at its turn (${JSON.stringify(outcome)})`);
  });
});
