import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { INTENT_LAG_MS, type IntentSnapshot, judgeDeletions, type ObservedDeletion, unintendedDeletions } from "./deletion-judge.ts";

const snap = (atMs: number, wanted: Record<string, string[]>): IntentSnapshot => ({ atMs, wanted: new Map(Object.entries(wanted).map(([k, v]) => [k, new Set(v)])) });
const del = (atMs: number, firstSeenMs: number, member = "m1", id = "ConfigMap/a"): ObservedDeletion => ({ atMs, member, id, firstSeenMs, how: "deleted" });

describe("unintendedDeletions", () => {
  const t0 = 1_000_000;
  const cases: { name: string; history: IntentSnapshot[]; deletion: ObservedDeletion; unintended: boolean }[] = [
    { name: "wanted all along: unintended", history: [snap(t0, { "ConfigMap/a": ["m1", "m2"] })], deletion: del(t0 + 10_000, t0 + 1_000), unintended: true },
    { name: "the template was deleted before: intended", history: [snap(t0, { "ConfigMap/a": ["m1"] }), snap(t0 + 5_000, {})], deletion: del(t0 + 6_000, t0 + 1_000), unintended: false },
    { name: "moved away from this cluster: intended", history: [snap(t0, { "ConfigMap/a": ["m1"] }), snap(t0 + 5_000, { "ConfigMap/a": ["m2"] })], deletion: del(t0 + 6_000, t0 + 1_000), unintended: false },
    { name: "moved away from another cluster only: unintended", history: [snap(t0, { "ConfigMap/a": ["m1", "m2"] }), snap(t0 + 5_000, { "ConfigMap/a": ["m1"] })], deletion: del(t0 + 6_000, t0 + 1_000), unintended: true },
    {
      name: "moved away and back, the agent late: intended",
      history: [snap(t0, { "ConfigMap/a": ["m1"] }), snap(t0 + 5_000, { "ConfigMap/a": ["m2"] }), snap(t0 + 6_000, { "ConfigMap/a": ["m1"] })],
      deletion: del(t0 + 20_000, t0 + 1_000),
      unintended: false,
    },
    {
      name: "an intent change after the deletion explains nothing",
      history: [snap(t0, { "ConfigMap/a": ["m1"] }), snap(t0 + 30_000, {})],
      deletion: del(t0 + 20_000, t0 + 1_000),
      unintended: true,
    },
    {
      name: "removed long before the copy was first seen, wanted since: unintended",
      history: [snap(t0, {}), snap(t0 + 1_000, { "ConfigMap/a": ["m1"] })],
      deletion: del(t0 + INTENT_LAG_MS + 60_000, t0 + INTENT_LAG_MS + 50_000),
      unintended: true,
    },
    { name: "before any operation nothing was wanted", history: [snap(t0 + 5_000, { "ConfigMap/a": ["m1"] })], deletion: del(t0 + 1_000, t0), unintended: false },
  ];
  for (const c of cases) {
    it(c.name, () => assert.equal(unintendedDeletions(c.history, [c.deletion]).length === 1, c.unintended));
  }
});

describe("judgeDeletions: a member namespace deleted by a fault", () => {
  const t0 = 1_000_000;
  const ns = { member: "m1", fromMs: t0 + 10_000, goneMs: t0 + 14_000 };
  const history = [snap(t0, { "ConfigMap/a": ["m1", "m2"], "ConfigMap/b": ["m1"] })];
  const judge = (deletions: ObservedDeletion[], present: (member: string, id: string) => boolean = () => true, h = history) => judgeDeletions(h, deletions, [ns], present);

  it("a copy that existed when its namespace was deleted, gone meanwhile: taken with the namespace, not unintended", () => {
    const d = del(t0 + 12_000, t0 + 1_000);
    assert.deepEqual(judge([d]), { unintended: [], withNamespace: [d], notBack: [] });
  });
  it("seen gone only by a relist long after, or replaced by a new copy: still the namespace's", () => {
    const late = { ...del(t0 + 60_000, t0 + 1_000), how: "gone-while-unwatched" as const };
    const recreated = { ...del(t0 + 20_000, t0 + 1_000, "m1", "ConfigMap/b"), how: "recreated" as const };
    assert.deepEqual(judge([late, recreated]).unintended, []);
  });
  it("the same copy on another member: unintended", () => {
    const d = del(t0 + 12_000, t0 + 1_000, "m2");
    assert.deepEqual(judge([d]).unintended, [d]);
  });
  it("deleted before the namespace's deletion was asked for: unintended", () => {
    const d = del(t0 + 9_000, t0 + 1_000);
    assert.deepEqual(judge([d]).unintended, [d]);
  });
  it("a copy first seen after the namespace was gone (the repair), deleted later: unintended", () => {
    const d = del(t0 + 30_000, t0 + 20_000);
    assert.deepEqual(judge([d]), { unintended: [d], withNamespace: [], notBack: [] });
  });
  it("a wanted copy that is not back at the end: not back, once", () => {
    const d = del(t0 + 12_000, t0 + 1_000);
    const again = { ...del(t0 + 13_000, t0 + 1_500), how: "recreated" as const };
    assert.deepEqual(judge([d, again], () => false).notBack, [d]);
  });
  it("one no longer wanted at the end need not come back", () => {
    const d = del(t0 + 12_000, t0 + 1_000, "m1", "ConfigMap/b");
    const h = [...history, snap(t0 + 20_000, { "ConfigMap/a": ["m1", "m2"] })];
    assert.deepEqual(judge([d], () => false, h), { unintended: [], withNamespace: [d], notBack: [] });
  });
});
