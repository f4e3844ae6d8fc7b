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
