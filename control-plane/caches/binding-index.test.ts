import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PropagationPolicy } from "../../shared/api/types.ts";
import { BindingIndex, bindingPolicyId, policyId } from "./binding-index.ts";
import { bindingOf, keyOf } from "./binding-index.fixtures.ts";

describe("BindingIndex", () => {
  it("files a binding under its targets, evictions, status entries and policy", () => {
    const index = new BindingIndex();
    index.set(bindingOf({ name: "a", targets: ["m1", "m2"], evicting: ["m3"], reporting: ["m2", "m4"], policy: "p", policyNamespace: "default" }));
    index.set(bindingOf({ name: "b", targets: ["m2"], policy: "p", policyNamespace: "default" }));
    index.set(bindingOf({ name: "c", targets: ["m5"], policy: "p" }));
    assert.deepEqual(index.targeting("m2").sort(), [keyOf("a"), keyOf("b")]);
    assert.deepEqual(index.targeting("m3"), [keyOf("a")], "a cluster being evicted from still holds a copy");
    assert.deepEqual(index.evictingFrom("m3"), [keyOf("a")]);
    assert.deepEqual(index.evictingFrom("m1"), []);
    assert.deepEqual(index.targeting("m4"), [], "a status entry is not a target");
    assert.deepEqual(index.involving("m4"), [keyOf("a")]);
    assert.deepEqual(index.involving("m2").sort(), [keyOf("a"), keyOf("b")], "each key once");
    assert.equal(index.reportingCount("m2"), 1);
    assert.equal(index.reportingCount("m1"), 0);
    assert.deepEqual(index.placedBy("default/p").sort(), [keyOf("a"), keyOf("b")]);
    assert.deepEqual(index.placedBy("/p"), [keyOf("c")], "a cluster policy of the same name is another policy");
    assert.deepEqual(index.bindingsInvolving("m5").map((b) => b.metadata.name), ["c-deployment"]);
    assert.equal(index.size, 3);
  });

  it("an update refiles: what the binding no longer names forgets it", () => {
    const index = new BindingIndex();
    index.set(bindingOf({ name: "a", targets: ["m1"], reporting: ["m1"], policy: "p" }));
    index.set(bindingOf({ name: "a", targets: ["m2"], reporting: ["m1", "m2"], policy: "q" }));
    assert.deepEqual(index.targeting("m1"), []);
    assert.deepEqual(index.targeting("m2"), [keyOf("a")]);
    assert.deepEqual(index.involving("m1"), [keyOf("a")], "still reporting: it may hold the object");
    assert.deepEqual(index.placedBy("/p"), []);
    assert.deepEqual(index.placedBy("/q"), [keyOf("a")]);
    assert.equal(index.get(keyOf("a"))?.spec.clusters[0]?.name, "m2");
  });

  it("a delete forgets the key everywhere", () => {
    const index = new BindingIndex();
    const b = bindingOf({ name: "a", targets: ["m1"], evicting: ["m2"], reporting: ["m3"], policy: "p" });
    index.set(b);
    index.delete(b);
    for (const c of ["m1", "m2", "m3"]) assert.deepEqual(index.involving(c), []);
    assert.deepEqual(index.evictingFrom("m2"), []);
    assert.equal(index.reportingCount("m3"), 0);
    assert.deepEqual(index.placedBy("/p"), []);
    assert.equal(index.get(keyOf("a")), undefined);
    assert.equal(index.size, 0);
  });

  it("kinds: what bindings reference, and a version that moves only when that set does", () => {
    const index = new BindingIndex();
    const a = bindingOf({ name: "a", targets: ["m1"] });
    const b = bindingOf({ name: "b", targets: ["m1"] });
    index.set(a);
    const v = index.kindsVersion;
    index.set(b);
    index.set({ ...b, status: { aggregatedStatus: [{ clusterName: "m1", applied: true }] } });
    assert.equal(index.kindsVersion, v, "another binding of a known kind, or a status write, changes no kind");
    assert.deepEqual(index.kinds(), [{ apiVersion: "apps/v1", kind: "Deployment" }]);
    assert.deepEqual(index.ofKind({ apiVersion: "apps/v1", kind: "Deployment" }).sort(), [keyOf("a"), keyOf("b")]);
    index.delete(a);
    assert.equal(index.kindsVersion, v);
    index.delete(b);
    assert.notEqual(index.kindsVersion, v, "the last binding of a kind gone");
    assert.deepEqual(index.kinds(), []);
  });

  it("kinds: a dependency's requiredBy names its parents' templates, whose kind stays watched while it does (its parent's binding may be missing)", () => {
    const index = new BindingIndex();
    const parent = { apiVersion: "argoproj.io/v1alpha1", kind: "Rollout", namespace: "default", name: "web" };
    const dep = bindingOf({ name: "conf", targets: ["m1"] });
    const needed = { ...dep, spec: { ...dep.spec, requiredBy: [{ name: "web-rollout-1a2b3c4d", clusters: ["m1"], resource: parent }, { name: "old-entry", clusters: ["m1"] }] } };
    index.set(needed);
    assert.deepEqual(index.kinds(), [{ apiVersion: "apps/v1", kind: "Deployment" }, { apiVersion: "argoproj.io/v1alpha1", kind: "Rollout" }]);
    assert.deepEqual(index.ofKind({ apiVersion: "argoproj.io/v1alpha1", kind: "Rollout" }), [keyOf("conf")], "the dependency is looked at again when its parent's kind is watched");
    index.set({ ...needed, spec: { ...needed.spec, requiredBy: [] } });
    assert.deepEqual(index.kinds(), [{ apiVersion: "apps/v1", kind: "Deployment" }], "no longer named");
  });

  it("statusOnly: an update that changed nothing but the status", () => {
    const index = new BindingIndex();
    const b = bindingOf({ name: "a", targets: ["m1"] });
    b.metadata.generation = 1;
    index.set(b);
    assert.equal(index.statusOnly(keyOf("a")), false, "an add is not");
    index.set({ ...b, status: { aggregatedStatus: [{ clusterName: "m1", applied: true }] } });
    assert.equal(index.statusOnly(keyOf("a")), true);
    index.set({ ...b, metadata: { ...b.metadata, generation: 2 } });
    assert.equal(index.statusOnly(keyOf("a")), false, "a spec change bumps the generation");
    index.set({ ...b, metadata: { ...b.metadata, generation: 2, deletionTimestamp: "2026-11-23T10:00:00Z" } });
    assert.equal(index.statusOnly(keyOf("a")), false, "deletion");
    const noGeneration = bindingOf({ name: "c", targets: ["m1"] });
    index.set(noGeneration);
    index.set(bindingOf({ name: "c", targets: ["m2"] }));
    assert.equal(index.statusOnly(keyOf("c")), false, "without a generation the spec is compared");
    assert.equal(index.statusOnly(keyOf("nothing")), false);
  });

  it("a binding whose resource makes no key is skipped", () => {
    const index = new BindingIndex();
    const bad = bindingOf({ name: "a", targets: ["m1"] });
    bad.spec.resource.name = "";
    index.set(bad);
    index.delete(bad);
    assert.equal(index.size, 0);
  });

  it("lookups cost what they return, whatever the fleet (10,000 bindings over 1,000 clusters)", () => {
    const index = new BindingIndex();
    for (let i = 0; i < 10_000; i++) index.set(bindingOf({ name: `t${i}`, targets: [`m${i % 1000}`], policy: `p${i % 100}` }));
    assert.equal(index.targeting("m7").length, 10);
    assert.equal(index.placedBy("/p7").length, 100);
  });
});

describe("policyId", () => {
  const policy = (name: string, namespace?: string): PropagationPolicy => ({
    apiVersion: "flotilla.dev/v1alpha1",
    kind: namespace === undefined ? "ClusterPropagationPolicy" : "PropagationPolicy",
    metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
    spec: { resourceSelectors: [] },
  });
  const cases: { name: string; policy: PropagationPolicy; binding: Parameters<typeof bindingOf>[0] }[] = [
    { name: "a namespaced policy", policy: policy("p", "ns"), binding: { name: "a", policy: "p", policyNamespace: "ns" } },
    { name: "a cluster policy", policy: policy("p"), binding: { name: "a", policy: "p" } },
  ];
  for (const c of cases) it(`${c.name}: the binding's labels name it`, () => assert.equal(bindingPolicyId(bindingOf(c.binding)), policyId(c.policy)));
  it("a dependency's binding names no policy", () => assert.equal(bindingPolicyId(bindingOf({ name: "a" })), undefined));
});
