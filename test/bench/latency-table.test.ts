import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { shows } from "./latency-sightings.ts";
import { formatTable, quantile } from "./latency-table.ts";

describe("quantile (nearest rank)", () => {
  const cases: [number[], number, number][] = [
    [[], 0.5, Number.NaN],
    [[7], 0.99, 7],
    [[3, 1, 2], 0.5, 2],
    [[1, 2, 3, 4], 0.5, 2],
    [Array.from({ length: 100 }, (_, i) => 100 - i), 0.99, 99],
    [Array.from({ length: 100 }, (_, i) => i + 1), 0.5, 50],
  ];
  for (const [xs, q, want] of cases) it(`q=${q} of ${xs.length} values → ${want}`, () => assert.deepEqual(quantile(xs, q), want));
});

describe("formatTable", () => {
  it("prints p50, p99, their ratios, samples and misses; — where a side has none", () => {
    const lines = formatTable([
      { phase: "idle", op: "create", measured: [40, 60], baseline: [10, 20], measuredMissed: 1, baselineMissed: 0 },
      { phase: "idle", op: "delete", measured: [], baseline: [5], measuredMissed: 2, baselineMissed: 0 },
    ]);
    assert.equal(lines.length, 3);
    assert.match(lines[0] as string, /^phase\s+op\s+flotilla p50\s+p99\s+direct p50\s+p99\s+ratio p50\s+p99\s+samples\s+missed$/);
    assert.match(lines[1] as string, /^idle\s+create\s+40 ms\s+60 ms\s+10 ms\s+20 ms\s+4\.0\s+3\.0\s+2\/2\s+1\/0$/);
    assert.match(lines[2] as string, /^idle\s+delete\s+—\s+—\s+5 ms\s+5 ms\s+—\s+—\s+0\/1\s+2\/0$/);
  });
  it("names the sides as told (bench:rollout), the columns aligned under the longer labels", () => {
    const lines = formatTable([{ phase: "idle", op: "update", measured: [90, 300], baseline: [30, 100], measuredMissed: 0, baselineMissed: 1 }], { measured: "rollout", baseline: "no rollout" });
    assert.equal(lines.length, 2);
    assert.match(lines[0] as string, /^phase\s+op\s+rollout p50\s+p99\s+no rollout p50\s+p99\s+ratio p50\s+p99\s+samples\s+missed$/);
    assert.match(lines[1] as string, /^idle\s+update\s+90 ms\s+300 ms\s+30 ms\s+100 ms\s+3\.0\s+3\.0\s+2\/2\s+0\/1$/);
    const head = lines[0] as string;
    const row = lines[1] as string;
    assert.equal(row.indexOf("30 ms"), head.indexOf("no rollout p50"));
  });
});

describe("shows (does a watch event show the expected change)", () => {
  const cm = (ns: string, name: string, v?: string) => ({ metadata: { namespace: ns, name }, ...(v ? { data: { v } } : {}) });
  const cases: [string, Parameters<typeof shows>[0], Parameters<typeof shows>[1], ReturnType<typeof cm>, boolean][] = [
    ["added with the value", { namespace: "a", name: "x", value: "1" }, "add", cm("a", "x", "1"), true],
    ["modified to the value", { namespace: "a", name: "x", value: "2" }, "update", cm("a", "x", "2"), true],
    ["modified, old value (the agent's label-only change)", { namespace: "a", name: "x", value: "2" }, "update", cm("a", "x", "1"), false],
    ["same name, other namespace", { namespace: "a", name: "x", value: "1" }, "add", cm("b", "x", "1"), false],
    ["other name", { namespace: "a", name: "x", value: "1" }, "add", cm("a", "y", "1"), false],
    ["deleted", { namespace: "a", name: "x", deleted: true }, "delete", cm("a", "x", "2"), true],
    ["a delete does not show a value", { namespace: "a", name: "x", value: "2" }, "delete", cm("a", "x", "2"), false],
    ["an update does not show a deletion", { namespace: "a", name: "x", deleted: true }, "update", cm("a", "x", "2"), false],
  ];
  for (const [what, expected, event, obj, want] of cases) it(what, () => assert.equal(shows(expected, event, obj), want));
});
