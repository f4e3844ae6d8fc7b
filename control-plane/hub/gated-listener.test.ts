// Issue 42: the gRPC port's listener admits new connections at the rate before their TLS handshake.
// Real TLS and gRPC on loopback (no Kubernetes).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { connect as tlsConnect } from "node:tls";
import type { ServerCredentials } from "@grpc/grpc-js";
import { credentials, Server } from "@grpc/grpc-js";
import { AgentHubClient, type ControlMessage } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { silentLogger } from "../../shared/logger.ts";
import { createCa, issueAgentCertificate, type KeyPair } from "../../shared/pki.ts";
import { AGENT_FEATURES, PROTOCOL_VERSION } from "../../shared/protocol.ts";
import { WorkStore } from "../works/work-store.ts";
import { AgentAdmissions } from "./agent-admissions.ts";
import { AgentHubServiceEncodedOnce } from "./encoded-messages.ts";
import { LISTEN_BACKLOG } from "./gated-listener.ts";
import { gatedListeners, hubCredentials } from "./gated-listener.fixtures.ts";
import { Hub } from "./hub.ts";
import { listenBacklog, somaxconn } from "../../test/env/listen-backlog.ts";

const AGENTS = 6;
const RATE = 5;

/** How a raw TLS connection to the port ended: its handshake done (and what it agreed), or closed before one. */
function tlsOutcome(port: number, ca: KeyPair, pair: KeyPair, waitMs = 5_000): Promise<{ handshake: true; authorized: boolean; alpn: string | false | null } | { handshake: false; why: string }> {
  return new Promise((resolve) => {
    const socket = tlsConnect({ host: "127.0.0.1", port, servername: "localhost", ca: ca.certPem, cert: pair.certPem, key: pair.keyPem, ALPNProtocols: ["h2"] });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ handshake: false, why: "still waiting" });
    }, waitMs);
    socket.once("secureConnect", () => {
      clearTimeout(timer);
      resolve({ handshake: true, authorized: socket.authorized, alpn: socket.alpnProtocol });
      socket.destroy();
    });
    socket.once("error", (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve({ handshake: false, why: e.code ?? e.message });
    });
  });
}

describe("gated listener: connections admitted before TLS (issue 42)", () => {
  let ca: KeyPair;
  const certs = new Map<string, KeyPair>();
  const works = new WorkStore();
  let hub: Hub;
  let server: Server;
  let serverCreds: ServerCredentials;
  const listeners = gatedListeners(() => server, () => serverCreds);
  const clients: AgentHubClient[] = [];

  before(async () => {
    ca = await createCa("test-ca");
    for (let i = 0; i < AGENTS; i++) certs.set(`a${i}`, await issueAgentCertificate(ca, `a${i}`, `uid-a${i}`));
    hub = new Hub({
      works,
      log: silentLogger(),
      admission: { perSecond: RATE, burst: 1 },
      clusterNamed: (c) => (certs.has(c) ? { apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name: c, uid: `uid-${c}` }, spec: {} } : undefined),
      events: { status: () => undefined, heartbeat: () => undefined, connected: () => undefined },
    });
    works.markSynced();
    server = new Server();
    server.addService(AgentHubServiceEncodedOnce, hub.service());
    serverCreds = await hubCredentials(ca);
  });
  after(() => {
    for (const c of clients) c.close();
    listeners.closeAll();
    server.forceShutdown();
  });

  const listen = (admissions: AgentAdmissions) => listeners.listen(admissions);

  it("a TLS client with an agent certificate completes its handshake through the gate", async () => {
    const port = await listen(new AgentAdmissions({ perSecond: RATE, burst: 1 }));
    assert.deepEqual(await tlsOutcome(port, ca, certs.get("a0") as KeyPair), { handshake: true, authorized: true, alpn: "h2" });
  });

  it("a storm of agents is handshaken at the rate, none refused after TLS, each stream bound to its own certificate", async () => {
    const port = await listen(hub.admissions);
    const t0 = Date.now();
    const syncedAt = await Promise.all(
      [...certs.entries()].map(([cluster, pair]) => {
        const client = new AgentHubClient(`127.0.0.1:${port}`, credentials.createSsl(Buffer.from(ca.certPem), Buffer.from(pair.keyPem), Buffer.from(pair.certPem)), { "grpc.ssl_target_name_override": "localhost" });
        clients.push(client);
        const stream = client.connect();
        const hello = { clusterName: cluster, agentVersion: "t", workHashes: {}, earlierRegistrationWorks: [], earlierRegistrationBits: Buffer.alloc(0), needsContents: false, protocolVersion: PROTOCOL_VERSION, features: [...AGENT_FEATURES] };
        stream.write({ kind: { $case: "hello", value: hello } });
        return new Promise<number>((resolve, reject) => {
          stream.on("data", (m: ControlMessage) => {
            if (m.kind?.$case === "syncDone") resolve(Date.now() - t0);
          });
          stream.on("error", reject);
        });
      }),
    );
    assert.deepEqual(hub.connectedClusters(), [...certs.keys()].sort(), "each stream is its own certificate's cluster");
    assert.equal(hub.refusedAdmissions, 0, "no agent was refused after its handshake: each waited below TLS");
    // A burst of 1, then one every 1/RATE s: the last is in about (AGENTS - 1) / RATE s after the first.
    const sorted = syncedAt.sort((a, b) => a - b);
    const spread = (sorted.at(-1) ?? 0) - (sorted[0] ?? 0);
    assert.ok(spread >= ((AGENTS - 1) / RATE) * 1000 * 0.8, `handshakes spread at the rate (the agents synced over ${spread} ms: ${sorted.join(", ")})`);
  });

  it("listens with a deep accept queue: a storm arriving while the event loop is busy is not reset by the kernel", async () => {
    const port = await listen(new AgentAdmissions({ perSecond: RATE, burst: 1 }));
    const backlog = listenBacklog(port);
    const cap = somaxconn();
    assert.equal(backlog, Math.min(LISTEN_BACKLOG, cap), "the listening socket's backlog: what the kernel took of LISTEN_BACKLOG");
    assert.ok(backlog > 511, `deeper than Node's default of 511 (somaxconn here: ${cap})`);
  });

  it("closes a connection before its handshake when a minute of admissions already waits, and the waiting ones on close", async () => {
    // 1 admitted at once; then a minute at 1 per 1,000 s holds less than one more: the bound is 2 waiting.
    const admissions = new AgentAdmissions({ perSecond: 0.001, burst: 1 });
    const port = await listen(admissions);
    const pair = certs.get("a1") as KeyPair;
    assert.equal((await tlsOutcome(port, ca, pair)).handshake, true);
    const waiting = [tlsOutcome(port, ca, pair, 60_000), tlsOutcome(port, ca, pair, 60_000)];
    const deadline = Date.now() + 5_000;
    const listener = listeners.last();
    while (listener.waiting < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    assert.equal(listener.waiting, 2);
    assert.deepEqual(await tlsOutcome(port, ca, pair), { handshake: false, why: "ECONNRESET" }, "one more is closed, unhandshaken");
    listeners.last().close();
    for (const w of await Promise.all(waiting)) assert.deepEqual(w, { handshake: false, why: "ECONNRESET" }, "closing the listener closes those waiting, unhandshaken");
    assert.deepEqual(await tlsOutcome(port, ca, pair), { handshake: false, why: "ECONNREFUSED" }, "and frees the port");
  });
});
