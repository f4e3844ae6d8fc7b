import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { WorkloadMetrics } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import type { CollectResponse } from "../../shared/gen/flotilla/v1alpha1/peer.ts";
import { type ClusterLease, HOLDER_ADDRESS_ANNOTATION } from "../clusters/cluster-leases.ts";
import { leaseTime } from "../clusters/cluster-lease.ts";
import { nextRequest, peersToAsk, takePage } from "./peer-plan.ts";

const NOW = Date.parse("2026-11-24T12:00:00Z");
const lease = (cluster: string, holder: string, address: string | undefined, renewedAgoMs = 1000, durationSeconds = 40): ClusterLease => ({
  metadata: { name: cluster, ...(address === undefined ? {} : { annotations: { [HOLDER_ADDRESS_ANNOTATION]: address } }) },
  spec: { holderIdentity: holder, leaseDurationSeconds: durationSeconds, renewTime: leaseTime(NOW - renewedAgoMs) },
});

describe("peersToAsk", () => {
  const cases: { name: string; leases: ClusterLease[]; want: [string, string][] }[] = [
    { name: "no leases: nobody", leases: [], want: [] },
    { name: "clusters held here: nobody to ask", leases: [lease("m1", "me", "10.0.0.1:9443")], want: [] },
    {
      name: "each other holder once, at its address",
      leases: [lease("m1", "me", "10.0.0.1:9443"), lease("m2", "r1", "10.0.0.2:9443"), lease("m3", "r1", "10.0.0.2:9443"), lease("m4", "r2", "10.0.0.3:9443")],
      want: [["r1", "10.0.0.2:9443"], ["r2", "10.0.0.3:9443"]],
    },
    { name: "an expired lease: its holder hears nobody", leases: [lease("m2", "r1", "10.0.0.2:9443", 60_000, 40)], want: [] },
    { name: "a holder that names no address (an older replica): not asked", leases: [lease("m2", "r1", undefined)], want: [] },
    { name: "two addresses for one holder (it restarted elsewhere): the newest renewal's", leases: [lease("m2", "r1", "10.0.0.2:9443", 9000), lease("m3", "r1", "10.0.0.9:9443", 1000)], want: [["r1", "10.0.0.9:9443"]] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual([...peersToAsk(c.leases, "me", NOW)].sort(), c.want));
});

const metrics = (name: string, o: Partial<WorkloadMetrics> = {}): WorkloadMetrics => ({
  workload: { apiVersion: "apps/v1", kind: "Deployment", namespace: "shop", name },
  wantedHash: "h1",
  pods: 2,
  readyPods: 2,
  resources: [{ key: "cpu", readyPods: 2, readyUsage: "200", readyRequests: "1000", unreadyPods: 0, unreadyRequests: "0", missingPods: 0, missingRequests: "0", podsWithoutRequest: 0 }],
  podsMetrics: [],
  objectMetrics: [],
  externalMetrics: [],
  windowStartMs: 0,
  windowEndMs: 0,
  problems: [],
  ...o,
});

describe("takePage", () => {
  const wanted = new Map([["apps/v1/Deployment/shop/web", new Set(["cpu"])]]);
  const holders: Record<string, string> = { m1: "r1", m2: "r2" };
  const take = (summaries: CollectResponse["summaries"]) =>
    takePage({ peer: "r1", response: { epoch: "e1", next: 7, more: false, summaries }, holderOf: (c) => holders[c], wantedOf: (c) => (c === "m1" || c === "m2" ? wanted : undefined), now: NOW, maxAgeMs: 60_000 });
  const cases: { name: string; summaries: CollectResponse["summaries"]; taken: string[]; dropped: Partial<Record<string, number>> }[] = [
    { name: "a summary for a cluster the replica holds, of a wanted workload: taken, aged", summaries: [{ cluster: "m1", metrics: metrics("web"), ageMs: 2500 }], taken: ["m1 apps/v1/Deployment/shop/web 2500"], dropped: {} },
    { name: "a cluster another replica holds: dropped", summaries: [{ cluster: "m2", metrics: metrics("web"), ageMs: 0 }], taken: [], dropped: { notHolder: 1 } },
    { name: "a cluster nobody holds: dropped", summaries: [{ cluster: "m9", metrics: metrics("web"), ageMs: 0 }], taken: [], dropped: { notHolder: 1 } },
    { name: "a workload the leader does not want: dropped", summaries: [{ cluster: "m1", metrics: metrics("api"), ageMs: 0 }], taken: [], dropped: { notWanted: 1 } },
    { name: "out of the hub's bounds (more ready pods than pods): dropped", summaries: [{ cluster: "m1", metrics: metrics("web", { readyPods: 9 }), ageMs: 0 }], taken: [], dropped: { outOfBounds: 1 } },
    { name: "a quantity that is no integer: dropped", summaries: [{ cluster: "m1", metrics: metrics("web", { objectMetrics: [{ key: "cpu", value: "1e9" }] }), ageMs: 0 }], taken: [], dropped: { outOfBounds: 1 } },
    { name: "older than the FederatedHPA reads: dropped", summaries: [{ cluster: "m1", metrics: metrics("web"), ageMs: 60_001 }], taken: [], dropped: { tooOld: 1 } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = take(c.summaries);
      assert.deepEqual(got.taken.map((t) => `${t.cluster} ${t.report.key} ${NOW - t.at}`), c.taken);
      assert.deepEqual(got.dropped, { notHolder: 0, notWanted: 0, outOfBounds: 0, tooOld: 0, ...c.dropped });
      assert.deepEqual(got.cursor, { epoch: "e1", after: 7 });
    });
  }
  it("leaves unwanted metric keys out", () => {
    const extra = metrics("web", { resources: [...metrics("web").resources, { key: "memory", readyPods: 2, readyUsage: "1", readyRequests: "1", unreadyPods: 0, unreadyRequests: "0", missingPods: 0, missingRequests: "0", podsWithoutRequest: 0 }] });
    assert.deepEqual(Object.keys(take([{ cluster: "m1", metrics: extra, ageMs: 0 }]).taken[0]?.report.summary.resources ?? {}), ["cpu"]);
  });
});

describe("nextRequest", () => {
  it("from the start for a replica not asked before, else after the last cursor", () => {
    assert.deepEqual(nextRequest(undefined, 100), { epoch: "", after: 0, limit: 100 });
    assert.deepEqual(nextRequest({ epoch: "e1", after: 7 }, 100), { epoch: "e1", after: 7, limit: 100 });
  });
});
