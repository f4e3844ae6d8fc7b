// Issue 42 over real mTLS gRPC on 127.0.0.1, in process: a replica's PeerStatus service (its
// StatusStore, its handed clusters) and the leader's StatusFollower (its own StatusStore, through
// the status part's ForwardedClusters). What the replica's agents reported reaches the leader's
// store, the replica hears which clusters the leader takes, and a dropped stream gives them back
// (carried on the leader, written by the replica again) without losing a report or an entry. Only
// the replica a replica sees holding the leader Lease may follow it.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { credentials, Metadata, Server, ServerCredentials, type ServiceError } from "@grpc/grpc-js";
import type { WorkStatus } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { PeerStatusClient, PeerStatusService } from "../../shared/gen/flotilla/v1alpha1/peer.ts";
import { silentLogger } from "../../shared/logger.ts";
import { createCa, issueAgentCertificate, issueCertificate, issueReplicaCertificate, type KeyPair } from "../../shared/pki.ts";
import { type ClusterLease, HOLDER_ADDRESS_ANNOTATION } from "../clusters/cluster-leases.ts";
import { leaseTime } from "../clusters/cluster-lease.ts";
import { ForwardedClusters } from "../status/forwarded-clusters.ts";
import { HandedClusters } from "../status/handed-clusters.ts";
import { removalReport } from "../status/removal-confirmation.ts";
import { StatusStore } from "../status/status-store.ts";
import { ReplicaCredentials } from "./peer-credentials.ts";
import { peerStatusService } from "./status-feed.ts";
import { StatusFollower } from "./status-follower.ts";

const WEB = "apps/v1/Deployment/shop/web";
const API = "apps/v1/Deployment/shop/api";
const report = (key: string, hash = "h1"): WorkStatus => ({ workKey: key, observedHash: hash, applied: true, available: true, reason: "", message: "", manifests: [], deleted: false });

async function until(what: string, ok: () => boolean, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A replica: its store, what it hears, what it hands over, its service on a port of its own. */
async function startReplica(ca: KeyPair, identity: string, heard: string[], opts: { leading?: boolean; graceMs?: number; holder?: () => string | undefined } = {}) {
  const statuses = new StatusStore();
  const back: string[] = [];
  const handed = new HandedClusters({ changed: (c) => back.push(c), graceMs: opts.graceMs ?? 5_000 });
  const hears = new Set(heard);
  const feed = peerStatusService({ identity, hears: (c) => hears.has(c), clusterNames: () => ["m1", "m2", "m3"], statuses, leading: () => opts.leading ?? false, leaseHolder: opts.holder ?? (() => "leader"), handed, log: silentLogger() });
  const serving = await issueCertificate(ca, { commonName: "flotilla-hub", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"], usage: "server" });
  const server = new Server();
  server.addService(PeerStatusService, feed.implementation as never);
  const creds = ServerCredentials.createSsl(Buffer.from(ca.certPem), [{ cert_chain: Buffer.from(serving.certPem), private_key: Buffer.from(serving.keyPem) }], true);
  const port = await new Promise<number>((resolve, reject) => server.bindAsync("127.0.0.1:0", creds, (e, p) => (e ? reject(e) : resolve(p))));
  return { statuses, handed, back, hears, feed, server, port, cut: () => server.forceShutdown(), stop: () => (feed.stop(), handed.stop(), server.forceShutdown()) };
}

const lease = (cluster: string, holder: string, port: number): ClusterLease => ({
  metadata: { name: cluster, annotations: { [HOLDER_ADDRESS_ANNOTATION]: `127.0.0.1:${port}` } },
  spec: { holderIdentity: holder, leaseDurationSeconds: 60, renewTime: leaseTime(Date.now()) },
});

/** The leader: its own store, fed through ForwardedClusters, following the replicas the leases name. */
function startLeader(ca: KeyPair, leases: ClusterLease[], opts: { maxPendingBytes?: number; now?: () => number } = {}) {
  const statuses = new StatusStore();
  const forwarded = new ForwardedClusters({ statuses, known: () => true, reported: () => undefined, changed: () => undefined });
  const follower = new StatusFollower({
    identity: "leader",
    credentials: new ReplicaCredentials({ caPem: ca.certPem, mint: (ms) => issueReplicaCertificate(ca, "leader", ms) }),
    leases: () => leases,
    holderOf: (c) => leases.find((l) => l.metadata.name === c)?.spec?.holderIdentity,
    streamsHere: () => false,
    leading: () => true,
    intake: forwarded,
    log: silentLogger(),
    ...opts,
  });
  return { statuses, forwarded, follower };
}

describe("PeerStatus.Follow between a replica and the leader", () => {
  let ca: KeyPair;
  const stops: (() => void)[] = [];
  before(async () => {
    ca = await createCa("test-ca");
  });
  after(() => {
    for (const s of stops) s();
  });

  /** A leader following the replica, once it took m1 and the replica handed it over. */
  const takingM1 = async (r: Awaited<ReturnType<typeof startReplica>>) => {
    const leader = startLeader(ca, [lease("m1", "r1", r.port)]);
    stops.push(r.stop, () => leader.follower.stop());
    await leader.follower.tick();
    await until("m1 taken", () => leader.forwarded.writesFor("m1") && leader.statuses.get(WEB).has("m1"));
    await until("the replica hands m1 over", () => r.handed.has("m1"));
    return leader;
  };

  it("the leader takes the replica's clusters from its snapshot, says so, and follows every change", async () => {
    const r1 = await startReplica(ca, "r1", ["m1", "m2"]);
    r1.statuses.set("m1", report(WEB));
    r1.statuses.set("m2", report(API));
    // m2's Lease still names another replica (the leader's cache lags): its reports wait, not taken.
    const leases = [lease("m1", "r1", r1.port), lease("m2", "r9", r1.port)];
    const leader = startLeader(ca, leases);
    stops.push(r1.stop, () => leader.follower.stop());
    await leader.follower.tick();
    await until("m1 taken", () => leader.forwarded.writesFor("m1"));
    assert.equal(leader.statuses.get(WEB).get("m1")?.observedHash, "h1", "the snapshot's report is the leader's");
    assert.equal(leader.forwarded.writesFor("m2"), false, "a replica speaks only for the clusters whose Lease it holds");
    assert.equal(leader.statuses.get(API).has("m2"), false);
    await until("the replica hands m1 over", () => r1.handed.has("m1"));
    assert.equal(r1.handed.has("m2"), false);

    // The Lease catches up: m2 is taken with what the replica sent before.
    leases[1] = lease("m2", "r1", r1.port);
    await leader.follower.tick();
    assert.equal(leader.statuses.get(API).get("m2")?.observedHash, "h1");
    await until("the replica hands m2 over", () => r1.handed.has("m2"));

    // Changes follow: a new report, a confirmed removal, a report forgotten there.
    r1.statuses.set("m1", report(WEB, "h2"));
    await until("the new report", () => leader.statuses.get(WEB).get("m1")?.observedHash === "h2");
    r1.statuses.set("m2", removalReport(API));
    await until("the removal", () => leader.statuses.get(API).get("m2")?.deleted === true);
    r1.statuses.forget(WEB, "m1");
    await until("the forgotten report", () => !leader.statuses.get(WEB).has("m1"));
    assert.ok(r1.feed.stats.reportsSent >= 5);
  });

  it("a stream that drops: the leader carries the clusters (forgetting their reports but removals), the replica writes them again after the grace", async () => {
    const r1 = await startReplica(ca, "r1", ["m1"], { graceMs: 300 });
    r1.statuses.set("m1", report(WEB));
    r1.statuses.set("m1", removalReport(API));
    const leader = await takingM1(r1);
    r1.cut(); // the stream fails (a network cut; a replica killed fails it the same way)
    await until("the leader lets go", () => leader.forwarded.counts().carried === 1);
    assert.equal(leader.forwarded.writesFor("m1"), true, "carried: the leader still writes m1's entry, as the binding says it");
    assert.equal(leader.statuses.get(WEB).has("m1"), false, "its report is not the leader's any more");
    assert.equal(leader.statuses.get(API).get("m1")?.deleted, true, "a removal its agent confirmed stays one");
    await until("m1 back to the replica", () => r1.back.includes("m1"));
    assert.equal(r1.handed.has("m1"), false);
    assert.equal(r1.statuses.get(WEB).get("m1")?.observedHash, "h1", "the replica still holds every report");
  });

  it("a replica dialled at an address its Lease names must be the replica the Lease names", async () => {
    const r2 = await startReplica(ca, "r2", ["m3"]);
    r2.statuses.set("m3", report(WEB));
    const leader = startLeader(ca, [lease("m3", "r1", r2.port)]);
    stops.push(r2.stop, () => leader.follower.stop());
    await leader.follower.tick();
    await until("the stream closed", () => leader.follower.stats.failed === 1);
    assert.equal(leader.forwarded.writesFor("m3"), false);
    assert.equal(r2.handed.has("m3"), false);
  });

  it("a leader that does not read holds back the replica: its backlog is one entry per (cluster, Work), and the latest report of each arrives", async () => {
    const r1 = await startReplica(ca, "r1", ["m1"]);
    stops.push(r1.stop);
    // More messages than the stream buffers (16) before write() says to wait.
    const keys = Array.from({ length: 20_000 }, (_, i) => `v1/ConfigMap/shop/c${i}`);
    for (const k of keys) r1.statuses.set("m1", report(k, "h0"));
    const pair = await issueReplicaCertificate(ca, "leader", 60_000);
    const client = new PeerStatusClient(`127.0.0.1:${r1.port}`, credentials.createSsl(Buffer.from(ca.certPem), Buffer.from(pair.keyPem), Buffer.from(pair.certPem)), { "grpc.ssl_target_name_override": "localhost", "grpc.max_receive_message_length": 8 * 1024 * 1024 });
    const call = client.follow(new Metadata());
    const latest = new Map<string, string>();
    let received = 0;
    let largest = 0;
    call.on("data", (u: { reports: { workKey: string; status?: WorkStatus }[] }) => {
      largest = Math.max(largest, u.reports.length);
      for (const r of u.reports) {
        received++;
        latest.set(r.workKey, r.status?.observedHash ?? "");
      }
    });
    call.on("error", () => undefined);
    call.write({ taken: [] });
    call.pause();
    await new Promise((r) => setTimeout(r, 300));
    for (const hash of ["h1", "h2", "h3"]) for (const k of keys) r1.statuses.set("m1", report(k, hash));
    const backlog = r1.feed.backlog();
    assert.ok(backlog > 0 && backlog <= keys.length + 1, `backlog ${backlog}: one per Work (and the snapshot's end)`);
    call.resume();
    await until("every Work's latest report", () => keys.every((k) => latest.get(k) === "h3"), 10_000);
    call.cancel();
    client.close();
    assert.ok(received < 2 * keys.length, `${received} reports for ${keys.length} Works changed 4 times: coalesced`);
    assert.ok(largest <= 500, `at most 500 reports a message (${largest})`);
  });

  it("refuses an agent's certificate, and a replica that leads refuses to be followed", async () => {
    const r1 = await startReplica(ca, "r1", ["m1"]);
    const leading = await startReplica(ca, "r3", ["m1"], { leading: true });
    stops.push(r1.stop, leading.stop);
    const agent = await issueAgentCertificate(ca, "member1", "uid-1");
    const replica = await issueReplicaCertificate(ca, "leader", 60_000);
    const follow = (port: number, pair: KeyPair) =>
      new Promise<ServiceError>((resolve) => {
        const client = new PeerStatusClient(`127.0.0.1:${port}`, credentials.createSsl(Buffer.from(ca.certPem), Buffer.from(pair.keyPem), Buffer.from(pair.certPem)), { "grpc.ssl_target_name_override": "localhost" });
        const call = client.follow(new Metadata());
        call.on("data", () => undefined);
        call.on("error", (err: ServiceError) => {
          client.close();
          resolve(err);
        });
        call.write({ taken: [] });
      });
    const refused = await follow(r1.port, agent);
    assert.equal(refused.code, 7, `PERMISSION_DENIED: ${refused.details}`);
    const leads = await follow(leading.port, replica);
    assert.equal(leads.code, 9, `FAILED_PRECONDITION: ${leads.details}`);
    assert.deepEqual([r1.feed.stats.refused, leading.feed.stats.refused], [1, 1]);
  });

  it("refuses a replica it does not see holding the leader Lease (a stale ex-leader, any control-plane certificate), and follows it once it sees it hold the Lease", async () => {
    let holder: string | undefined = "r9";
    const r1 = await startReplica(ca, "r1", ["m1"], { holder: () => holder });
    r1.statuses.set("m1", report(WEB));
    const leader = startLeader(ca, [lease("m1", "r1", r1.port)]);
    stops.push(r1.stop, () => leader.follower.stop());
    await leader.follower.tick();
    await until("refused", () => leader.follower.stats.failed === 1);
    assert.equal(r1.feed.stats.refused, 1);
    assert.equal(r1.feed.streams(), 0);
    assert.equal(leader.forwarded.writesFor("m1"), false, "nothing taken from a replica that refused");
    assert.equal(r1.handed.has("m1"), false, "the replica keeps writing m1's entries");
    // A new leader calls before this replica read its Lease: refused, retried with the leader's backoff, followed once seen.
    holder = undefined;
    leader.follower.start();
    await until("refused again (nobody seen)", () => r1.feed.stats.refused === 2);
    holder = "leader";
    await until("m1 taken", () => leader.forwarded.writesFor("m1") && leader.statuses.get(WEB).has("m1"), 10_000);
    await until("the replica hands m1 over", () => r1.handed.has("m1"));
  });

  it("a tick that runs before the election thread's word on the Lease (a long busy turn) does not end the holder's stream: judged again once the loop took the word", async () => {
    // The first look after `stale` is set sees nobody (an expired view); the word that the same
    // holder renewed has arrived by the check phase, as a worker's message does in the poll phase.
    let stale = false;
    let staleSeen = 0;
    const holder = () => {
      if (!stale) return "leader";
      stale = false;
      staleSeen++;
      return undefined;
    };
    const r1 = await startReplica(ca, "r1", ["m1"], { holder, graceMs: 60_000 });
    r1.statuses.set("m1", report(WEB));
    const leader = await takingM1(r1);
    stale = true;
    await until("a tick saw the stale view", () => staleSeen === 1, 3_000);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(r1.feed.stats.ended, 0, "the stream was judged again, and kept");
    assert.equal(r1.feed.streams(), 1);
    assert.equal(r1.handed.has("m1"), true, "m1 still handed to the leader");
    assert.equal(leader.forwarded.writesFor("m1"), true);
  });

  it("a leader that stops holding the Lease as the replica sees it: its stream ends, the replica writes its clusters again at once, the leader carries them", async () => {
    let holder: string | undefined = "leader";
    // A grace far longer than the test: m1 comes back because the say was withdrawn, not because it ran out.
    const r1 = await startReplica(ca, "r1", ["m1"], { holder: () => holder, graceMs: 60_000 });
    r1.statuses.set("m1", report(WEB));
    const leader = await takingM1(r1);
    holder = "r9"; // another replica took the Lease (the Lease expiring as this replica sees it is judged the same)
    await until("m1 back to the replica", () => r1.back.includes("m1") && !r1.handed.has("m1"), 3_000);
    assert.equal(r1.feed.stats.ended, 1);
    assert.equal(r1.feed.streams(), 0);
    await until("the leader lets go", () => leader.forwarded.counts().carried === 1);
    assert.equal(leader.forwarded.writesFor("m1"), true, "carried: the leader still writes m1's entry, as the binding says it");
    assert.equal(r1.statuses.get(WEB).get("m1")?.observedHash, "h1", "the replica still holds every report");
  });

  it("a replica that sends more bytes of reports than the leader keeps pending for it: dropped, counted, its stream closed, not dialled again for the longest backoff", async () => {
    const r1 = await startReplica(ca, "r1", ["m1"]);
    // m1's Lease names another replica (not followed: r1 holds m2): r1's reports of m1 wait, pending, and 40 of 4 KB pass a 64 KB bound.
    for (let i = 0; i < 40; i++) r1.statuses.set("m1", { ...report(`apps/v1/Deployment/shop/c${i}`), message: "x".repeat(4000) });
    let clock = Date.now();
    const leader = startLeader(ca, [{ ...lease("m1", "r9", r1.port), metadata: { name: "m1" } }, lease("m2", "r1", r1.port)], { maxPendingBytes: 64 * 1024, now: () => clock });
    stops.push(r1.stop, () => leader.follower.stop());
    await leader.follower.tick();
    await until("the stream closed", () => leader.follower.stats.failed === 1);
    assert.equal(leader.follower.stats.overPending, 1, "the report past the bound, then nothing more from the closed stream");
    assert.equal(leader.follower.streams, 0);
    assert.equal(leader.forwarded.writesFor("m1"), false);
    clock += 29_000;
    await leader.follower.tick();
    assert.equal(leader.follower.stats.opened, 1, "not dialled again within 30 s");
    clock += 1_001;
    await leader.follower.tick();
    assert.equal(leader.follower.stats.opened, 2, "dialled again after 30 s");
  });

  it("a replica that holds no Lease any more loses its backoff: none kept for replicas gone, and dialled at once if it comes back", async () => {
    // The replica refuses the leader (it sees another holding the leader Lease): a failure, with a backoff.
    const r1 = await startReplica(ca, "r1", ["m1"], { holder: () => "r9" });
    const clock = Date.now();
    const leases = [lease("m1", "r1", r1.port)];
    const leader = startLeader(ca, leases, { now: () => clock });
    stops.push(r1.stop, () => leader.follower.stop());
    await leader.follower.tick();
    await until("refused", () => leader.follower.stats.failed === 1);
    assert.equal(leader.follower.retrying, 1);
    leases.pop(); // its Lease went (the cluster moved, the replica's pod is gone)
    await leader.follower.tick();
    assert.equal(leader.follower.retrying, 0, "no backoff kept for a replica the plan does not name");
    leases.push(lease("m1", "r1", r1.port));
    await leader.follower.tick();
    assert.equal(leader.follower.stats.opened, 2, "dialled at once: the clock has not moved, an old backoff would have held it back");
  });
});
