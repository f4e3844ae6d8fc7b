import assert from "node:assert/strict";
import { test } from "node:test";
import { leaseFigures } from "./lease-watch.ts";

const at = (s: number) => new Date(Date.parse("2026-11-25T01:00:00Z") + s * 1000).toISOString();

test("leaseFigures: gaps between distinct renewals, and no leader change while one holder renews", () => {
  const f = leaseFigures([0, 0, 2, 2, 4, 9, 11].map((s) => ({ holder: "a", renewTime: at(s), transitions: 0 })));
  assert.deepEqual(f, { renewals: 5, gapP99Ms: 5000, gapMaxMs: 5000, leaderChanges: 0 });
});

test("leaseFigures: a new holder, or the same one taking the lease again (a transition), is a leader change", () => {
  const f = leaseFigures([
    { holder: "a", renewTime: at(0), transitions: 0 },
    { holder: "", renewTime: at(0), transitions: 0 },
    { holder: "a", renewTime: at(20), transitions: 1 },
    { holder: "b", renewTime: at(40), transitions: 2 },
  ]);
  assert.equal(f.leaderChanges, 3);
  assert.equal(f.gapMaxMs, 20_000);
});

test("leaseFigures: one renewal has no gap", () => {
  assert.ok(Number.isNaN(leaseFigures([{ holder: "a", renewTime: at(0), transitions: 0 }]).gapMaxMs));
});
