import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type DeletionBudget, deletionAllowance, DeletionWindow } from "./deletion-brake.ts";

const budget: DeletionBudget = { percent: 50, min: 20, windowMs: 60_000 };

describe("deletionAllowance: max(min, percent of what the cluster held when the window began)", () => {
  const cases: { name: string; holding: number; sent: number; b?: Partial<DeletionBudget>; want: number }[] = [
    { name: "a small cluster gets the minimum", holding: 10, sent: 0, want: 20 },
    { name: "a large one half of what it holds", holding: 1000, sent: 0, want: 500 },
    { name: "what the window removed counts in the base (the base does not shrink as it deletes)", holding: 600, sent: 400, want: 500 },
    { name: "rounded down", holding: 101, sent: 0, b: { min: 0 }, want: 50 },
    { name: "100 percent turns the brake off", holding: 5, sent: 1000, b: { percent: 100 }, want: Number.POSITIVE_INFINITY },
    { name: "0 percent leaves the minimum only", holding: 1000, sent: 0, b: { percent: 0, min: 3 }, want: 3 },
  ];
  for (const c of cases) it(c.name, () => assert.equal(deletionAllowance(c.holding, c.sent, { ...budget, ...c.b }), c.want));
});

describe("DeletionWindow", () => {
  it("holds the deletion past the budget within the window, and allows again as the window slides", () => {
    let now = 0;
    const w = new DeletionWindow({ percent: 50, min: 3, windowMs: 60_000 }, () => now);
    // A cluster holding 4 objects: max(3, 50% of 4) = 3 deletions a window.
    let holding = 4;
    for (let i = 0; i < 3; i++) {
      assert.ok(w.allows(holding, `k${i}`), `deletion ${i + 1}`);
      w.record(`k${i}`);
      holding--;
      now += 1000;
    }
    assert.ok(!w.allows(holding, "k3"), "the fourth within 60 s is held");
    now = 60_500; // the first has left the window
    assert.ok(w.allows(holding, "k3"));
  });
  it("a key sent again within the window (its agent reconnected before it finished) counts once, and is always let through", () => {
    const w = new DeletionWindow({ percent: 50, min: 2, windowMs: 60_000 }, () => 0);
    for (const k of ["a", "b"]) {
      assert.ok(w.allows(0, k));
      w.record(k);
    }
    assert.ok(!w.allows(0, "c"), "a third key is past the budget");
    assert.ok(w.allows(0, "a"), "a is in the window already: sending it again costs nothing");
    w.record("a");
    assert.equal(w.used, 2);
  });
  it("is idle only once everything counted has left the window", () => {
    let now = 0;
    const w = new DeletionWindow({ percent: 50, min: 2, windowMs: 60_000 }, () => now);
    assert.ok(w.idle());
    w.record("a");
    now = 59_000;
    assert.ok(!w.idle());
    now = 60_001;
    assert.ok(w.idle());
  });
  it("an approval starts the window again", () => {
    const w = new DeletionWindow({ percent: 50, min: 1, windowMs: 60_000 }, () => 0);
    w.record("a");
    assert.ok(!w.allows(0, "b"));
    w.reset();
    assert.ok(w.allows(0, "b"));
  });
});
