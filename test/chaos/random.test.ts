import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { seededRandom } from "./random.ts";

describe("seededRandom", () => {
  it("repeats itself for the same seed and differs for another", () => {
    const draw = (seed: number) => {
      const r = seededRandom(seed);
      return Array.from({ length: 20 }, () => r.int(1000));
    };
    assert.deepEqual(draw(42), draw(42));
    assert.notDeepEqual(draw(42), draw(43));
  });

  it("stays in range and reaches both ends", () => {
    const r = seededRandom(7);
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) {
      const v = r.between(3, 6);
      assert.ok(v >= 3 && v <= 6);
      seen.add(v);
      const f = r.next();
      assert.ok(f >= 0 && f < 1);
    }
    assert.deepEqual([...seen].sort(), [3, 4, 5, 6]);
  });

  it("gives a non-empty subset in order", () => {
    const r = seededRandom(1);
    for (let i = 0; i < 200; i++) {
      const s = r.subset(["a", "b", "c"]);
      assert.ok(s.length >= 1);
      assert.deepEqual(s, [...s].sort());
    }
    assert.throws(() => r.pick([]), /pick from nothing/);
  });
});
