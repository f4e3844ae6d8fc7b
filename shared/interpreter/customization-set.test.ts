import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CustomizationRules, ResourceInterpreterCustomization } from "../api/customization.ts";
import type { KubeObject } from "../api/types.ts";
import type { KindInterpreter } from "./interpreter.ts";
import { changedKinds, customizationDigests, interpretersByKind, joinDependencies } from "./customization-set.ts";

const ric = (name: string, kind: string, customizations: CustomizationRules, deleting = false): ResourceInterpreterCustomization => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "ResourceInterpreterCustomization",
  metadata: { name, ...(deleting ? { deletionTimestamp: "2026-11-24T00:00:00Z" } : {}) },
  spec: { target: { apiVersion: "example.com/v1", kind }, customizations },
});
/** A compiler whose functions say which script answered: the script text itself. */
const compile = (rules: CustomizationRules): KindInterpreter => ({
  ...(rules.replicaResource ? { getReplicas: () => ({ replicas: Number(rules.replicaResource?.luaScript) }) } : {}),
  ...(rules.healthInterpretation ? { interpretHealth: () => rules.healthInterpretation?.luaScript === "true" } : {}),
  ...(rules.dependencyInterpretation
    ? { getDependencies: () => (rules.dependencyInterpretation?.luaScript ?? "").split(",").map((name) => ({ apiVersion: "v1", kind: "ConfigMap", namespace: "ns", name })) }
    : {}),
});
const widget: KubeObject = { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" } };

describe("interpretersByKind", () => {
  it("takes each operation from the first customization by name that gives it a script", () => {
    const byKind = interpretersByKind([ric("b", "Widget", { replicaResource: { luaScript: "5" } }), ric("a", "Widget", { replicaResource: { luaScript: "3" }, healthInterpretation: { luaScript: "true" } })], compile);
    const w = byKind.get("example.com/v1/Widget");
    assert.equal(w?.getReplicas?.(widget).replicas, 3, "a before b");
    assert.equal(w?.interpretHealth?.(widget), true);
  });

  it("joins every customization's dependencies, sorted and without duplicates", () => {
    const byKind = interpretersByKind([ric("a", "Widget", { dependencyInterpretation: { luaScript: "z,x" } }), ric("b", "Widget", { dependencyInterpretation: { luaScript: "x,y" } })], compile);
    assert.deepEqual(byKind.get("example.com/v1/Widget")?.getDependencies?.(widget).map((d) => d.name), ["x", "y", "z"]);
  });

  it("an empty script customizes nothing; a customization being deleted counts no more; kinds stay apart", () => {
    const byKind = interpretersByKind(
      [ric("a", "Widget", { replicaResource: { luaScript: "  " } }), ric("b", "Widget", { replicaResource: { luaScript: "2" } }, true), ric("c", "Gadget", { replicaResource: { luaScript: "7" } })],
      compile,
    );
    assert.equal(byKind.has("example.com/v1/Widget"), false);
    assert.equal(byKind.get("example.com/v1/Gadget")?.getReplicas?.({ ...widget, kind: "Gadget" }).replicas, 7);
  });
});

describe("joinDependencies", () => {
  it("orders by apiVersion, kind, namespace, name", () => {
    const d = (apiVersion: string, kind: string, name: string) => ({ apiVersion, kind, namespace: "ns", name });
    assert.deepEqual(joinDependencies([[d("v1", "Secret", "b"), d("v1", "ConfigMap", "b")], [d("apps/v1", "X", "a"), d("v1", "ConfigMap", "b")]]), [d("apps/v1", "X", "a"), d("v1", "ConfigMap", "b"), d("v1", "Secret", "b")]);
  });
});

describe("customizationDigests and changedKinds", () => {
  it("names the kinds added, removed or changed, and no other", () => {
    const before = customizationDigests([ric("a", "Widget", { replicaResource: { luaScript: "1" } }), ric("b", "Gadget", { replicaResource: { luaScript: "1" } })]);
    const after = customizationDigests([ric("a", "Widget", { replicaResource: { luaScript: "2" } }), ric("c", "Thing", { replicaResource: { luaScript: "1" } }), ric("b", "Gadget", { replicaResource: { luaScript: "1" } })]);
    assert.deepEqual(changedKinds(before, after), ["example.com/v1/Thing", "example.com/v1/Widget"]);
    assert.deepEqual(changedKinds(after, after), []);
  });
});
