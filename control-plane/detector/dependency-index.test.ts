import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../shared/api/types.ts";
import { type DependentObjectReference, InterpreterError, type KindInterpreter } from "../../shared/interpreter/interpreter.ts";
import { DependencyIndex } from "./dependency-index.ts";

const NS = "shop";
const KEY = "example.dev/v1/Widget/shop/w";
const widget = (resourceVersion: string, uid = "u1"): KubeObject => ({ apiVersion: "example.dev/v1", kind: "Widget", metadata: { name: "w", namespace: NS, uid, resourceVersion }, spec: {} });
const cm = (name: string): DependentObjectReference => ({ apiVersion: "v1", kind: "ConfigMap", namespace: NS, name });
const gadget = (name: string): DependentObjectReference => ({ apiVersion: "example.dev/v1", kind: "Gadget", namespace: NS, name });

/** A customization's GetDependencies that counts its runs and answers `answer()`. */
function script(answer: () => DependentObjectReference[]): KindInterpreter & { runs: number } {
  const s = {
    runs: 0,
    getDependencies: () => {
      s.runs += 1;
      return answer();
    },
  };
  return s;
}

const failing = (): DependentObjectReference[] => {
  throw new InterpreterError("InterpretDependency", "luaScript:2: boom");
};

describe("DependencyIndex", () => {
  it("runs the interpreter once per parent version", () => {
    const index = new DependencyIndex();
    const s = script(() => [cm("a")]);
    assert.deepEqual(index.refsOf(KEY, widget("1"), s), { refs: [cm("a")] });
    index.refsOf(KEY, widget("1"), s);
    assert.equal(s.runs, 1);
    index.refsOf(KEY, widget("2"), s);
    assert.equal(s.runs, 2, "a new resourceVersion is looked at again");
    index.refsOf(KEY, widget("2", "u2"), s);
    assert.equal(s.runs, 3, "so is a new uid (the template made again)");
  });

  it("asks again when the kind's customization changed (a new function), with the parent unchanged", () => {
    const index = new DependencyIndex();
    const before = script(() => [cm("a")]);
    index.refsOf(KEY, widget("1"), before);
    const after = script(() => [cm("b")]);
    assert.deepEqual(index.refsOf(KEY, widget("1"), after), { refs: [cm("b")] });
    assert.equal(after.runs, 1);
    assert.deepEqual(index.known(KEY), [cm("b")]);
  });

  it("a failing script keeps the last good answer and says why; fixed, it answers again", () => {
    const index = new DependencyIndex();
    index.refsOf(KEY, widget("1"), script(() => [cm("a")]));
    const broken = script(failing);
    assert.deepEqual(index.refsOf(KEY, widget("1"), broken), { refs: [cm("a")], interpreterFailed: "InterpretDependency: luaScript:2: boom" });
    assert.deepEqual(index.known(KEY), [cm("a")], "what it needed is kept");
    index.refsOf(KEY, widget("1"), broken);
    assert.equal(broken.runs, 1, "the failure is remembered for this version too");
    assert.deepEqual(index.refsOf(KEY, widget("1"), script(() => [cm("c")])), { refs: [cm("c")] });
  });

  it("a script that fails on first sight has nothing to keep", () => {
    const index = new DependencyIndex();
    assert.deepEqual(index.refsOf(KEY, widget("1"), script(failing)), { refs: [], interpreterFailed: "InterpretDependency: luaScript:2: boom" });
  });

  it("knows which kinds parents refer to, and says when that set changes", () => {
    let changes = 0;
    const index = new DependencyIndex(() => (changes += 1));
    const other = "example.dev/v1/Widget/shop/x";
    index.refsOf(KEY, widget("1"), script(() => [cm("a"), gadget("g")]));
    assert.equal(changes, 1);
    assert.deepEqual(index.kinds(), [
      { apiVersion: "v1", kind: "ConfigMap" },
      { apiVersion: "example.dev/v1", kind: "Gadget" },
    ]);
    index.refsOf(other, { ...widget("1"), metadata: { ...widget("1").metadata, name: "x" } }, script(() => [gadget("h")]));
    assert.equal(changes, 1, "a second parent of a known kind changes nothing");
    index.refsOf(KEY, widget("2"), script(() => [cm("b"), gadget("g")]));
    assert.equal(changes, 1, "the same kinds in a new answer change nothing");
    index.forget(KEY);
    assert.equal(changes, 2, "ConfigMap no longer referred to");
    assert.equal(index.refersToKind({ apiVersion: "v1", kind: "ConfigMap" }), false);
    assert.equal(index.refersToKind({ apiVersion: "example.dev/v1", kind: "Gadget" }), true, "the other parent still refers to Gadgets");
    index.forget(other);
    assert.deepEqual(index.kinds(), []);
    assert.equal(changes, 3);
  });
});
