import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LABELS, type ResourceBinding } from "../../shared/api/types.ts";
import { LostBindings } from "./lost-bindings.ts";

const KEY = "apps/v1/Deployment/shop/web";
const binding = (extra: { name?: string; uid?: string; released?: boolean } = {}): ResourceBinding => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "ResourceBinding",
  metadata: { name: extra.name ?? "web-deployment", namespace: "shop", ...(extra.released ? { annotations: { [LABELS.releasedBecause]: "DependencyReleased" } } : {}) },
  spec: { resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "shop", name: "web", uid: extra.uid ?? "t1" }, clusters: [{ name: "member1" }, { name: "member2" }] },
});

describe("LostBindings", () => {
  it("remembers a binding that left the cache, for the same template, until it is made again", () => {
    const lost = new LostBindings();
    lost.deleted(KEY, binding());
    assert.deepEqual(lost.of(KEY, "t1")?.spec.clusters, [{ name: "member1" }, { name: "member2" }]);
    assert.equal(lost.of(KEY, "t1")?.spec.clusters.length, 2, "asked again: still there");
    lost.forget(KEY);
    assert.equal(lost.of(KEY, "t1"), undefined);
    assert.equal(lost.size, 0);
  });
  it("a template made again under the name (another uid) gets nothing, and the old binding is forgotten", () => {
    const lost = new LostBindings();
    lost.deleted(KEY, binding());
    assert.equal(lost.of(KEY, "t2"), undefined);
    assert.equal(lost.size, 0);
  });
  const ignored: { name: string; b: ResourceBinding }[] = [
    { name: "released on purpose (DependencyReleased)", b: binding({ released: true }) },
    { name: "under an earlier version's name (moved)", b: binding({ name: "web-deployment-legacy" }) },
  ];
  for (const c of ignored) {
    it(`does not remember a binding ${c.name}`, () => {
      const lost = new LostBindings();
      lost.deleted(KEY, c.b);
      assert.equal(lost.of(KEY, "t1"), undefined);
    });
  }
});
