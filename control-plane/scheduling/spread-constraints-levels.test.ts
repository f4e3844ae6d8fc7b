import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { levelCases } from "./spread-constraints.cases.fixtures.ts";
import { run, want } from "./spread-constraints.fixtures.ts";


describe("applySpreadConstraints: coarse to fine, cluster level, validation", () => {
  for (const c of levelCases) {
    it(c.name, () => {
      assert.deepEqual(run(c), want(c));
    });
  }
});
