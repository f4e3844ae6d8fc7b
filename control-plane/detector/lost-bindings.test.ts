import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type KubeObject, LABELS, type ResourceBinding } from "../../shared/api/types.ts";
import type { Informer, InformerHandlers } from "../../shared/informer.ts";
import { workKey } from "../../shared/work-key.ts";
import { LostBindings } from "./lost-bindings.ts";

const KEY = "apps/v1/Deployment/shop/web";
const binding = (extra: { name?: string; uid?: string; released?: boolean } = {}): ResourceBinding => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "ResourceBinding",
  metadata: { name: extra.name ?? "web-deployment", namespace: "shop", ...(extra.released ? { annotations: { [LABELS.releasedBecause]: "DependencyReleased" } } : {}) },
  spec: { resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "shop", name: "web", uid: extra.uid ?? "t1" }, clusters: [{ name: "member1" }, { name: "member2" }] },
  status: { aggregatedStatus: [{ clusterName: "member1", applied: true, health: "Unhealthy" }] },
});

describe("LostBindings", () => {
  it("remembers a binding that left the cache while its template lives, without its status, for the same template, until forgotten", () => {
    const lost = new LostBindings();
    lost.deleted(KEY, binding(), true);
    assert.deepEqual(lost.of(KEY, "t1")?.spec.clusters, [{ name: "member1" }, { name: "member2" }]);
    assert.equal(lost.of(KEY, "t1")?.status, undefined, "the agents report again: an old health never drives a failover");
    lost.forget(KEY);
    assert.equal(lost.of(KEY, "t1"), undefined);
    assert.equal(lost.size, 0);
  });
  it("a template made again under the name (another uid), or asked without a uid, gets nothing, and the old binding is forgotten", () => {
    const lost = new LostBindings();
    lost.deleted(KEY, binding(), true);
    assert.equal(lost.of(KEY, "t2"), undefined);
    assert.equal(lost.size, 0);
    lost.deleted(KEY, binding(), true);
    assert.equal(lost.of(KEY, undefined), undefined);
  });
  const ignored: { name: string; b: ResourceBinding; lives: boolean }[] = [
    { name: "released on purpose (DependencyReleased)", b: binding({ released: true }), lives: true },
    { name: "whose template is gone (deleted with it)", b: binding(), lives: false },
  ];
  for (const c of ignored) {
    it(`does not remember a binding ${c.name}, and forgets what it remembered of the template`, () => {
      const lost = new LostBindings();
      lost.deleted(KEY, binding(), true);
      lost.deleted(KEY, c.b, c.lives);
      assert.equal(lost.of(KEY, "t1"), undefined);
    });
  }
  it("a binding under an earlier version's name (moved) is not remembered, and leaves the current one's memory", () => {
    const lost = new LostBindings();
    lost.deleted(KEY, binding(), true);
    lost.deleted(KEY, binding({ name: "web-deployment-legacy" }), true);
    assert.ok(lost.of(KEY, "t1"));
  });
  it("is bounded: past its most, the oldest goes", () => {
    const lost = new LostBindings(2);
    for (const k of ["a", "b", "c"]) lost.deleted(k, binding(), true);
    assert.equal(lost.size, 2);
    assert.equal(lost.of("a", "t1"), undefined);
    assert.ok(lost.of("c", "t1"));
  });
  it("follows the informers: remembered on delete while the template lives or its kind has not listed, forgotten when the binding is added again, on every replica", () => {
    const handlers: InformerHandlers<ResourceBinding>[] = [];
    const informer = { on: (h: InformerHandlers<ResourceBinding>) => handlers.push(h) } as unknown as Informer<ResourceBinding>;
    const templates = new Map<string, KubeObject>([[KEY, { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: "shop", uid: "t1" } }]]);
    let listed = true;
    const lost = new LostBindings();
    lost.follow([informer], { get: (ref) => templates.get(workKey(ref)), watching: () => listed });
    for (const h of handlers) h.delete?.(binding());
    assert.ok(lost.of(KEY, "t1"));
    for (const h of handlers) h.add?.(binding());
    assert.equal(lost.of(KEY, "t1"), undefined, "made again (by whichever leader)");
    // Its kind not listed yet (a replica starting): not known gone, so remembered.
    const template = templates.get(KEY) as KubeObject;
    templates.delete(KEY);
    listed = false;
    for (const h of handlers) h.delete?.(binding());
    assert.ok(lost.of(KEY, "t1"), "not known gone: remembered");
    listed = true;
    for (const h of handlers) h.delete?.(binding());
    assert.equal(lost.of(KEY, "t1"), undefined, "its template known gone: intent, nothing to remember");
    templates.set(KEY, { ...template, metadata: { ...template.metadata, deletionTimestamp: "2026-12-01T00:00:00Z" } });
    for (const h of handlers) h.delete?.(binding());
    assert.equal(lost.of(KEY, "t1"), undefined, "its template being deleted: intent too");
  });
});
