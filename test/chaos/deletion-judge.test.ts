import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { deletedByUser, INTENT_LAG_MS, type IntentSnapshot, judgeDeletions, type ObservedDeletion, unintendedDeletions, userCopiesGone } from "./deletion-judge.ts";
import type { UserObject } from "./object-faults.ts";

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

describe("users' own writes (issue 37)", () => {
  const t0 = 2_000_000;
  const recreate: UserObject = { member: "m1", id: "ConfigMap/a", uid: "u2", atMs: t0, how: "recreate" };
  const copy: UserObject = { member: "m2", id: "ConfigMap/a-usercopy9", uid: "c1", atMs: t0, how: "copy" };
  it("the copy a user deleted and applied again went at the user's hand: not Flotilla's deletion", () => {
    assert.equal(deletedByUser(del(t0 + 200, t0 - 50_000), [recreate]), true);
    assert.equal(deletedByUser(del(t0 + 200, t0 + 100), [recreate]), false, "the user's own new object, deleted later: not excused");
    assert.equal(deletedByUser(del(t0 + 60_000, t0 - 50_000), [recreate]), false, "long after: not the user's");
    assert.equal(deletedByUser(del(t0 + 200, t0 - 50_000, "m2"), [recreate]), false, "another member");
    assert.equal(deletedByUser(del(t0 + 200, t0 - 50_000), [copy]), false, "a copy deletes nothing");
    const wanted = [snap(t0 - 100_000, { "ConfigMap/a": ["m1"] })];
    assert.deepEqual(judgeDeletions(wanted, [del(t0 + 200, t0 - 50_000)], [], () => true, [recreate]).unintended, []);
    assert.equal(judgeDeletions(wanted, [del(t0 + 200, t0 - 50_000)], [], () => true, []).unintended.length, 1);
  });
  it("a user's copy must be in its member at the end as made: gone or another object, Flotilla took it", () => {
    assert.deepEqual(userCopiesGone([copy, recreate], () => "c1"), []);
    assert.deepEqual(userCopiesGone([copy, recreate], () => undefined), [copy], "only copies are checked");
    assert.deepEqual(userCopiesGone([copy], () => "other"), [copy]);
    assert.deepEqual(userCopiesGone([copy], () => undefined, [{ member: "m2", fromMs: t0 + 5_000, goneMs: t0 + 9_000 }]), [], "gone with its namespace, which a fault deleted");
    assert.deepEqual(userCopiesGone([copy], () => undefined, [{ member: "m2", fromMs: t0 - 5_000, goneMs: t0 - 1_000 }]), [copy], "a namespace deleted before the copy was made took nothing of it");
  });
});
