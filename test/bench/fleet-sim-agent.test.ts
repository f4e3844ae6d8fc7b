// The simulated agent of bench:fleet against the real agent hub over mTLS on loopback (no
// Kubernetes): it acknowledges by hash, confirms deletions, heartbeats, resyncs by hash after a
// reconnect and as the real agent does after a restart.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Server, ServerCredentials } from "@grpc/grpc-js";
import { Hub } from "../../control-plane/hub/hub.ts";
import { WorkStore } from "../../control-plane/works/work-store.ts";
import type { WorkStatus } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { AgentHubServiceEncodedOnce } from "../../control-plane/hub/encoded-messages.ts";
import { silentLogger } from "../../shared/logger.ts";
import { createCa, issueAgentCertificate, issueCertificate, type KeyPair } from "../../shared/pki.ts";
import { restartHello, SIMULATED_HEARTBEAT, SimAgent } from "./fleet-sim-agent.ts";

const KEY = "core/v1/ConfigMap/default/one";
const work = (hash: string) => ({ key: KEY, hash, manifests: [Buffer.from(`{"hash":"${hash}"}`)], conflictResolution: "Abort" });

describe("bench:fleet simulated agent", () => {
  const works = new WorkStore();
  const statuses: WorkStatus[] = [];
  let heartbeats = 0;
  let ca: KeyPair;
  let server: Server;
  let agent: SimAgent;

  async function until(check: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  before(async () => {
    ca = await createCa("test-ca");
    const serving = await issueCertificate(ca, { commonName: "hub", dnsNames: ["localhost"], usage: "server" });
    const hub = new Hub({
      works,
      log: silentLogger(),
      clusterNamed: (c) => (c === "sim-1" ? { apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name: c, uid: "uid-1" }, spec: {} } : undefined),
      events: {
        status: (_c, s) => void statuses.push(s),
        heartbeat: (_c, hb, problems) => {
          assert.deepEqual(problems, [], "the simulated heartbeat is a sane one");
          assert.equal(hb.nodeSummary?.total, SIMULATED_HEARTBEAT.nodeSummary?.total);
          heartbeats++;
        },
        connected: () => undefined,
        // As the control plane's status store answers: an accepted report records the Work (so a
        // removal confirmed after a restart by hash, which resends nothing, still counts).
        recorded: (_c, key) => statuses.some((s) => s.workKey === key),
        deletionIntent: () => ({ reason: "TemplateDeleted", preserve: false }),
      },
    });
    works.markSynced();
    server = new Server();
    server.addService(AgentHubServiceEncodedOnce, hub.service());
    const creds = ServerCredentials.createSsl(Buffer.from(ca.certPem), [{ cert_chain: Buffer.from(serving.certPem), private_key: Buffer.from(serving.keyPem) }], true);
    const port = await new Promise<number>((resolve, reject) => server.bindAsync("127.0.0.1:0", creds, (e, p) => (e ? reject(e) : resolve(p))));
    const pair = await issueAgentCertificate(ca, "sim-1", "uid-1");
    agent = new SimAgent({ name: "sim-1", address: `127.0.0.1:${port}`, serverName: "localhost", ca: Buffer.from(ca.certPem), cert: Buffer.from(pair.certPem), key: Buffer.from(pair.keyPem), heartbeatMs: 50, log: silentLogger() });
  });
  after(() => {
    agent.stop();
    server.forceShutdown();
  });

  it("acknowledges each upsert by its hash, and heartbeats", async () => {
    works.set("sim-1", work("h1"));
    agent.start();
    await until(() => agent.synced && statuses.some((s) => s.observedHash === "h1"), "h1 acknowledged");
    assert.deepEqual(statuses.find((s) => s.observedHash === "h1"), { workKey: KEY, observedHash: "h1", applied: true, available: true, reason: "", message: "", manifests: [], deleted: false });
    works.set("sim-1", work("h2"));
    await until(() => statuses.some((s) => s.observedHash === "h2"), "h2 acknowledged");
    assert.deepEqual(agent.receipts.get(KEY)?.map((r) => r.hash), ["h1", "h2"]);
    await until(() => heartbeats >= 2, "heartbeats");
  });

  it("reconnects with nothing changed without receiving a manifest", async () => {
    const [bytes, connects] = [agent.manifestBytes, agent.connects];
    agent.reconnect();
    await until(() => agent.connects > connects && agent.synced, "synced again");
    assert.equal(agent.manifestBytes, bytes);
  });

  it("after a network cut (a new channel, the same agent) reconnects by itself without receiving a manifest", async () => {
    const [bytes, connects] = [agent.manifestBytes, agent.connects];
    agent.cutConnection();
    await until(() => agent.connects > connects && agent.synced, "synced again");
    assert.equal(agent.manifestBytes, bytes);
  });

  it("restarts as the real agent does: contents are sent again only if its Hello asks for them", async () => {
    const bytes = agent.manifestBytes;
    const syncs = agent.syncs;
    agent.restart();
    await until(() => agent.syncs > syncs, "synced after the restart");
    const asks = restartHello("sim-1", {}).needsContents;
    assert.equal(agent.manifestBytes - bytes, asks ? Buffer.byteLength('{"hash":"h2"}') : 0);
  });

  it("confirms a deletion", async () => {
    works.delete("sim-1", KEY);
    await until(() => statuses.some((s) => s.deleted), "deletion confirmed");
    assert.equal(agent.held.size, 0);
  });
});
