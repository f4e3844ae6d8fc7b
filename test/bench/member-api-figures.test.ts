import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatFailures, formatProcesses, formatWork, pct, pooled, rise } from "./member-api-figures.ts";

describe("bench:member-api's figures", () => {
  it("rise is the percent above idle, unknown when either side is", () => {
    assert.equal(rise(110, 100).toFixed(1), "10.0");
    assert.equal(rise(50, 100), -50);
    assert.ok(Number.isNaN(rise(Number.NaN, 100)));
    assert.ok(Number.isNaN(rise(10, 0)));
    assert.equal(pct(12.345), "+12.3%");
    assert.equal(pct(-3), "-3.0%");
    assert.equal(pct(Number.NaN), "—");
  });

  it("a phase's creates and updates are pooled, and each phase's rise is against the idle one", () => {
    const idle = { phase: "idle", create: [10, 20], update: [30, 40], missed: 0 };
    const loaded = { phase: "loaded", create: [20, 40], update: [60, 80], missed: 1 };
    assert.deepEqual(pooled(idle), { p50: 20, p99: 40 });
    const [head, first, second] = formatWork([idle, loaded], "idle");
    assert.match(head as string, /^phase\s+create p50\s+p99\s+update p50/);
    assert.match(first as string, /^idle\s+10 ms\s+20 ms\s+30 ms\s+40 ms\s+20 ms\s+40 ms\s+4\s+0$/);
    assert.match(second as string, /^loaded\s+20 ms\s+40 ms\s+60 ms\s+80 ms\s+40 ms\s+80 ms\s+\+100\.0%\s+\+100\.0%\s+4\s+1$/);
  });

  it("processes show RSS idle against loaded, the peak's rise, and CPU in percent of a core", () => {
    const [, row] = formatProcesses([{ name: "agent", idle: { rssMiB: 100, peakMiB: 101, cpu: 0.05 }, loaded: { rssMiB: 120, peakMiB: 150, cpu: 0.5 } }]);
    assert.match(row as string, /^agent\s+100\.0 MiB\s+120\.0 \(150\.0\) MiB\s+\+50\.0%\s+5%\s+50%$/);
  });

  it("failures are listed with their counts", () => {
    assert.equal(formatFailures(new Map()), "none");
    assert.equal(formatFailures(new Map([["HTTP 429", 3], ["socket hang up", 1]])), "3× HTTP 429, 1× socket hang up");
  });
});
