// The leader's record of the clusters it writes for other replicas (issue 42), and the fault it
// exists for: a stream that drops must never leave a cluster's entry out of the leader's apply.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AggregatedStatusItem, Cluster } from "../../shared/api/types.ts";
import type { WorkStatus } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { aggregateStatus } from "./aggregate-status.ts";
import { clusterView, writesEntry } from "./cluster-view.ts";
import { ForwardedClusters } from "./forwarded-clusters.ts";
import { removalReport } from "./removal-confirmation.ts";
import { StatusStore } from "./status-store.ts";

const WEB = "apps/v1/Deployment/shop/web";
const API = "apps/v1/Deployment/shop/api";
const report = (key: string, hash = "h1"): WorkStatus => ({ workKey: key, observedHash: hash, applied: true, available: true, reason: "", message: "", manifests: [], deleted: false });

function setup(known: (cluster: string, key: string) => boolean = () => true) {
  const statuses = new StatusStore();
  const reported: string[] = [];
  const changed: string[] = [];
  const fwd = new ForwardedClusters({ statuses, known, reported: (k) => reported.push(k), changed: (c) => changed.push(c) });
  return { statuses, fwd, reported, changed };
}

describe("ForwardedClusters", () => {
  it("a taken cluster's snapshot replaces what the leader held for it (but a confirmed removal); its changes follow", () => {
    const { statuses, fwd, changed } = setup();
    statuses.set("m2", report(API, "stale")); // from when its agent streamed to the leader
    statuses.set("m2", removalReport("v1/ConfigMap/shop/old"));
    fwd.take("m2", [report(WEB)]);
    assert.equal(fwd.writesFor("m2"), true);
    assert.deepEqual(statuses.keysOf("m2").sort(), [WEB, "v1/ConfigMap/shop/old"]);
    fwd.report("m2", WEB, report(WEB, "h2"));
    assert.equal(statuses.get(WEB).get("m2")?.observedHash, "h2");
    fwd.report("m2", WEB, undefined);
    assert.equal(statuses.get(WEB).has("m2"), false, "forgotten there, forgotten here");
    assert.deepEqual(changed, ["m2"]);
  });

  it("a report for a cluster not taken is not the leader's to keep", () => {
    const { statuses, fwd } = setup();
    fwd.report("m2", WEB, report(WEB));
    assert.equal(statuses.get(WEB).has("m2"), false);
  });

  it("drops and counts reports about a Work the cluster does not have", () => {
    const { statuses, fwd } = setup((_c, key) => key === WEB);
    fwd.take("m2", [report(WEB), report("v1/ConfigMap/shop/made-up")]);
    assert.deepEqual(statuses.keysOf("m2"), [WEB]);
    assert.deepEqual(fwd.stats, { taken: 1, unknownWork: 1 });
  });

  it("a released cluster is carried: its forwarded reports are handed back and forgotten, but confirmed removals", () => {
    const { statuses, fwd, changed } = setup();
    fwd.take("m2", [report(WEB), removalReport(API)]);
    const back = fwd.release("m2", false);
    assert.deepEqual(back.map((r) => r.workKey).sort(), [API, WEB]);
    assert.deepEqual(statuses.keysOf("m2"), [API], "the agent's confirmation stays");
    assert.equal(fwd.writesFor("m2"), true, "still the leader's to write");
    assert.deepEqual(fwd.counts(), { taken: 0, carried: 1 });
    fwd.take("m2", [report(WEB)]);
    assert.deepEqual(fwd.counts(), { taken: 1, carried: 0 });
    assert.deepEqual(changed, ["m2", "m2", "m2"]);
  });

  it("a cluster released because its agent streams to the leader now keeps its reports and is not carried", () => {
    const { statuses, fwd } = setup();
    fwd.take("m2", [report(WEB)]);
    fwd.release("m2", true);
    assert.equal(fwd.writesFor("m2"), false);
    assert.equal(statuses.get(WEB).has("m2"), true);
  });

  // The fault: a deleting binding waits on m2 (its agent has not confirmed the removal), whose
  // reports the leader took from another replica, and the stream drops. Whatever the leader writes
  // next (m1's confirmation, say) must keep m2's entry: a missing report is not a removal.
  it("a follow stream that drops mid-deletion: the leader's next apply keeps the entry its finalizer waits on", () => {
    const { statuses, fwd } = setup();
    const waiting: AggregatedStatusItem = { clusterName: "m2", applied: false, reason: "WaitingForRemoval", message: "waiting for the agent to remove it" };
    fwd.take("m2", [report(WEB)]);
    fwd.release("m2", false);
    statuses.set("m1", removalReport(WEB));
    const cluster = (name: string): Cluster => ({ apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name }, spec: {}, status: { conditions: [{ type: "Ready", status: "True", reason: "", message: "", lastTransitionTime: "2026-12-01T00:00:00Z" }] } });
    const heardHere = (c: string) => writesEntry({ heard: c === "m1", leader: true, handed: false, forwarded: fwd.writesFor(c) });
    const view = clusterView({ names: ["m1", "m2"], clusterNamed: cluster, heardHere, leader: true });
    assert.deepEqual([...view.owned].sort(), ["m1", "m2"], "m2 stays the leader's to write");
    const entries = aggregateStatus({ targets: [], reports: statuses.get(WEB), persisted: [{ clusterName: "m1", applied: false, reason: "WaitingForRemoval" }, waiting], existingClusters: view.existing, notReady: view.notReady, deleting: true, owned: view.owned });
    assert.deepEqual(entries.map((e) => [e.clusterName, e.reason]), [["m2", "WaitingForRemoval"]], "m1 confirmed its removal; m2 still waits");
  });
});
