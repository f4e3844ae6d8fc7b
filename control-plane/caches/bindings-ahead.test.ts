import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ResourceBinding } from "../../shared/api/types.ts";
import { BindingsAhead, MAX_AHEAD_MS } from "./bindings-ahead.ts";

const binding = { apiVersion: "flotilla.dev/v1alpha1", kind: "ResourceBinding", metadata: { name: "web-deployment", namespace: "default" }, spec: { resource: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, clusters: [{ name: "m1" }] } } as ResourceBinding;

describe("BindingsAhead", () => {
  it("holds a binding from its write until the informer holds it; a failed write tells the listeners again", () => {
    const ahead = new BindingsAhead(() => 0);
    const heard: string[] = [];
    ahead.onChange((k) => heard.push(k));
    ahead.writing("k", binding);
    assert.equal(ahead.get("k"), binding);
    assert.deepEqual(heard, ["k"], "the Works render at once");
    ahead.landed("k");
    assert.equal(ahead.get("k"), undefined);
    assert.deepEqual(heard, ["k"], "the informer's own event renders them next");
    ahead.writing("k", binding);
    ahead.failed("k");
    assert.equal(ahead.get("k"), undefined);
    assert.deepEqual(heard, ["k", "k", "k"], "a failed write renders them again from the informer");
    ahead.failed("k");
    assert.equal(heard.length, 3, "nothing held, nothing to tell");
  });

  it("a write whose watch event never came is rendered from no longer than MAX_AHEAD_MS", () => {
    let now = 0;
    const ahead = new BindingsAhead(() => now);
    ahead.writing("k", binding);
    now = MAX_AHEAD_MS;
    assert.equal(ahead.get("k"), binding);
    now = MAX_AHEAD_MS + 1;
    assert.equal(ahead.get("k"), undefined);
  });
});
