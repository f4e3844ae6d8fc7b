import { test } from "node:test";
import assert from "node:assert/strict";
import type { RolloutState } from "../../shared/api/types.ts";
import { rolloutStatePatch } from "./state-patch.ts";

const base: RolloutState = { revision: "b", stableRevision: "a", phase: "Paused", paused: true, message: "paused by a user", clusters: [{ name: "m1", revision: "b", phase: "Updating", since: "2026-01-01T00:00:00.000Z" }] };

test("rolloutStatePatch", async (t) => {
  const cases: { name: string; previous: RolloutState | undefined; next: RolloutState | undefined; want: unknown }[] = [
    { name: "first state: set whole", previous: undefined, next: base, want: { ...base } },
    {
      name: "fields the new state drops are sent as null (a merge patch would keep them)",
      previous: base,
      next: { revision: "b", stableRevision: "a", phase: "Progressing", clusters: base.clusters },
      want: { revision: "b", stableRevision: "a", phase: "Progressing", clusters: base.clusters, paused: null, message: null },
    },
    { name: "no state: removed", previous: base, next: undefined, want: null },
  ];
  for (const c of cases) {
    await t.test(c.name, () => {
      const patch = rolloutStatePatch("42", c.previous, c.next);
      assert.deepEqual(patch.metadata, { resourceVersion: "42" });
      assert.deepEqual(patch.status.rollout, c.want);
    });
  }
});
