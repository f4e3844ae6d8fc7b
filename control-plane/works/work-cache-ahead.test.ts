// Issue 42: a new binding's Works are rendered while it is written, from caches.bindingsAhead; a
// write that fails takes them out of the store again, which deletes nothing in any member (the
// hub judges a Work's absence by intent: control-plane/hub/deletion-intent.ts).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { KubeConfig } from "@kubernetes/client-node";
import type { Cluster, KubeObject, ResourceBinding } from "../../shared/api/types.ts";
import type { KubeRest } from "../../shared/kube-rest.ts";
import { silentLogger } from "../../shared/logger.ts";
import { parseWorkKey, templateKey } from "../../shared/work-key.ts";
import { deletionIntent } from "../hub/deletion-intent.ts";
import { Caches } from "../caches/caches.ts";
import { fakeInformers } from "../caches/fake-informer.fixtures.ts";
import { fakeTemplates } from "../detector/template-informers.fixtures.ts";
import { WorkCache } from "./work-cache.ts";
import { WorkStore } from "./work-store.ts";

const template: KubeObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "web", namespace: "default", uid: "u1" }, data: { v: "1" } };
const binding: ResourceBinding = {
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "ResourceBinding",
  metadata: { name: "web-configmap", namespace: "default" },
  spec: { resource: { apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "web", uid: "u1" }, clusters: [{ name: "m1" }, { name: "m2" }] },
};
const cluster = (name: string): Cluster => ({ apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name }, spec: {} });

function setup() {
  const fakes = fakeInformers();
  const caches = new Caches(new KubeConfig(), {} as KubeRest, silentLogger(), fakes.make);
  for (const c of ["m1", "m2"]) fakes.of<Cluster>("clusters").put(cluster(c));
  const works = new WorkStore();
  const cache = new WorkCache({ caches, templates: fakeTemplates([template]), works, log: silentLogger() });
  return { fakes, caches, works, cache, key: templateKey(template) };
}

describe("the work cache renders a new binding ahead of its write", () => {
  it("Works from the binding being written, the same once the informer holds it", () => {
    const { fakes, caches, works, cache, key } = setup();
    const write = caches.bindingsAhead.writing(key, binding);
    cache.reconcile(key);
    const ahead = ["m1", "m2"].map((c) => works.get(c, key)?.hash);
    assert.ok(ahead.every((h) => h !== undefined), "both clusters have their Work before the write lands");
    caches.bindingsAhead.written(key, write, "1", undefined);
    fakes.of<ResourceBinding>("resourcebindings").put({ ...binding, metadata: { ...binding.metadata, resourceVersion: "1" } });
    assert.equal(caches.bindingsAhead.get(key), undefined, "landed: the informer's binding rules from now on");
    cache.reconcile(key);
    assert.deepEqual(["m1", "m2"].map((c) => works.get(c, key)?.hash), ahead, "the same Works: nothing is sent again");
  });

  it("a failed write takes the Works out of the store (the members keep what they applied: absence is no intent)", () => {
    const { caches, works, cache, key } = setup();
    const write = caches.bindingsAhead.writing(key, binding);
    cache.reconcile(key);
    assert.ok(works.get("m1", key) !== undefined);
    caches.bindingsAhead.failed(key, write);
    cache.reconcile(key);
    assert.equal(works.get("m1", key), undefined);
    assert.equal(works.get("m2", key), undefined);
    // What the hub asks of each absent Work (hub/index.ts): no binding, the template lives: no intent, nothing deleted.
    for (const c of ["m1", "m2"]) {
      const intent = deletionIntent({ name: c, leaving: false, readyForMs: Number.POSITIVE_INFINITY }, caches.bindingOf(parseWorkKey(key)), { known: true, template }, 10_000);
      assert.equal(intent, undefined, `${c} would be told to delete what the failed write's Work applied: ${JSON.stringify(intent)}`);
    }
  });
});
