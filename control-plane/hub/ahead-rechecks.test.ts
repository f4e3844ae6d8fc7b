// Issue 42: absences the hub kept while a binding was written ahead of the informer are judged again once it is not.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ResourceBinding } from "../../shared/api/types.ts";
import { BindingsAhead } from "../caches/bindings-ahead.ts";
import { AheadRechecks } from "./ahead-rechecks.ts";

const binding = (resourceVersion?: string) =>
  ({ apiVersion: "flotilla.dev/v1alpha1", kind: "ResourceBinding", metadata: { name: "web-configmap", namespace: "default", ...(resourceVersion === undefined ? {} : { resourceVersion }) }, spec: { resource: { apiVersion: "v1", kind: "ConfigMap", name: "web" }, clusters: [{ name: "m1" }] } }) as ResourceBinding;
const tick = () => new Promise((r) => setImmediate(r));

describe("AheadRechecks", () => {
  it("keeps a cluster's absence only while the key is ahead, and judges each kept one again once, when the entry ends", async () => {
    const ahead = new BindingsAhead(() => 0);
    const rechecked: [string, string][] = [];
    const rechecks = new AheadRechecks(ahead, (cluster, key) => rechecked.push([cluster, key]));
    assert.equal(rechecks.keeps("m1", "k"), false, "not ahead: judged as ever");
    const w = ahead.writing("k", binding());
    assert.equal(rechecks.keeps("m1", "k"), true);
    assert.equal(rechecks.keeps("m2", "k"), true);
    assert.equal(rechecks.keeps("m1", "k"), true);
    assert.equal(rechecks.keeps("m1", "other"), false);
    ahead.written("k", w, "3", undefined);
    await tick();
    assert.deepEqual(rechecked, [], "still ahead until the informer shows the write");
    ahead.landed("k", binding("3"));
    await tick();
    assert.deepEqual(rechecked.sort(), [["m1", "k"], ["m2", "k"]], "each cluster once");
    assert.equal(rechecks.size, 0, "nothing left remembered");
    // Another key that ended without any kept absence: nothing to judge.
    const w2 = ahead.writing("quiet", binding());
    ahead.failed("quiet", w2);
    await tick();
    assert.equal(rechecked.length, 2);
  });
});
