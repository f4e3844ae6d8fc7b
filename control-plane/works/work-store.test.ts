import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type Work, WorkStore } from "./work-store.ts";

const work = (hash: string, preserve?: boolean): Work => ({ key: "core/v1/ConfigMap/default/c", hash, manifests: [], conflictResolution: "Abort", ...(preserve === undefined ? {} : { preserveResourcesOnDeletion: preserve }) });

describe("WorkStore.set", () => {
  it("tells the cluster's session when preserveResourcesOnDeletion changes with the hash unchanged (the agent records it)", () => {
    const store = new WorkStore();
    const heard: string[] = [];
    store.subscribe("m1", (k) => heard.push(k));
    store.set("m1", work("h1"));
    store.set("m1", work("h1", false));
    assert.equal(heard.length, 1, "false and absent are the same");
    store.set("m1", work("h1", true));
    assert.equal(heard.length, 2);
    assert.equal(store.get("m1", "core/v1/ConfigMap/default/c")?.preserveResourcesOnDeletion, true);
    store.set("m1", work("h1", true));
    assert.equal(heard.length, 2, "nothing changed: nothing sent");
  });
});
