import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { removalReport } from "./removal-confirmation.ts";
import { Health, type ManifestStatus, type WorkStatus } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { StatusStore } from "./status-store.ts";

describe("StatusStore.keysOf", () => {
  it("the Works a cluster reported on, until they are dropped", () => {
    const store = new StatusStore();
    store.set("m1", removalReport("k1"));
    store.set("m1", removalReport("k2"));
    store.set("m2", removalReport("k1"));
    assert.deepEqual(store.keysOf("m1").sort(), ["k1", "k2"]);
    assert.deepEqual(store.keysOf("m2"), ["k1"]);
    store.drop("k1");
    assert.deepEqual(store.keysOf("m1"), ["k2"]);
    assert.deepEqual(store.keysOf("m2"), []);
    assert.deepEqual(store.keysOf("m3"), []);
  });
});

describe("StatusStore.forget", () => {
  it("forgets one cluster's report on a Work and nothing else", () => {
    const store = new StatusStore();
    store.set("m1", removalReport("k1"));
    store.set("m2", removalReport("k1"));
    store.forget("k1", "m1");
    assert.deepEqual([...store.get("k1").keys()], ["m2"]);
    assert.deepEqual(store.keysOf("m1"), []);
    store.forget("k1", "m2");
    assert.equal(store.get("k1").size, 0);
    store.forget("k9", "m1"); // nothing there: nothing happens
  });
});

describe("StatusStore.reportedAt", () => {
  it("is when a report last said something new, on this replica, and is forgotten with the report", async () => {
    const store = new StatusStore();
    assert.equal(store.reportedAt("k1", "m1"), undefined, "nothing heard");
    const before = Date.now();
    store.set("m1", removalReport("k1"));
    const first = store.reportedAt("k1", "m1") ?? 0;
    assert.ok(first >= before && first <= Date.now());
    await new Promise((r) => setTimeout(r, 5));
    assert.equal(store.set("m1", removalReport("k1")), false, "the same report says nothing new");
    assert.equal(store.reportedAt("k1", "m1"), first, "so its time stays");
    store.set("m2", removalReport("k1"));
    store.forget("k1", "m1");
    assert.equal(store.reportedAt("k1", "m1"), undefined, "forgotten with the cluster's report");
    assert.notEqual(store.reportedAt("k1", "m2"), undefined, "another cluster's stays");
    store.drop("k1");
    assert.equal(store.reportedAt("k1", "m2"), undefined, "dropped with the Work");
    store.set("m2", removalReport("k1"));
    assert.ok((store.reportedAt("k1", "m2") ?? 0) >= first, "a report after the drop is timed afresh, not from a stale entry");
  });
});

describe("StatusStore: a cluster's reports are held within its budget (--max-status-bytes-per-cluster)", () => {
  const manifest = (statusBytes: number, message = ""): ManifestStatus => ({
    resource: { group: "", version: "v1", kind: "ConfigMap", namespace: "default", name: "c" },
    applied: true,
    health: Health.HEALTH_HEALTHY,
    reason: "",
    message,
    status: Buffer.alloc(statusBytes),
  });
  const report = (key: string, statusBytes: number, manifests = 1, message = ""): WorkStatus => ({
    workKey: key,
    observedHash: "h",
    applied: true,
    available: true,
    reason: "",
    message,
    manifests: Array.from({ length: manifests }, () => manifest(statusBytes, message)),
    deleted: false,
  });

  it("keeps reports whole within the budget, and counts what they cost", () => {
    const store = new StatusStore({ maxBytesPerCluster: 10_000 });
    store.set("m1", report("k1", 4_000));
    store.set("m1", report("k2", 4_000));
    assert.equal(store.get("k2").get("m1")?.manifests[0]?.status.byteLength, 4_000);
    assert.ok(store.bytesOf("m1") >= 8_000 && store.bytesOf("m1") < 10_000, String(store.bytesOf("m1")));
    assert.equal(store.overBudgetReports, 0);
  });

  it("past the budget a report keeps its words and health, and its first object's status as far as an entry holds it; the rest goes, and it says why; other clusters are untouched", () => {
    const store = new StatusStore({ maxBytesPerCluster: 10_000 });
    store.set("m1", report("k1", 8_000));
    store.set("m1", report("k2", 8_000, 100, "x".repeat(4_000)));
    const kept = store.get("k2").get("m1");
    assert.equal(kept?.available, true);
    assert.equal(kept?.manifests.length, 16);
    assert.equal(kept?.manifests[0]?.status.byteLength, 8_000, "the template's object's status: what aggregation, rollouts and DNS read");
    assert.ok(kept?.manifests.slice(1).every((m) => m.status.byteLength === 0 && m.message.length <= 257));
    assert.match(kept?.message ?? "", /left out: this cluster's reports hold more than 10000 bytes/);
    assert.ok(store.bytesOf("m1") <= 8_000 + 8_000 + 16 * 400, String(store.bytesOf("m1")));
    store.set("m1", report("k3", 20_000));
    assert.equal(store.get("k3").get("m1")?.manifests[0]?.status.byteLength, 0, "past what an entry holds: left out too");
    assert.equal(store.overBudgetReports, 2);
    store.set("m2", report("k2", 8_000));
    assert.equal(store.get("k2").get("m2")?.manifests[0]?.status.byteLength, 8_000, "m2 has its own budget");
  });

  it("a report replaced, forgotten or dropped gives its bytes back", () => {
    const store = new StatusStore({ maxBytesPerCluster: 10_000 });
    store.set("m1", report("k1", 8_000));
    store.set("m1", report("k1", 1_000));
    assert.ok(store.bytesOf("m1") < 2_000, "the replaced report no longer counts");
    store.set("m1", report("k2", 8_000));
    assert.equal(store.get("k2").get("m1")?.manifests[0]?.status.byteLength, 8_000, "within budget again");
    store.forget("k2", "m1");
    store.drop("k1");
    assert.equal(store.bytesOf("m1"), 0);
  });
});
