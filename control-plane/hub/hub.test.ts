// The agent hub over real gRPC with mutual TLS on loopback (no Kubernetes involved).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type ClientDuplexStream, credentials, Server, ServerCredentials, status as GrpcStatus } from "@grpc/grpc-js";
import { type AgentMessage, AgentHubClient, type ControlMessage, type InterpreterCustomizations, type MetricsWanted, type WantedWorkload, type WorkloadMetrics } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { earlierRegistration } from "../../shared/earlier-registration.ts";
import { metricsWanted, type WorkloadMetricsReport } from "../../shared/workload-metrics-wire.ts";
import { agentCustomizationSet, encodeAgentSet } from "../../shared/interpreter/agent-customizations.ts";
import { silentLogger } from "../../shared/logger.ts";
import { createCa, issueAgentCertificate, issueCertificate, type KeyPair } from "../../shared/pki.ts";
import { AGENT_FEATURES, FEATURES, PROTOCOL_VERSION } from "../../shared/protocol.ts";
import { Hub } from "./hub.ts";
import { AgentHubServiceEncodedOnce, workUpsertCounts } from "./encoded-messages.ts";
import { WorkStore } from "../works/work-store.ts";

/** A Work whose reports make a listener throw (a bug of ours, as the hub must survive it). */
const BOOM = "core/v1/ConfigMap/default/boom";
const work = (key: string, hash: string) => ({ key, hash, manifests: [Buffer.from(`{"k":"${key}","h":"${hash}"}`)], conflictResolution: "Abort" });

describe("agent hub", () => {
  let ca: KeyPair;
  const certs = new Map<string, KeyPair>();
  let server: Server;
  let port: number;
  const works = new WorkStore();
  const registered = new Set(["member1", "member2", "member3"]);
  const statuses: [string, string][] = [];
  /** Works whose absence from the store is no intent to delete them (DESIGN §11). */
  const noIntent = new Set<string>();
  let hub: Hub;
  const clients: AgentHubClient[] = [];
  /** The interpreter customizations agents run, as the interpreter part would set them. */
  let agentSet: InterpreterCustomizations = { contentHash: "", customizations: [] };
  /** The workloads each cluster's agent summarises, as the autoscaling controller would set them. */
  const wanted = new Map<string, MetricsWanted>();
  const summaries: [string, WorkloadMetricsReport][] = [];

  before(async () => {
    ca = await createCa("test-ca");
    const serving = await issueCertificate(ca, { commonName: "hub", dnsNames: ["localhost"], usage: "server" });
    for (const c of ["member1", "member2", "member3", "stranger"]) certs.set(c, await issueAgentCertificate(ca, c));
    // Registered agents' certificates carry their Cluster's uid: member2's current one, and one of an unjoined earlier member2.
    certs.set("member2-current", await issueCertificate(ca, { commonName: "member2", organization: "flotilla:agents", organizationalUnit: "uid-2", usage: "client" }));
    certs.set("member2-revoked", await issueCertificate(ca, { commonName: "member2", organization: "flotilla:agents", organizationalUnit: "uid-old", usage: "client" }));
    certs.set("not-an-agent", await issueCertificate(ca, { commonName: "member1", usage: "client" }));
    hub = new Hub({
      works,
      log: silentLogger(),
      helloTimeoutMs: 1_000,
      // Most certificates here carry no Cluster uid; certificate-refusal.test.ts covers refusing them.
      allowCertsWithoutUid: true,
      customizations: () => agentSet,
      metricsWanted: (c) => wanted.get(c) ?? { contentHash: "", workloads: [] },
      clusterNamed: (c) => (registered.has(c) ? { apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name: c, uid: c === "member2" ? "uid-2" : "uid-1" }, spec: {} } : undefined),
      events: {
        status: (c, s) => {
          if (s.workKey === BOOM) throw new Error("a bug in a listener");
          statuses.push([c, s.workKey]);
        },
        heartbeat: () => undefined,
        connected: () => undefined,
        workloadMetrics: (c, r) => summaries.push([c, r]),
        deletionIntent: (_c, k) => (noIntent.has(k) ? undefined : { reason: "PlacementChanged", preserve: false }),
      },
    });
    server = new Server();
    server.addService(AgentHubServiceEncodedOnce, hub.service());
    const creds = ServerCredentials.createSsl(Buffer.from(ca.certPem), [{ cert_chain: Buffer.from(serving.certPem), private_key: Buffer.from(serving.keyPem) }], true);
    port = await new Promise((resolve, reject) => server.bindAsync("127.0.0.1:0", creds, (e, p) => (e ? reject(e) : resolve(p))));
  });
  after(() => {
    for (const c of clients) c.close();
    server.forceShutdown();
  });

  function connect(certName: string): { stream: ClientDuplexStream<AgentMessage, ControlMessage>; received: ControlMessage[]; ended: Promise<{ code?: number; details?: string }> } {
    const pair = certs.get(certName) as KeyPair;
    const client = new AgentHubClient(`127.0.0.1:${port}`, credentials.createSsl(Buffer.from(ca.certPem), Buffer.from(pair.keyPem), Buffer.from(pair.certPem)), { "grpc.ssl_target_name_override": "localhost" });
    clients.push(client);
    const stream = client.connect();
    const received: ControlMessage[] = [];
    stream.on("data", (m: ControlMessage) => received.push(m));
    const ended = new Promise<{ code?: number; details?: string }>((resolve) => {
      stream.on("error", (e: { code?: number; details?: string }) => resolve(e));
      stream.on("end", () => resolve({}));
    });
    return { stream, received, ended };
  }

  const hello = (cluster: string, workHashes: Record<string, string> = {}, needsContents = false, features: string[] = [...AGENT_FEATURES], customizationsHash?: string, metricsWantedHash?: string): AgentMessage => ({
    kind: {
      $case: "hello",
      value: {
        clusterName: cluster,
        agentVersion: "t",
        workHashes,
        earlierRegistrationWorks: [], earlierRegistrationBits: Buffer.alloc(0),
        needsContents,
        protocolVersion: PROTOCOL_VERSION,
        features,
        ...(customizationsHash === undefined ? {} : { customizationsHash }),
        ...(metricsWantedHash === undefined ? {} : { metricsWantedHash }),
      },
    },
  });

  async function until(check: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + 5000;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  it("refuses agents until the Works are computed from synced caches", async () => {
    const { stream, ended } = connect("member1");
    stream.write(hello("member1"));
    const e = await ended;
    assert.equal(e.code, GrpcStatus.UNAVAILABLE);
    assert.match(e.details ?? "", /not synced/);
    works.markSynced();
  });

  it("refuses a certificate that is not an agent's, and a cluster that is not registered", async () => {
    const a = connect("not-an-agent");
    a.stream.write(hello("member1"));
    assert.equal((await a.ended).code, GrpcStatus.UNAUTHENTICATED);
    const b = connect("stranger");
    b.stream.write(hello("stranger"));
    const e = await b.ended;
    assert.equal(e.code, GrpcStatus.PERMISSION_DENIED);
    assert.match(e.details ?? "", /not registered/);
  });

  it("refuses a certificate of an earlier, unjoined registration of the cluster, and takes the current one", async () => {
    const old = connect("member2-revoked");
    old.stream.write(hello("member2"));
    const e = await old.ended;
    assert.equal(e.code, GrpcStatus.PERMISSION_DENIED);
    assert.match(e.details ?? "", /earlier registration of cluster member2/);
    const current = connect("member2-current");
    current.stream.write(hello("member2"));
    await until(() => current.received.some((m) => m.kind?.$case === "syncDone"), "member2's current stream synced");
    hub.disconnect("member2", "cluster member2 was unjoined");
    const closed = await current.ended;
    assert.equal(closed.code, GrpcStatus.PERMISSION_DENIED);
    assert.match(closed.details ?? "", /unjoined/);
  });

  it("refuses an agent with cluster A's certificate that says it is cluster B, and sends it nothing", async () => {
    works.set("member2", work("apps/v1/Deployment/default/secret-plans", "h1"));
    const { stream, received, ended } = connect("member1");
    stream.write(hello("member2"));
    const e = await ended;
    assert.equal(e.code, GrpcStatus.PERMISSION_DENIED);
    assert.match(e.details ?? "", /certificate is for cluster "member1", not "member2"/);
    assert.deepEqual(received, []);
    assert.deepEqual(hub.connectedClusters(), [], "the refused stream did not register as member1 either");
  });

  it("resyncs only what differs, deletes what the hub no longer has, then says SyncDone", async () => {
    works.set("member1", work("core/v1/ConfigMap/default/same", "s1"));
    works.set("member1", work("core/v1/ConfigMap/default/changed", "c2"));
    works.set("member1", work("core/v1/ConfigMap/default/new", "n1"));
    const { stream, received } = connect("member1");
    stream.write(hello("member1", { "core/v1/ConfigMap/default/same": "s1", "core/v1/ConfigMap/default/changed": "c1", "core/v1/ConfigMap/default/gone": "g1" }));
    await until(() => received.some((m) => m.kind?.$case === "syncDone"), "SyncDone");
    const summary = received.map((m) => (m.kind?.$case === "workUpsert" ? `upsert ${m.kind.value.workKey}` : m.kind?.$case === "workDelete" ? `delete ${m.kind.value.workKey}` : m.kind?.$case));
    assert.deepEqual(summary, ["upsert core/v1/ConfigMap/default/changed", "upsert core/v1/ConfigMap/default/new", "delete core/v1/ConfigMap/default/gone", "syncDone"]);
    assert.deepEqual(hub.connectedClusters(), ["member1"]);

    // Live changes follow, and only member1's.
    works.set("member2", work("core/v1/ConfigMap/default/other", "o1"));
    works.set("member1", work("core/v1/ConfigMap/default/same", "s2"));
    works.delete("member1", "core/v1/ConfigMap/default/new");
    await until(() => received.length === 6, "two live messages");
    assert.equal(received[4]?.kind?.$case === "workUpsert" && received[4].kind.value.contentHash, "s2");
    assert.equal(received[5]?.kind?.$case === "workDelete" && received[5].kind.value.workKey, "core/v1/ConfigMap/default/new");

    // Statuses flow back, attributed to the certificate's cluster.
    stream.write({ kind: { $case: "workStatus", value: { workKey: "core/v1/ConfigMap/default/same", observedHash: "s2", applied: true, available: true, reason: "", message: "", manifests: [], deleted: false } } });
    await until(() => statuses.length > 0, "a status");
    assert.deepEqual(statuses[0], ["member1", "core/v1/ConfigMap/default/same"]);
    stream.end();
  });

  it("moves no manifest at all on a reconnect where nothing changed", async () => {
    const { stream, received } = connect("member2");
    stream.write(hello("member2", Object.fromEntries(works.hashes("member2"))));
    await until(() => received.some((m) => m.kind?.$case === "syncDone"), "SyncDone");
    assert.deepEqual(received.map((m) => m.kind?.$case), ["syncDone"]);
    assert.equal(hub.session("member2")?.stats.manifestBytes, 0);
    stream.end();
  });

  it("answers a ContentRequest with the cluster's Works it names, and nothing for other keys", async () => {
    works.set("member1", work("core/v1/ConfigMap/default/asked", "a1"));
    works.set("member2", work("core/v1/ConfigMap/default/member2s", "m1"));
    const { stream, received } = connect("member1");
    stream.write(hello("member1", Object.fromEntries(works.hashes("member1"))));
    await until(() => received.some((m) => m.kind?.$case === "syncDone"), "SyncDone");
    assert.deepEqual(received.map((m) => m.kind?.$case), ["syncDone"], "nothing differs: nothing sent");
    stream.write({ kind: { $case: "contentRequest", value: { workKeys: ["core/v1/ConfigMap/default/member2s", "core/v1/ConfigMap/default/made-up", "core/v1/ConfigMap/default/asked"] } } });
    await until(() => received.length > 1, "the answer");
    await new Promise((r) => setTimeout(r, 100));
    const upserts = received.flatMap((m) => (m.kind?.$case === "workUpsert" ? [`${m.kind.value.workKey} ${m.kind.value.contentHash}`] : []));
    assert.deepEqual(upserts, ["core/v1/ConfigMap/default/asked a1"], "only member1's Work, at the hub's hash");
    assert.equal(received.length, 2, "no delete for the unknown keys either");
    stream.end();
  });

  it("sends everything again to an agent that lost its manifests, deleting what it applied that is gone", async () => {
    const { stream, received } = connect("member2");
    stream.write(hello("member2", { ...Object.fromEntries(works.hashes("member2")), "core/v1/ConfigMap/default/stale": "x" }, true));
    await until(() => received.some((m) => m.kind?.$case === "syncDone"), "SyncDone");
    const upserts = received.filter((m) => m.kind?.$case === "workUpsert").length;
    assert.equal(upserts, works.keys("member2").length);
    assert.ok(received.some((m) => m.kind?.$case === "workDelete" && m.kind.value.workKey === "core/v1/ConfigMap/default/stale"));
    stream.end();
  });

  it("never tells an agent to delete a Work the store lacks without an intent, on resync or live; says the reason when there is one", async () => {
    works.set("member1", work("core/v1/ConfigMap/default/kept", "k1"));
    noIntent.add("core/v1/ConfigMap/default/unrendered");
    noIntent.add("core/v1/ConfigMap/default/kept");
    const { stream, received } = connect("member1");
    stream.write(hello("member1", { ...Object.fromEntries(works.keys("member1").map((k) => [k, works.get("member1", k)?.hash ?? ""])), "core/v1/ConfigMap/default/unrendered": "u1", "core/v1/ConfigMap/default/moved": "m1" }));
    await until(() => received.some((m) => m.kind?.$case === "syncDone"), "SyncDone");
    const deletes = received.flatMap((m) => (m.kind?.$case === "workDelete" ? [[m.kind.value.workKey, m.kind.value.reason]] : []));
    assert.deepEqual(deletes, [["core/v1/ConfigMap/default/moved", "PlacementChanged"]], "only the Work with an intent is deleted, with its reason");
    // Live: the store drops a Work nobody meant to remove (a render error after a start): nothing is sent.
    works.delete("member1", "core/v1/ConfigMap/default/kept");
    works.set("member1", work("core/v1/ConfigMap/default/marker", "x1"));
    await until(() => received.some((m) => m.kind?.$case === "workUpsert" && m.kind.value.workKey === "core/v1/ConfigMap/default/marker"), "the marker after the drop");
    assert.ok(!received.some((m) => m.kind?.$case === "workDelete" && m.kind.value.workKey === "core/v1/ConfigMap/default/kept"), "no delete for a Work without intent");
    // An absence kept earlier (the cluster was not Ready) is judged again when asked: now there is an intent.
    noIntent.clear();
    hub.session("member1")?.recheckAbsent();
    await until(() => received.some((m) => m.kind?.$case === "workDelete" && m.kind.value.workKey === "core/v1/ConfigMap/default/kept"), "the kept Work deleted once judged again");
    const again = received.filter((m) => m.kind?.$case === "workDelete").map((m) => (m.kind?.$case === "workDelete" ? m.kind.value.workKey : "")).sort();
    assert.deepEqual(again, ["core/v1/ConfigMap/default/kept", "core/v1/ConfigMap/default/moved", "core/v1/ConfigMap/default/unrendered"], "each held Work judged once more; a deleted one is not sent twice");
    stream.end();
  });

  it("judges again only the kept absences it is asked for (a binding no longer ahead), never one the store has again", async () => {
    const [a, b, c] = ["core/v1/ConfigMap/default/ahead-a", "core/v1/ConfigMap/default/ahead-b", "core/v1/ConfigMap/default/ahead-c"];
    for (const k of [a, b, c]) noIntent.add(k);
    const { stream, received } = connect("member1");
    stream.write(hello("member1", { ...Object.fromEntries(works.hashes("member1")), [a]: "a1", [b]: "b1", [c]: "c1" }));
    await until(() => received.some((m) => m.kind?.$case === "syncDone"), "SyncDone");
    noIntent.clear();
    works.set("member1", work(c, "c2"));
    await until(() => received.some((m) => m.kind?.$case === "workUpsert" && m.kind.value.workKey === c), "c placed again");
    hub.session("member1")?.recheckAbsent([a, c, "core/v1/ConfigMap/default/never-held"]);
    await until(() => received.some((m) => m.kind?.$case === "workDelete" && m.kind.value.workKey === a), "a judged again and deleted");
    works.set("member1", work("core/v1/ConfigMap/default/marker-2", "m2"));
    await until(() => received.some((m) => m.kind?.$case === "workUpsert" && m.kind.value.workKey === "core/v1/ConfigMap/default/marker-2"), "a marker after");
    const deleted = received.flatMap((m) => (m.kind?.$case === "workDelete" ? [m.kind.value.workKey] : []));
    assert.deepEqual(deleted, [a], "b was not asked for, c is placed again, the last was never held");
    works.delete("member1", c);
    works.delete("member1", "core/v1/ConfigMap/default/marker-2");
    noIntent.add(c);
    stream.end();
  });

  it("a Hello's Works of an earlier registration: those the store places are sent again at their hash, those it lacks are held, not deleted (issue 37, item 7)", async () => {
    const placed = "core/v1/ConfigMap/default/given-again";
    const dropped = "core/v1/ConfigMap/default/label-lost";
    works.set("member1", work(placed, "g1"));
    const { stream, received } = connect("member1");
    const h = hello("member1", { ...Object.fromEntries(works.hashes("member1")), [dropped]: "d1" });
    if (h.kind?.$case === "hello") h.kind.value.earlierRegistrationWorks = [placed, dropped];
    stream.write(h);
    await until(() => received.some((m) => m.kind?.$case === "syncDone"), "SyncDone");
    const sent = received.flatMap((m) => (m.kind?.$case === "workUpsert" ? [`upsert ${m.kind.value.workKey} ${m.kind.value.contentHash}`] : m.kind?.$case === "workDelete" ? [`delete ${m.kind.value.workKey}`] : []));
    assert.deepEqual(sent, [`upsert ${placed} g1`], "the placed one again at its hash (the agent's record then names this registration); no delete");
    assert.equal(hub.session("member1")?.deletions.isHeld(dropped), true);
    assert.match(hub.session("member1")?.deletions.heldMessage(dropped) ?? "", /member1 registered again/);
    stream.end();
  });

  it("…said as bits only (a member holding too many for the list): the same holds", async () => {
    const dropped = "core/v1/ConfigMap/default/label-lost-bits";
    const { stream, received } = connect("member1");
    const held = { ...Object.fromEntries(works.hashes("member1")), [dropped]: "d1" };
    const h = hello("member1", held);
    if (h.kind?.$case === "hello") Object.assign(h.kind.value, { ...earlierRegistration(Object.keys(held), [dropped]), earlierRegistrationWorks: [] });
    stream.write(h);
    await until(() => received.some((m) => m.kind?.$case === "syncDone"), "SyncDone");
    assert.equal(received.some((m) => m.kind?.$case === "workDelete"), false, "no delete");
    assert.equal(hub.session("member1")?.deletions.isHeld(dropped), true);
    stream.end();
  });

  it("the deletion brake's window is the cluster's: a reconnect within it releases nothing more (issue 37, item 6)", async () => {
    // member3's agent holds 60 Works the store no longer has, each with an intent: the default
    // budget (50% of what it holds, at least 20, per minute) sends 30 and holds 30.
    const stale = Array.from({ length: 60 }, (_, i) => `core/v1/ConfigMap/shop/cm${i}`);
    const deletesOf = (received: ControlMessage[]) => received.flatMap((m) => (m.kind?.$case === "workDelete" ? [m.kind.value.workKey] : []));
    const first = connect("member3");
    first.stream.write(hello("member3", Object.fromEntries(stale.map((k) => [k, "h"]))));
    await until(() => first.received.some((m) => m.kind?.$case === "syncDone"), "SyncDone");
    const sent = deletesOf(first.received);
    assert.equal(sent.length, 30, "half of the 60 it held");
    first.stream.end();
    // The agent restarts twice within the minute, each time still holding what was held.
    for (const round of [1, 2]) {
      const again = connect("member3");
      again.stream.write(hello("member3", Object.fromEntries(stale.filter((k) => !sent.includes(k)).map((k) => [k, "h"]))));
      await until(() => again.received.some((m) => m.kind?.$case === "syncDone"), `SyncDone after restart ${round}`);
      assert.deepEqual(deletesOf(again.received), [], `restart ${round}: the window of 30 sent is still the cluster's`);
      again.stream.end();
    }
    // Unjoined and joined again under the same name within the window: still no new allowance.
    hub.disconnect("member3", "cluster member3 was unjoined");
    const rejoined = connect("member3");
    rejoined.stream.write(hello("member3", Object.fromEntries(stale.filter((k) => !sent.includes(k)).map((k) => [k, "h"]))));
    await until(() => rejoined.received.some((m) => m.kind?.$case === "syncDone"), "SyncDone after a rejoin");
    assert.deepEqual(deletesOf(rejoined.received), [], "a rejoin within the window: the window of 30 sent is kept");
    rejoined.stream.end();
  });

  it("never sends an agent from before versioned Hellos a removal it would misread (a Namespace's): held, and said so", async () => {
    const ns = "core/v1/Namespace/-/shop";
    const before = statuses.length;
    const old = connect("member1");
    old.stream.write({ kind: { $case: "hello", value: { clusterName: "member1", agentVersion: "old", workHashes: { [ns]: "n1" }, earlierRegistrationWorks: [], earlierRegistrationBits: Buffer.alloc(0), needsContents: false, protocolVersion: 0, features: [] } } });
    await until(() => old.received.some((m) => m.kind?.$case === "syncDone"), "the old agent synced");
    assert.ok(!old.received.some((m) => m.kind?.$case === "workDelete"), "no removal sent");
    assert.ok(statuses.slice(before).some(([c, k]) => c === "member1" && k === ns), "the hold is reported as the Work's status");
    assert.deepEqual(hub.session("member1")?.deletions.missingFeatures(), ["durable-preserve", "keep-unmanaged-contents", "keep-other-works-contents"]);
    old.stream.cancel();
    // The same with a current agent: sent.
    const current = connect("member1");
    current.stream.write(hello("member1", { [ns]: "n1" }));
    await until(() => current.received.some((m) => m.kind?.$case === "workDelete" && m.kind.value.workKey === ns), "the removal sent to a current agent");
    current.stream.cancel();
  });

  it("keeps one pending entry per Work for an agent that does not read (back-pressure)", async () => {
    const big = Buffer.alloc(256 * 1024, 120);
    for (let i = 0; i < 64; i++) works.set("member1", { key: `core/v1/ConfigMap/bp/c${i}`, hash: "v0", manifests: [big], conflictResolution: "Abort" });
    const { stream } = connect("member1");
    stream.pause(); // a stuck agent: reads nothing
    stream.write(hello("member1"));
    await until(() => hub.session("member1") !== undefined, "the session");
    await new Promise((r) => setTimeout(r, 300));
    // A burst of 6,400 changes to the same 64 Works.
    for (let round = 1; round <= 100; round++) for (let i = 0; i < 64; i++) works.set("member1", { key: `core/v1/ConfigMap/bp/c${i}`, hash: `v${round}`, manifests: [big], conflictResolution: "Abort" });
    const session = hub.session("member1");
    assert.ok(session !== undefined);
    const pending = session.pending;
    assert.ok(pending <= 64 + 8, `pending ${pending} ≤ one per Work`);
    assert.ok(session.stats.upserts < 64 * 2, `only what fit the stream was sent (${session.stats.upserts})`);
    stream.cancel();
  });

  it("a failure while handling one agent's message ends that stream with INTERNAL, and the hub serves on", async () => {
    works.set("member1", work(BOOM, "b1"));
    const a = connect("member1");
    a.stream.write(hello("member1"));
    await until(() => a.received.some((m) => m.kind?.$case === "syncDone"), "member1 synced");
    a.stream.write({ kind: { $case: "workStatus", value: { workKey: BOOM, observedHash: "b1", applied: true, available: true, reason: "", message: "", manifests: [], deleted: false } } });
    const e = await a.ended;
    assert.equal(e.code, GrpcStatus.INTERNAL);
    works.delete("member1", BOOM);
    const b = connect("member1");
    b.stream.write(hello("member1"));
    await until(() => b.received.some((m) => m.kind?.$case === "syncDone"), "member1's next stream synced");
    b.stream.cancel();
  });

  it("holds at most 4 streams of a cluster that have not said Hello, and closes each after the Hello timeout", async () => {
    const silent = Array.from({ length: 5 }, () => connect("member2-current"));
    const endings = await Promise.all(silent.map((s) => s.ended));
    const codes = endings.map((e) => e.code).sort();
    assert.deepEqual(codes, [GrpcStatus.RESOURCE_EXHAUSTED, ...Array(4).fill(GrpcStatus.DEADLINE_EXCEEDED)].sort(), JSON.stringify(endings));
    // Once they are gone, the cluster's next stream is taken.
    const next = connect("member2-current");
    next.stream.write(hello("member2"));
    await until(() => next.received.some((m) => m.kind?.$case === "syncDone"), "member2's next stream synced");
    next.stream.cancel();
  });

  it("sends the interpreter customizations before any Work, only to an agent that takes them and holds another set, and again when they change", async () => {
    const ric = (name: string, script: string) => ({
      apiVersion: "flotilla.dev/v1alpha1",
      kind: "ResourceInterpreterCustomization",
      metadata: { name },
      spec: { target: { apiVersion: "example.com/v1", kind: "Gizmo" }, customizations: { healthInterpretation: { luaScript: script } } },
    });
    const first = encodeAgentSet(agentCustomizationSet([ric("gizmo", "function InterpretHealth(o) return true end")]));
    agentSet = first;
    works.set("member1", work("core/v1/ConfigMap/default/judged", "j1"));
    const kinds = (received: ControlMessage[]) => received.map((m) => m.kind?.$case);
    try {
      // An agent holding no set: the set comes first, then the Works, then SyncDone.
      const a = connect("member1");
      a.stream.write(hello("member1", {}, false, [...AGENT_FEATURES], ""));
      await until(() => kinds(a.received).includes("syncDone"), "member1 synced");
      assert.equal(kinds(a.received)[0], "interpreterCustomizations", JSON.stringify(kinds(a.received)));
      assert.equal(kinds(a.received).filter((k) => k === "interpreterCustomizations").length, 1);
      const sent = a.received[0]?.kind?.$case === "interpreterCustomizations" ? a.received[0].kind.value : undefined;
      assert.equal(sent?.contentHash, first.contentHash);
      assert.equal(sent?.customizations.length, 1);
      a.stream.cancel();
      // An agent holding this set (its Hello says so) is not sent it again; nor is one that does not take sets.
      for (const features of [[...AGENT_FEATURES], AGENT_FEATURES.filter((f) => f !== FEATURES.interpreterCustomizations)]) {
        const b = connect("member1");
        b.stream.write(hello("member1", { "core/v1/ConfigMap/default/judged": "j1" }, false, features, first.contentHash));
        await until(() => kinds(b.received).includes("syncDone"), "member1 synced again");
        assert.equal(kinds(b.received).includes("interpreterCustomizations"), false, `features ${features.join(",")}`);
        // A change reaches the agent that takes sets, once, however often it is announced.
        const second = encodeAgentSet(agentCustomizationSet([ric("gizmo", "function InterpretHealth(o) return false end")]));
        agentSet = second;
        hub.customizationsChanged();
        hub.customizationsChanged();
        if (features.includes(FEATURES.interpreterCustomizations)) {
          await until(() => kinds(b.received).includes("interpreterCustomizations"), "the new set");
          await new Promise((r) => setTimeout(r, 100));
          assert.equal(kinds(b.received).filter((k) => k === "interpreterCustomizations").length, 1);
          assert.equal(kinds(b.received).at(-1), "interpreterCustomizations");
          const last = b.received.at(-1);
          const got = last?.kind?.$case === "interpreterCustomizations" ? last.kind.value : undefined;
          assert.equal(got?.contentHash, second.contentHash);
        } else {
          await new Promise((r) => setTimeout(r, 200));
          assert.equal(kinds(b.received).includes("interpreterCustomizations"), false, "an agent that does not take sets is never sent one");
        }
        agentSet = first;
        b.stream.cancel();
      }
    } finally {
      agentSet = { contentHash: "", customizations: [] };
      works.delete("member1", "core/v1/ConfigMap/default/judged");
    }
  });

  it("sends the MetricsWanted list first, once, only to an agent that takes it and holds another, and again on a change; takes summaries only of wanted workloads and keys, within bounds", async () => {
    const web = (metrics: string[]): WantedWorkload => ({
      workload: { apiVersion: "apps/v1", kind: "Deployment", namespace: "shop", name: "web" },
      podSelector: { matchLabels: { app: "web" }, matchExpressions: [] },
      metrics: metrics.map((key) => ({ key, type: "Resource", resource: key, container: "", metricName: "", metricSelector: undefined, describedObject: undefined })),
    });
    const first = metricsWanted([web(["cpu"])]);
    wanted.set("member1", first);
    const kinds = (received: ControlMessage[]) => received.map((m) => m.kind?.$case);
    const report = (name: string, o: Partial<WorkloadMetrics> = {}): AgentMessage => ({
      kind: {
        $case: "workloadMetrics",
        value: {
          workload: { apiVersion: "apps/v1", kind: "Deployment", namespace: "shop", name },
          wantedHash: first.contentHash,
          pods: 3,
          readyPods: 2,
          resources: [{ key: "cpu", readyPods: 2, readyUsage: "9007199254740993", readyRequests: "1000", unreadyPods: 1, unreadyRequests: "500", missingPods: 0, missingRequests: "0", podsWithoutRequest: 0 }],
          podsMetrics: [],
          objectMetrics: [],
          externalMetrics: [],
          windowStartMs: 1000,
          windowEndMs: 16000,
          problems: [],
          ...o,
        },
      },
    });
    try {
      // An agent holding no list is sent it before SyncDone, once.
      const a = connect("member1");
      a.stream.write(hello("member1", {}, false, [...AGENT_FEATURES], undefined, ""));
      await until(() => kinds(a.received).includes("syncDone"), "member1 synced");
      assert.deepEqual(kinds(a.received).filter((k) => k === "metricsWanted"), ["metricsWanted"]);
      assert.ok(kinds(a.received).indexOf("metricsWanted") < kinds(a.received).indexOf("syncDone"));
      const sent = a.received.find((m) => m.kind?.$case === "metricsWanted");
      assert.deepEqual(sent?.kind?.$case === "metricsWanted" ? sent.kind.value : undefined, first);

      // Summaries: a wanted workload's is taken (exact beyond 2^53); another workload's, and one out of bounds, are dropped; an unwanted key is left out.
      a.stream.write(report("other"));
      a.stream.write(report("web", { pods: 4 })); // its groups hold 3 pods: inconsistent
      a.stream.write(report("web", { readyPods: 1, podsMetrics: [{ key: "requests", readyPods: 1, readyValue: "5", unreadyPods: 2, missingPods: 0 }] }));
      await until(() => summaries.length > 0, "the wanted workload's summary");
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(summaries.length, 1, "only the wanted, consistent summary was taken");
      const [cluster, got] = summaries[0] ?? [];
      assert.equal(cluster, "member1");
      assert.equal(got?.key, "apps/v1/Deployment/shop/web");
      assert.deepEqual(got?.summary, {
        pods: 3,
        readyPods: 1,
        resources: { cpu: { readyPods: 2, readyUsage: 9007199254740993n, readyRequests: 1000n, unreadyPods: 1, unreadyRequests: 500n, missingPods: 0, missingRequests: 0n, podsWithoutRequest: 0 } },
      });
      assert.deepEqual([got?.windowStartMs, got?.windowEndMs], [1000, 16000]);
      assert.equal(hub.session("member1")?.stats.workloadMetrics, 1);
      assert.equal(kinds(a.received).includes("syncDone") && hub.connectedClusters().includes("member1"), true, "a dropped summary does not end the stream");

      // A change reaches the agent once, however often it is announced; another cluster's change does not.
      const second = metricsWanted([web(["cpu", "memory"])]);
      wanted.set("member1", second);
      hub.metricsWantedChanged("member1");
      hub.metricsWantedChanged("member1");
      hub.metricsWantedChanged("member2");
      await until(() => kinds(a.received).filter((k) => k === "metricsWanted").length === 2, "the new list");
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(kinds(a.received).filter((k) => k === "metricsWanted").length, 2);
      const last = a.received.at(-1);
      assert.equal(last?.kind?.$case === "metricsWanted" ? last.kind.value.contentHash : undefined, second.contentHash);
      a.stream.cancel();

      // An agent holding this list is not sent it again; nor is one that does not declare the feature.
      for (const features of [[...AGENT_FEATURES], AGENT_FEATURES.filter((f) => f !== FEATURES.workloadMetrics)]) {
        const b = connect("member1");
        b.stream.write(hello("member1", {}, false, features, undefined, second.contentHash));
        await until(() => kinds(b.received).includes("syncDone"), "member1 synced again");
        wanted.set("member1", metricsWanted([]));
        hub.metricsWantedChanged("member1");
        await new Promise((r) => setTimeout(r, 200));
        const lists = b.received.flatMap((m) => (m.kind?.$case === "metricsWanted" ? [m.kind.value.contentHash] : []));
        assert.deepEqual(lists, features.includes(FEATURES.workloadMetrics) ? [""] : [], `features ${features.join(",")}: only the emptied list`);
        wanted.set("member1", second);
        b.stream.cancel();
      }
    } finally {
      wanted.clear();
    }
  });

  it("a Work sent to three clusters is encoded once, and each agent decodes the same Work", async () => {
    const agents = ["member1", "member2", "member3"].map((c) => {
      const a = connect(c);
      a.stream.write(hello(c, Object.fromEntries(works.hashes(c))));
      return a;
    });
    await until(() => agents.every((a) => a.received.some((m) => m.kind?.$case === "syncDone")), "three agents synced");
    const before = workUpsertCounts();
    // As the Work cache sets it: one rendering, the same manifests array, for every cluster.
    const shared = work("apps/v1/Deployment/default/fan-out", "f1");
    for (const c of ["member1", "member2", "member3"]) works.set(c, shared);
    const upserts = (a: (typeof agents)[number]) => a.received.flatMap((m) => (m.kind?.$case === "workUpsert" ? [m.kind.value] : []));
    await until(() => agents.every((a) => upserts(a).length === 1), "the Work at every agent");
    const after = workUpsertCounts();
    assert.deepEqual({ encodings: after.encodings - before.encodings, written: after.written - before.written }, { encodings: 1, written: 3 });
    for (const a of agents) {
      assert.deepEqual(upserts(a), [{ workKey: shared.key, contentHash: "f1", manifests: shared.manifests, conflictResolution: "Abort", preserveResourcesOnDeletion: false }]);
      a.stream.end();
    }
  });
});
