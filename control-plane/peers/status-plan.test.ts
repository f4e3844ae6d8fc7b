import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { WorkStatus } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import type { FollowUpdate } from "../../shared/gen/flotilla/v1alpha1/peer.ts";
import { admitReports, type FollowedReplica, listedClusters, MAX_LISTED_CLUSTERS, takenClusters, takeoverSteps } from "./status-plan.ts";

const KEY = "apps/v1/Deployment/shop/web";
const report = (key = KEY, extra: Partial<WorkStatus> = {}): WorkStatus => ({ workKey: key, observedHash: "h1", applied: true, available: true, reason: "", message: "", manifests: [], deleted: false, ...extra });

describe("takenClusters", () => {
  const holders = new Map([
    ["m1", "r1"],
    ["m2", "r1"],
    ["m3", "r2"],
    ["m4", "r2"],
  ]);
  const replica = (peer: string, heard: string[], o: Partial<FollowedReplica> = {}): FollowedReplica => ({ peer, live: true, snapshotDone: true, heard: new Set(heard), ...o });
  const cases: { name: string; replicas: FollowedReplica[]; streamsHere?: string[]; want: Record<string, string> }[] = [
    { name: "each replica's clusters, from the replica that holds their Lease", replicas: [replica("r1", ["m1", "m2"]), replica("r2", ["m3"])], want: { m1: "r1", m2: "r1", m3: "r2" } },
    { name: "a replica speaks only for clusters whose Lease it holds (the Lease lags, or the agent moved)", replicas: [replica("r1", ["m1", "m3"]), replica("r2", ["m3", "m4"])], want: { m1: "r1", m3: "r2", m4: "r2" } },
    { name: "nothing from a replica whose snapshot is not complete yet", replicas: [replica("r1", ["m1"], { snapshotDone: false }), replica("r2", ["m3"])], want: { m3: "r2" } },
    { name: "nothing from a stream that is not live", replicas: [replica("r1", ["m1"], { live: false })], want: {} },
    { name: "not a cluster whose agent streams to the leader itself", replicas: [replica("r1", ["m1", "m2"])], streamsHere: ["m2"], want: { m1: "r1" } },
    { name: "a cluster no Lease names is nobody's", replicas: [replica("r1", ["m9"])], want: {} },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const here = new Set(c.streamsHere ?? []);
      const got = takenClusters({ replicas: c.replicas, holderOf: (n) => holders.get(n), streamsHere: (n) => here.has(n) });
      assert.deepEqual(Object.fromEntries([...got].sort()), c.want);
    });
  }
});

describe("takeoverSteps", () => {
  const cases: { name: string; before: Record<string, string>; after: Record<string, string>; want: { release: [string, string][]; take: [string, string][] } }[] = [
    { name: "nothing changed", before: { m1: "r1" }, after: { m1: "r1" }, want: { release: [], take: [] } },
    { name: "a cluster taken", before: {}, after: { m1: "r1" }, want: { release: [], take: [["m1", "r1"]] } },
    { name: "a cluster released", before: { m1: "r1" }, after: {}, want: { release: [["m1", "r1"]], take: [] } },
    { name: "a cluster whose agent moved: released from one, taken from the other", before: { m1: "r1" }, after: { m1: "r2" }, want: { release: [["m1", "r1"]], take: [["m1", "r2"]] } },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(takeoverSteps(new Map(Object.entries(c.before)), new Map(Object.entries(c.after))), c.want));
});

describe("listedClusters", () => {
  it("keeps names within bounds, refuses a list too long", () => {
    assert.deepEqual([...(listedClusters(["m1", "", "x".repeat(254), "m2", "m1"]) ?? [])], ["m1", "m2"]);
    assert.equal(listedClusters(Array.from({ length: MAX_LISTED_CLUSTERS + 1 }, (_, i) => `m${i}`)), undefined);
  });
});

describe("admitReports", () => {
  const update = (reports: FollowUpdate["reports"]): FollowUpdate => ({ identity: "", clusters: undefined, reports, snapshotDone: false });
  const heard = new Set(["m1"]);
  const cases: { name: string; reports: FollowUpdate["reports"]; want: { kept: [string, string, boolean][]; outOfBounds: number; notHeard: number } }[] = [
    { name: "a report of a cluster the replica hears", reports: [{ cluster: "m1", workKey: KEY, status: report() }], want: { kept: [["m1", KEY, true]], outOfBounds: 0, notHeard: 0 } },
    { name: "its absence (forgotten there) is passed on as none", reports: [{ cluster: "m1", workKey: KEY, status: undefined }], want: { kept: [["m1", KEY, false]], outOfBounds: 0, notHeard: 0 } },
    { name: "not a cluster the replica does not say it hears", reports: [{ cluster: "m2", workKey: KEY, status: report() }], want: { kept: [], outOfBounds: 0, notHeard: 1 } },
    { name: "not a report about another Work than it says", reports: [{ cluster: "m1", workKey: KEY, status: report("v1/ConfigMap/shop/other") }], want: { kept: [], outOfBounds: 1, notHeard: 0 } },
    { name: "not one the hub's bounds refuse (a key that is no Work key)", reports: [{ cluster: "m1", workKey: "nonsense", status: report("nonsense") }], want: { kept: [], outOfBounds: 1, notHeard: 0 } },
    { name: "not an absurd cluster name", reports: [{ cluster: "x".repeat(300), workKey: KEY, status: report() }], want: { kept: [], outOfBounds: 1, notHeard: 0 } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = admitReports(update(c.reports), heard);
      assert.deepEqual({ kept: got.reports.map((r) => [r.cluster, r.key, r.status !== undefined]), outOfBounds: got.outOfBounds, notHeard: got.notHeard }, c.want);
    });
  }
  it("cuts a long message as the hub does", () => {
    const got = admitReports(update([{ cluster: "m1", workKey: KEY, status: report(KEY, { message: "x".repeat(10_000) }) }]), heard);
    assert.ok((got.reports[0]?.status?.message.length ?? 0) < 10_000);
  });
});
