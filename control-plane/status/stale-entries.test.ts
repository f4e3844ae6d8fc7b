import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AggregatedStatusItem } from "../../shared/api/types.ts";
import { staleEntryPatch } from "./stale-entries.ts";

const item = (clusterName: string): AggregatedStatusItem => ({ clusterName, applied: false, reason: "WaitingForRemoval" });

describe("staleEntryPatch", () => {
  const cases: { name: string; after: string[]; owned: string[]; mine: string[]; want: string[] }[] = [
    { name: "the apply removed what it left out: nothing to do", after: ["a"], owned: ["a", "b"], mine: ["a"], want: [] },
    { name: "an entry of a cluster heard here, left out, still there: removed", after: ["a", "b"], owned: ["b"], mine: [], want: ["test 1 b", "remove 1"] },
    { name: "another replica's cluster is never touched", after: ["a", "b"], owned: ["a"], mine: ["a"], want: [] },
    { name: "several: from the end, so the indexes hold", after: ["a", "b", "c"], owned: ["a", "c"], mine: [], want: ["test 2 c", "remove 2", "test 0 a", "remove 0"] },
    { name: "an entry this replica just wrote stays", after: ["a"], owned: ["a"], mine: ["a"], want: [] },
    { name: "no entries", after: [], owned: ["a"], mine: [], want: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const ops = staleEntryPatch(c.after.map(item), new Set(c.owned), new Set(c.mine));
      const got = ops.map((o) => (o.op === "test" ? `test ${o.path.split("/")[3]} ${o.value}` : `remove ${o.path.split("/")[3]}`));
      assert.deepEqual(got, c.want);
    });
  }
});
