import assert from "node:assert/strict";
import { it } from "node:test";
import { parseDuration } from "./duration.ts";

const good: [string, number][] = [["0", 0], ["500ms", 500], ["30s", 30_000], ["1m30s", 90_000], ["2h", 7_200_000], ["1.5s", 1500]];
for (const [text, ms] of good) it(`parses ${text}`, () => assert.equal(parseDuration(text), ms));
for (const bad of ["", "30", "s", "-1s", "1d", "1s x"]) {
  it(`refuses ${JSON.stringify(bad)}`, () => assert.throws(() => parseDuration(bad), /invalid duration/));
}
