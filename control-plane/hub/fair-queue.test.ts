import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FairQueue } from "./fair-queue.ts";

const drainOrder = (q: FairQueue<string>) => {
  const out: string[] = [];
  for (let x = q.shift(); x !== undefined; x = q.shift()) out.push(x);
  return out;
};

describe("FairQueue", () => {
  it("serves sources round-robin, each source's items in arrival order", () => {
    const q = new FairQueue<string>(100);
    for (const [s, x] of [["a", "a1"], ["a", "a2"], ["a", "a3"], ["b", "b1"], ["c", "c1"], ["b", "b2"]]) q.push(s as string, x as string);
    assert.equal(q.size, 6);
    assert.equal(q.peek(), "a1");
    assert.deepEqual(drainOrder(q), ["a1", "b1", "c1", "a2", "b2", "a3"]);
    assert.equal(q.size, 0);
  });

  it("full: the address holding the most loses its newest, so a newcomer from elsewhere gets in", () => {
    const q = new FairQueue<string>(4);
    for (let i = 1; i <= 4; i++) assert.equal(q.push("hostile", `h${i}`), undefined);
    assert.equal(q.push("hostile", "h5"), "h5", "its own address holds the most: the newcomer goes");
    assert.equal(q.push("agent", "a1"), "h4", "the hostile address's newest makes room");
    assert.equal(q.size, 4);
    assert.deepEqual(drainOrder(q), ["h1", "a1", "h2", "h3"]);
  });

  it("full with every address holding one: a newcomer from a new address is refused (no one holds more)", () => {
    const q = new FairQueue<string>(2);
    q.push("a", "a1");
    q.push("b", "b1");
    assert.equal(q.push("c", "c1"), "c1");
    assert.equal(q.push("a", "a2"), "a2");
  });

  it("drain takes everything", () => {
    const q = new FairQueue<string>(10);
    q.push("a", "a1");
    q.push("b", "b1");
    assert.deepEqual(q.drain().sort(), ["a1", "b1"]);
    assert.equal(q.size, 0);
    assert.equal(q.peek(), undefined);
    q.push("a", "a2");
    assert.equal(q.shift(), "a2");
  });
});
