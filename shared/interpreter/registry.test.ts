import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../api/types.ts";
import type { KindInterpreter } from "./interpreter.ts";
import { nativeInterpreters } from "./native/index.ts";
import { InterpreterRegistry, mergeInterpreters } from "./registry.ts";

const obj = (apiVersion: string, kind: string): KubeObject => ({ apiVersion, kind, metadata: { name: "x" } });

describe("mergeInterpreters", () => {
  const first: KindInterpreter = { getReplicas: () => ({ replicas: 7 }), interpretHealth: () => false };
  const second: KindInterpreter = { getReplicas: () => ({ replicas: 1 }), reviseReplica: (o) => o, interpretHealth: () => true };
  it("takes each operation from the first that has it", () => {
    const m = mergeInterpreters(first, second);
    assert.equal(m.getReplicas?.(obj("v1", "X")).replicas, 7);
    assert.equal(m.interpretHealth?.(obj("v1", "X")), false);
    assert.equal(m.reviseReplica, second.reviseReplica);
    assert.equal(m.retain, undefined);
  });
});

describe("InterpreterRegistry", () => {
  it("answers with the native interpreter when no customization names the kind", () => {
    const r = new InterpreterRegistry();
    assert.equal(r.for(obj("batch/v1", "Job"))?.getReplicas?.({ ...obj("batch/v1", "Job"), spec: { parallelism: 3 } })?.replicas, 3);
    assert.equal(r.for(obj("example.com/v1", "Widget")), undefined);
  });

  it("a customization beats the native interpreter operation by operation, and a new set replaces the old", () => {
    const r = new InterpreterRegistry();
    r.setCustomizations(new Map([["apps/v1/Deployment", { interpretHealth: () => false }]]));
    const d = { ...obj("apps/v1", "Deployment"), spec: { replicas: 5 } };
    assert.equal(r.for(d)?.interpretHealth?.(d), false, "the customization's health");
    assert.equal(r.for(d)?.getReplicas?.(d).replicas, 5, "the native replicas");
    r.setCustomizations(new Map());
    assert.notEqual(r.for(d)?.interpretHealth, undefined);
    assert.equal(r.for(d)?.interpretHealth, nativeInterpreters.get("apps/v1/Deployment")?.interpretHealth, "the native health again");
  });

  it("a kind only a customization knows gets exactly its operations", () => {
    const r = new InterpreterRegistry();
    const widget: KindInterpreter = { getReplicas: (o) => ({ replicas: Number((o.spec as { size: number }).size) }) };
    r.setCustomizations(new Map([["example.com/v1/Widget", widget]]));
    assert.equal(r.for(obj("example.com/v1", "Widget")), widget);
  });
});
