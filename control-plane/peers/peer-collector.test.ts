// The leader's collection over real mTLS, in process: what a replica serves reaches the leader;
// agents' certificates are refused; a replica that never answers costs only its own deadline.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { credentials, Metadata, Server, ServerCredentials, type ServiceError } from "@grpc/grpc-js";
import { PeerMetricsClient, PeerMetricsService } from "../../shared/gen/flotilla/v1alpha1/peer.ts";
import { silentLogger } from "../../shared/logger.ts";
import { createCa, issueAgentCertificate, issueCertificate, issueReplicaCertificate, type KeyPair } from "../../shared/pki.ts";
import type { WorkloadMetricsReport } from "../../shared/workload-metrics-wire.ts";
import { type ClusterLease, HOLDER_ADDRESS_ANNOTATION } from "../clusters/cluster-leases.ts";
import { leaseTime } from "../clusters/cluster-lease.ts";
import { PeerCollector } from "./peer-collector.ts";
import { ReplicaCredentials } from "./peer-credentials.ts";
import { peerMetricsService } from "./peer-service.ts";
import { SummaryLog } from "./summary-log.ts";

const WEB = "apps/v1/Deployment/shop/web";
const report: WorkloadMetricsReport = {
  workload: { apiVersion: "apps/v1", kind: "Deployment", namespace: "shop", name: "web" },
  key: WEB,
  wantedHash: "h1",
  windowStartMs: 0,
  windowEndMs: 0,
  problems: [],
  summary: { pods: 2, readyPods: 2, resources: { cpu: { readyPods: 2, readyUsage: 200n, readyRequests: 1000n, unreadyPods: 0, unreadyRequests: 0n, missingPods: 0, missingRequests: 0n, podsWithoutRequest: 0 } } },
};

describe("PeerCollector and the PeerMetrics service", () => {
  let ca: KeyPair;
  const servers: Server[] = [];
  let answering = 0;
  let silent = 0;
  const log = new SummaryLog("epoch-1");
  const serve = async (implementation: object): Promise<number> => {
    const serving = await issueCertificate(ca, { commonName: "flotilla-hub", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"], usage: "server" });
    const server = new Server();
    server.addService(PeerMetricsService, implementation as never);
    servers.push(server);
    const creds = ServerCredentials.createSsl(Buffer.from(ca.certPem), [{ cert_chain: Buffer.from(serving.certPem), private_key: Buffer.from(serving.keyPem) }], true);
    return new Promise((resolve, reject) => server.bindAsync("127.0.0.1:0", creds, (e, p) => (e ? reject(e) : resolve(p))));
  };
  before(async () => {
    ca = await createCa("test-ca");
    log.record("m1", report, Date.now() - 2000);
    answering = await serve(peerMetricsService({ log, maxAgeMs: 60_000, logger: silentLogger() }).implementation);
    // A replica that takes the call and never answers.
    silent = await serve({ collect: () => undefined });
  });
  after(() => {
    for (const s of servers) s.forceShutdown();
  });

  const lease = (cluster: string, holder: string, port: number): ClusterLease => ({
    metadata: { name: cluster, annotations: { [HOLDER_ADDRESS_ANNOTATION]: `127.0.0.1:${port}` } },
    spec: { holderIdentity: holder, leaseDurationSeconds: 60, renewTime: leaseTime(Date.now()) },
  });

  it("collects what another replica's agents sent, aged; a replica that never answers costs only its own deadline", async () => {
    const leases = [lease("m1", "r1", answering), lease("m2", "r2", silent)];
    const taken: [string, string, number][] = [];
    const collector = new PeerCollector({
      identity: "leader",
      credentials: new ReplicaCredentials({ caPem: ca.certPem, mint: (ms) => issueReplicaCertificate(ca, "leader", ms) }),
      leases: () => leases,
      holderOf: (c) => leases.find((l) => l.metadata.name === c)?.spec?.holderIdentity,
      wantedOf: () => new Map([[WEB, new Set(["cpu"])]]),
      take: (cluster, r, at) => taken.push([cluster, r.key, Date.now() - at]),
      log: silentLogger(),
      intervalMs: 60_000,
      timeoutMs: 500,
      maxAgeMs: 60_000,
      pageLimit: 100,
      maxPages: 5,
      maxResponseBytes: 1024 * 1024,
    });
    const started = Date.now();
    await collector.round();
    const tookMs = Date.now() - started;
    collector.stop();
    assert.equal(taken.length, 1);
    assert.deepEqual(taken[0]?.slice(0, 2), ["m1", WEB]);
    assert.ok((taken[0]?.[2] ?? 0) >= 2000, "the summary keeps its age");
    assert.ok(tookMs < 3000, `the round took ${tookMs} ms`);
    assert.equal(collector.stats.failed, 1, "the silent replica's call ran out of time");
    assert.equal(collector.stats.peers, 2);
  });

  it("refuses an agent's certificate (signed by the same CA)", async () => {
    const agent = await issueAgentCertificate(ca, "member1", "uid-1");
    const client = new PeerMetricsClient(`127.0.0.1:${answering}`, credentials.createSsl(Buffer.from(ca.certPem), Buffer.from(agent.keyPem), Buffer.from(agent.certPem)), { "grpc.ssl_target_name_override": "localhost" });
    const err = await new Promise<ServiceError | null>((resolve) => client.collect({ epoch: "", after: 0, limit: 10 }, new Metadata(), { deadline: Date.now() + 5000 }, (e) => resolve(e)));
    client.close();
    assert.equal(err?.code, 7, `PERMISSION_DENIED: ${err?.details}`);
    assert.match(err?.details ?? "", /control-plane replicas/);
  });
});
