import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { PriorityLanes } from "./priority-lanes.ts";

const drain = (l: PriorityLanes) => {
  const out: string[] = [];
  for (let k = l.shift(); k !== undefined; k = l.shift()) out.push(k);
  return out;
};

describe("PriorityLanes", () => {
  it("is a FIFO with one priority", () => {
    const l = new PriorityLanes();
    for (const k of ["a", "b", "c"]) l.push(k);
    assert.equal(l.length, 3);
    assert.deepEqual(drain(l), ["a", "b", "c"]);
    assert.equal(l.length, 0);
  });
  it("hands out higher priorities first, FIFO within each, negatives last", () => {
    const l = new PriorityLanes();
    l.push("low1", -5);
    l.push("zero1");
    l.push("high1", 1000);
    l.push("zero2", 0);
    l.push("high2", 1000);
    l.push("mid", 10);
    assert.deepEqual(drain(l), ["high1", "high2", "mid", "zero1", "zero2", "low1"]);
  });
  it("a key pushed while others wait takes its place by priority", () => {
    const l = new PriorityLanes();
    l.push("a");
    l.push("b");
    assert.equal(l.shift(), "a");
    l.push("urgent", 5);
    assert.deepEqual(drain(l), ["urgent", "b"]);
  });
  it("keeps order across many keys (its storage compacts)", () => {
    const l = new PriorityLanes();
    const keys = Array.from({ length: 5000 }, (_, i) => `k${i}`);
    for (const k of keys) l.push(k, 0);
    const got: string[] = [];
    for (let i = 0; i < 3000; i++) got.push(l.shift() as string);
    for (const k of ["x", "y"]) l.push(k, 0);
    got.push(...drain(l));
    assert.deepEqual(got, [...keys, "x", "y"]);
  });
});
