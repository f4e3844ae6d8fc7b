import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { removalReport } from "./removal-confirmation.ts";
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
