import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { figures, type Milestones, milestoneLine, type PodJson, podCounts, ratios, stageMedians, utilizations } from "./autoscale-figures.ts";

const pod = (phase: string, ready: boolean, deleting = false): PodJson => ({
  metadata: deleting ? { deletionTimestamp: "2026-11-24T15:00:00Z" } : {},
  status: { phase, conditions: [{ type: "Ready", status: ready ? "True" : "False" }] },
});

describe("podCounts: live pods, and of them those Running and Ready", () => {
  const cases: [string, PodJson[], { live: number; ready: number }][] = [
    ["none", [], { live: 0, ready: 0 }],
    ["running and ready", [pod("Running", true), pod("Running", true)], { live: 2, ready: 2 }],
    ["pending counts as live, not ready", [pod("Pending", false), pod("Running", true)], { live: 2, ready: 1 }],
    ["running but not ready", [pod("Running", false)], { live: 1, ready: 0 }],
    ["being deleted: neither", [pod("Running", true, true), pod("Running", true)], { live: 1, ready: 1 }],
    ["finished: neither", [pod("Succeeded", false), pod("Failed", false)], { live: 0, ready: 0 }],
    ["no status yet", [{ metadata: {} }], { live: 1, ready: 0 }],
  ];
  for (const [name, pods, want] of cases) it(name, () => assert.deepEqual(podCounts(pods), want));
});

describe("utilizations: CPU as whole percent of the request", () => {
  const cases: [string, string[][], number[]][] = [
    ["nanocores, truncated", [["449873000n"]], [89]],
    ["millicores", [["450m"]], [90]],
    ["containers summed", [["100m", "150m"]], [50]],
    ["one per pod", [["50m"], ["500m"]], [10, 100]],
  ];
  for (const [name, pods, want] of cases) {
    it(name, () => assert.deepEqual(utilizations(pods.map((cs) => ({ containers: cs.map((cpu) => ({ usage: { cpu } })) })), 0.5), want));
  }
});

describe("printed figures", () => {
  it("p50, p99 and max in seconds; — for none", () => {
    assert.equal(figures([30_000, 20_000, 40_000]), "p50 30.0 s, p99 40.0 s, max 40.0 s");
    assert.equal(figures([]), "p50 —, p99 —, max —");
  });
  it("ratios of p50 and p99; — where a side has none", () => {
    assert.equal(ratios([30_000, 45_000], [20_000, 30_000]), "p50 1.50, p99 1.50");
    assert.equal(ratios([30_000], []), "p50 —, p99 —");
  });
  it("stage medians between consecutive milestones, from the step", () => {
    const trials = [
      { metrics: 10_000, template: 30_000, Running: 33_000 },
      { metrics: 12_000, template: 20_000, Running: 22_000 },
      { metrics: 14_000, template: 40_000, Running: 41_000 },
    ];
    assert.equal(stageMedians(trials, ["metrics", "template", "Running"]), "step → metrics 12.0 s, metrics → template 20.0 s, template → Running 2.0 s");
  });
  it("a stage a trial lacks an end of leaves that trial out; a milestone before its predecessor counts 0", () => {
    const trials: Milestones[] = [{ metrics: 10_000, Running: 20_000 }, { metrics: 25_000, template: 20_000, Running: 30_000 }];
    assert.equal(stageMedians(trials, ["metrics", "template", "Running"]), "step → metrics 10.0 s, metrics → template 0.0 s, template → Running 10.0 s");
  });
  it("one trial's milestones in order", () => {
    assert.equal(milestoneLine({ Running: 33_000, metrics: 10_000 }, ["metrics", "template", "Running"]), "metrics 10.0 s, template —, Running 33.0 s");
  });
});
