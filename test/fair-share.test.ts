// Issue 25: a replica that holds more than its share of the fleet sends a new agent elsewhere, and
// the agent (the real agent's HubConnection) reconnects on a new connection, which the Service (a
// round-robin TCP forwarder here, test/env/hub-proxy.ts) sends to another replica.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { Server, ServerCredentials } from "@grpc/grpc-js";
import { Hub } from "../control-plane/hub/hub.ts";
import { WorkStore } from "../control-plane/works/work-store.ts";
import { AgentHubServiceEncodedOnce } from "../control-plane/hub/encoded-messages.ts";
import { silentLogger } from "../shared/logger.ts";
import { createCa, issueAgentCertificate, issueCertificate } from "../shared/pki.ts";
import { SimAgent } from "./bench/fleet-sim-agent.ts";
import { startHubProxy } from "./env/hub-proxy.ts";
import { waitFor } from "./env/wait.ts";

describe("agents spread over replicas", () => {
  const cleanups: (() => unknown)[] = [];
  after(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it("a replica over its share refuses a new agent, which reconnects through the Service to another replica", async () => {
    const ca = await createCa("test-ca");
    const serving = await issueCertificate(ca, { commonName: "hub", dnsNames: ["localhost"], usage: "server" });
    const replica = async () => {
      const works = new WorkStore();
      works.markSynced();
      const hub = new Hub({
        works,
        log: silentLogger(),
        clusterNamed: (c) => ({ apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name: c, uid: `uid-${c}` }, spec: {} }),
        events: { status: () => undefined, heartbeat: () => undefined, connected: () => undefined },
        // A fleet of one cluster over two replicas: a share of 2 at most (fair-share.ts's slack and one more).
        clusterCount: () => 1,
      });
      hub.replicaCount = () => 2;
      const server = new Server();
      server.addService(AgentHubServiceEncodedOnce, hub.service());
      const creds = ServerCredentials.createSsl(Buffer.from(ca.certPem), [{ cert_chain: Buffer.from(serving.certPem), private_key: Buffer.from(serving.keyPem) }], true);
      const port = await new Promise<number>((resolve, reject) => server.bindAsync("127.0.0.1:0", creds, (e, p) => (e ? reject(e) : resolve(p))));
      cleanups.push(() => server.forceShutdown());
      return { hub, port };
    };
    const [a, b] = [await replica(), await replica()];
    const agent = async (name: string, port: number) => {
      const pair = await issueAgentCertificate(ca, name, `uid-${name}`);
      const sim = new SimAgent({ name, address: `127.0.0.1:${port}`, serverName: "localhost", ca: Buffer.from(ca.certPem), cert: Buffer.from(pair.certPem), key: Buffer.from(pair.keyPem), heartbeatMs: 60_000, log: silentLogger() });
      cleanups.push(() => sim.stop());
      return sim;
    };
    // Replica a already holds its share: a third agent comes through the Service.
    for (const name of ["one", "two"]) (await agent(name, a.port)).start();
    await waitFor(async () => a.hub.connectedClusters().length === 2, { what: "two agents on replica a", timeoutMs: 10_000, intervalMs: 20 });
    // The forwarder's first connection goes to a, the next to b.
    const proxy = await startHubProxy([a.port, b.port]);
    cleanups.push(() => proxy.close());
    const third = await agent("three", proxy.port);
    third.start();
    await waitFor(async () => third.synced, { what: "the third agent to sync", timeoutMs: 10_000, intervalMs: 20 });
    assert.deepEqual(b.hub.connectedClusters(), ["three"], "it streams to replica b");
    assert.equal(a.hub.sentElsewhere, 1, "replica a sent it elsewhere once");
    assert.deepEqual(a.hub.connectedClusters(), ["one", "two"]);
  });
});
