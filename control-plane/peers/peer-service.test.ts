// The Collect handler, called as grpc-js calls it: who may call it, paging by cursor and by size.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CollectResponse } from "../../shared/gen/flotilla/v1alpha1/peer.ts";
import { silentLogger } from "../../shared/logger.ts";
import { AGENT_ORGANIZATION, CONTROL_PLANE_ORGANIZATION } from "../../shared/pki.ts";
import type { WorkloadMetricsReport } from "../../shared/workload-metrics-wire.ts";
import { MAX_ANSWER_BYTES, peerMetricsService } from "./peer-service.ts";
import { SummaryLog } from "./summary-log.ts";

const T0 = 5_000_000;
const report = (name: string, problems: string[] = []): WorkloadMetricsReport => ({
  workload: { apiVersion: "apps/v1", kind: "Deployment", namespace: "shop", name },
  key: `apps/v1/Deployment/shop/${name}`,
  wantedHash: "h",
  windowStartMs: 0,
  windowEndMs: 0,
  problems,
  summary: { pods: 1, readyPods: 1 },
});

function collect(log: SummaryLog, subject: object, request: { epoch: string; after: number; limit: number }): Promise<{ err?: { code: number; details: string }; res?: CollectResponse }> {
  const service = peerMetricsService({ log, maxAgeMs: 60_000, logger: silentLogger(), now: () => T0 });
  const call = { request, getAuthContext: () => ({ sslPeerCertificate: { subject } }) };
  return new Promise((resolve) => service.implementation.collect(call as never, (err: unknown, res: unknown) => resolve(err ? { err: err as { code: number; details: string } } : { res: res as CollectResponse })));
}

describe("PeerMetrics.Collect", () => {
  const replica = { CN: "leader", O: CONTROL_PLANE_ORGANIZATION };

  it("answers a replica from its cursor, with each summary's age; another epoch starts from the beginning", async () => {
    const log = new SummaryLog("e1");
    log.record("m1", report("a"), T0 - 1500);
    log.record("m2", report("b"), T0);
    const first = await collect(log, replica, { epoch: "", after: 0, limit: 10 });
    assert.deepEqual(first.res?.summaries.map((s) => [s.cluster, s.metrics?.workload?.name, s.ageMs]), [["m1", "a", 1500], ["m2", "b", 0]]);
    assert.deepEqual([first.res?.epoch, first.res?.next, first.res?.more], ["e1", 2, false]);
    assert.equal((await collect(log, replica, { epoch: "e1", after: 2, limit: 10 })).res?.summaries.length, 0);
    assert.equal((await collect(log, replica, { epoch: "old", after: 2, limit: 10 })).res?.summaries.length, 2);
  });

  it("refuses an agent's certificate", async () => {
    const got = await collect(new SummaryLog("e1"), { CN: "member1", O: AGENT_ORGANIZATION }, { epoch: "", after: 0, limit: 10 });
    assert.equal(got.err?.code, 7);
  });

  it("cuts a page at MAX_ANSWER_BYTES; the rest follows from the cursor", async () => {
    const log = new SummaryLog("e1");
    const big = Array.from({ length: 8 }, () => "x".repeat(4000));
    for (let i = 0; i < 200; i++) log.record("m1", report(`w${i}`, big), T0);
    const first = (await collect(log, replica, { epoch: "", after: 0, limit: 1000 })).res;
    const n = first?.summaries.length ?? 0;
    assert.ok(n > 0 && n < 200, `${n} summaries in the first page`);
    assert.ok(n * 32_000 <= MAX_ANSWER_BYTES);
    assert.equal(first?.more, true);
    assert.equal(first?.next, n);
    const second = (await collect(log, replica, { epoch: "e1", after: first?.next ?? 0, limit: 1000 })).res;
    assert.equal(second?.summaries[0]?.metrics?.workload?.name, `w${n}`);
  });
});
