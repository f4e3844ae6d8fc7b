import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { INTENT_LAG_MS, type IntentSnapshot, type ObservedDeletion, unintendedDeletions } from "./deletion-judge.ts";

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
