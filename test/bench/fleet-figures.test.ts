import assert from "node:assert/strict";
import { test } from "node:test";
import { arrivalDelays, type FleetFigures, figuresLine, memoryLine, quantile } from "./fleet-figures.ts";

test("quantile: nearest rank", () => {
  const cases: [number[], number, number][] = [
    [[5], 0.5, 5],
    [[1, 2, 3, 4], 0.5, 2],
    [[4, 3, 2, 1], 0.99, 4],
    [Array.from({ length: 100 }, (_, i) => i + 1), 0.99, 99],
    [Array.from({ length: 1000 }, (_, i) => i + 1), 0.99, 990],
    [[3, 1, 2], 1, 3],
  ];
  for (const [values, q, want] of cases) assert.equal(quantile(values, q), want, `${q} of ${values.length}`);
  assert.ok(Number.isNaN(quantile([], 0.5)));
});

test("arrivalDelays: the first new hash after t0, per agent", () => {
  const receipts = [
    [{ hash: "a", at: 1000 }, { hash: "b", at: 1500 }],
    [{ hash: "a", at: 1100 }],
    [],
  ];
  assert.deepEqual(arrivalDelays(receipts, 900), [100, 200, undefined]);
  // An update: the hash each agent had before does not count.
  assert.deepEqual(arrivalDelays(receipts, 1200, () => "a"), [300, undefined, undefined]);
});

const figures: FleetFigures = {
  connectAllS: 12.34,
  fanoutP50Ms: 120.4,
  fanoutP99Ms: 2500,
  fanoutMaxMs: 2600,
  updateP99Ms: 800,
  controlWritesPerTemplate: 2.5,
  heartbeatWritesPerS: 30,
  rssMiB: 512.3,
  cpuS: 100,
  reconnectAllS: 8,
  reconnectManifestBytes: 0,
  restartManifestBytes: 4096,
  stormLeaderChanges: 0,
  stormRenewGapMaxMs: 2100,
  stormNotReadyMax: 0,
};

test("figuresLine puts each figure next to its goal and says whether it is met", () => {
  const line = figuresLine(1000, figures);
  assert.match(line, /^N=1000: /);
  assert.match(line, /p99 2500 ms \(goal < 2000 ms at 10,000; at 1000: over\)/);
  assert.match(figuresLine(10_000, figures), /p99 2500 ms \(goal < 2000 ms at 10,000; NOT met\)/);
  assert.match(figuresLine(10_000, { ...figures, fanoutP99Ms: 1500 }), /p99 1500 ms \(goal < 2000 ms at 10,000; met\)/);
  assert.match(line, /control writes\/template 2\.50 \(goal ≤ 3: met\)/);
  assert.match(line, /heartbeat writes\/s 30\.00 \(goal ≤ N\/40 = 25\.00: NOT met\)/);
  assert.match(line, /reconnect all 8\.0 s \(goal < 30 s at 10,000; at 1000: within\), manifest bytes 0 \(goal 0: met\)/);
  assert.match(line, /restart manifest bytes 4096 \(goal 0: NOT met\)/);
  assert.match(line, /RSS 512\.3 MiB, CPU 100\.0 s$/);
});

test("memoryLine judges the 4 GiB goal only at 1,000,000 Works", () => {
  const base = { agents: 100, templates: 10_000, works: 1_000_000, loadS: 60, rssMiB: 3000, cpuS: 200 };
  assert.match(memoryLine(base), /RSS 3000\.0 MiB \(goal < 4096 MiB for 1,000,000 Works: met\)/);
  assert.match(memoryLine({ ...base, rssMiB: 5000 }), /NOT met/);
  assert.match(memoryLine({ ...base, templates: 100, works: 10_000 }), /not judged below 1,000,000/);
});
