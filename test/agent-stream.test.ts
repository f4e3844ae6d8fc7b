// The generated AgentHub service carries a bidi Connect stream over mTLS with grpc-js.
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { it, type TestContext } from "node:test";
import {
  credentials,
  Server,
  ServerCredentials,
  type ServerDuplexStream,
  type UntypedServiceImplementation,
} from "@grpc/grpc-js";
import {
  type AgentMessage,
  AgentHubClient,
  AgentHubService,
  type ControlMessage,
} from "../shared/gen/flotilla/v1alpha1/agent.ts";
import { pino } from "pino";
import { HubConnection } from "../agent/hub/hub-connection.ts";
import { type ClusterPki, makeClusterPki } from "./env/pki.ts";

interface TlsFiles {
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
}

async function tlsFiles(pki: ClusterPki, side: "serving" | "admin"): Promise<TlsFiles> {
  const [ca, cert, key] = await Promise.all(
    side === "serving"
      ? [pki.caCert, pki.servingCert, pki.servingKey].map((p) => readFile(p))
      : [pki.caCert, pki.adminCert, pki.adminKey].map((p) => readFile(p)),
  );
  return { ca: ca as Buffer, cert: cert as Buffer, key: key as Buffer };
}

/** Serves AgentHub on a loopback port with mTLS (client certificates required). */
async function startHub(t: TestContext, serving: TlsFiles, impl: UntypedServiceImplementation): Promise<number> {
  const server = new Server();
  server.addService(AgentHubService, impl);
  const creds = ServerCredentials.createSsl(serving.ca, [{ cert_chain: serving.cert, private_key: serving.key }], true);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", creds, (err, p) => (err ? reject(err) : resolve(p))),
  );
  t.after(() => server.forceShutdown());
  return port;
}

function dial(t: TestContext, port: number, trust: Buffer, client: TlsFiles): AgentHubClient {
  const c = new AgentHubClient(`127.0.0.1:${port}`, credentials.createSsl(trust, client.key, client.cert), {
    // The certificate names localhost; without this grpc-js sends the IP as SNI, which TLS forbids.
    "grpc.ssl_target_name_override": "localhost",
  });
  t.after(() => c.close());
  return c;
}

it("carries Hello → WorkUpsert → SyncDone → WorkStatus over a mutual-TLS Connect stream", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "flotilla-grpc-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const pki = await makeClusterPki(dir);
  const seenByHub: AgentMessage[] = [];
  let peerSubject = "";
  const port = await startHub(t, await tlsFiles(pki, "serving"), {
    connect(stream: ServerDuplexStream<AgentMessage, ControlMessage>) {
      peerSubject = String(stream.getAuthContext()?.sslPeerCertificate?.subject?.CN ?? "");
      stream.on("data", (m: AgentMessage) => {
        seenByHub.push(m);
        if (m.kind?.$case === "hello") {
          stream.write({ kind: { $case: "workUpsert", value: { workKey: "default/web", contentHash: "h1", manifests: [Buffer.from('{"kind":"ConfigMap"}')], conflictResolution: "", preserveResourcesOnDeletion: false } } });
          stream.write({ kind: { $case: "syncDone", value: { workCount: 1, hubFeatures: [] } } });
        }
        if (m.kind?.$case === "workStatus") stream.end();
      });
    },
  });
  const client = dial(t, port, (await tlsFiles(pki, "admin")).ca, await tlsFiles(pki, "admin"));
  const stream = client.connect();
  const received: ControlMessage[] = [];
  const done = new Promise<void>((resolve, reject) => {
    stream.on("data", (m: ControlMessage) => {
      received.push(m);
      if (m.kind?.$case === "syncDone") {
        stream.write({ kind: { $case: "workStatus", value: { workKey: "default/web", observedHash: "h1", applied: true, available: true, reason: "", message: "", manifests: [], deleted: false } } });
        stream.end();
      }
    });
    stream.on("end", resolve);
    stream.on("error", reject);
  });
  stream.write({ kind: { $case: "hello", value: { clusterName: "member1", agentVersion: "test", workHashes: {}, earlierRegistrationWorks: [], earlierRegistrationBits: Buffer.alloc(0), needsContents: false, protocolVersion: 0, features: [] } } });
  await done;

  assert.equal(peerSubject, "flotilla-admin", "the hub sees the client certificate");
  assert.deepEqual(received.map((m) => m.kind?.$case), ["workUpsert", "syncDone"]);
  const upsert = received[0]?.kind;
  assert.ok(upsert?.$case === "workUpsert");
  assert.equal(Buffer.from(upsert.value.manifests[0] as Uint8Array).toString(), '{"kind":"ConfigMap"}');
  assert.deepEqual(seenByHub.map((m) => m.kind?.$case), ["hello", "workStatus"]);
});

it("refuses a client without a certificate signed by the hub's CA", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "flotilla-grpc-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const [hubPki, otherPki] = await Promise.all([makeClusterPki(join(dir, "hub-")), makeClusterPki(join(dir, "other-"))]);
  let streamsAccepted = 0;
  const port = await startHub(t, await tlsFiles(hubPki, "serving"), {
    connect: (s: ServerDuplexStream<AgentMessage, ControlMessage>) => {
      streamsAccepted++;
      s.end();
    },
  });
  const client = dial(t, port, (await tlsFiles(hubPki, "serving")).ca, await tlsFiles(otherPki, "admin"));
  const stream = client.connect();
  const err = await new Promise<Error>((resolve) => {
    stream.on("error", resolve);
    stream.on("data", () => undefined);
    stream.write({ kind: { $case: "hello", value: { clusterName: "member1", agentVersion: "test", workHashes: {}, earlierRegistrationWorks: [], earlierRegistrationBits: Buffer.alloc(0), needsContents: false, protocolVersion: 0, features: [] } } });
  });
  assert.match(err.message, /UNAVAILABLE/);
  assert.equal(streamsAccepted, 0, "the hub never sees the stream");
});

// Issue 40: an older hub ends a stream on an agent message it does not know, so the agent sends
// export reports only to a hub whose SyncDone says it takes them.
for (const hubFeatures of [[], ["mcs"]]) {
  it(`sends ServiceExportReports and ServiceExportsSynced only to a hub that declares "mcs" (hub declares ${JSON.stringify(hubFeatures)})`, async (t) => {
    const dir = await mkdtemp(join(tmpdir(), "flotilla-grpc-"));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const pki = await makeClusterPki(dir);
    const seenByHub: string[] = [];
    let heartbeat: () => void = () => undefined;
    const heartbeatSeen = new Promise<void>((resolve) => (heartbeat = resolve));
    const port = await startHub(t, await tlsFiles(pki, "serving"), {
      connect(stream: ServerDuplexStream<AgentMessage, ControlMessage>) {
        stream.on("data", (m: AgentMessage) => {
          seenByHub.push(m.kind?.$case ?? "");
          if (m.kind?.$case === "hello") stream.write({ kind: { $case: "syncDone", value: { workCount: 0, hubFeatures } } });
          if (m.kind?.$case === "heartbeat") heartbeat();
        });
      },
    });
    const admin = await tlsFiles(pki, "admin");
    const connection: HubConnection = new HubConnection({
      address: `127.0.0.1:${port}`,
      serverName: "localhost",
      ca: admin.ca,
      cert: admin.cert,
      key: admin.key,
      log: pino({ level: process.env.DEBUG_TEST ? "debug" : "silent" }),
      handlers: {
        hello: () => ({ clusterName: "member1", agentVersion: "test", workHashes: {}, earlierRegistrationWorks: [], earlierRegistrationBits: Buffer.alloc(0), needsContents: false, protocolVersion: 2, features: ["mcs"] }),
        upsert: () => undefined,
        delete: () => undefined,
        status: () => undefined,
        live: async () => ({ requestId: "", objects: [], error: "" }),
        serviceExport: (key) => ({ namespace: key.split("/")[0] ?? "", name: key.split("/")[1] ?? "", export: Buffer.from("{}"), withdrawn: false }),
        serviceExportsSynced: () => ({ exports: ["shop/web"] }),
        syncDone: () => {
          connection.reportExport("shop/web");
          connection.reportExportsSynced();
          connection.heartbeat({ kubernetesVersion: "", agentVersion: "test", apiEnablements: [], nodeSummary: undefined, resourceSummary: undefined });
        },
      },
    });
    t.after(() => connection.stop());
    connection.start();
    await heartbeatSeen;
    const exports = seenByHub.filter((k) => k === "serviceExport" || k === "serviceExportsSynced");
    assert.deepEqual(exports, hubFeatures.length === 0 ? [] : ["serviceExport", "serviceExportsSynced"]);
  });
}
