import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type Job, jobsToStart, ownJob, planJobs, UNIT_BATCH } from "./suite-plan.ts";

const alone = { "test/e2e/ha.test.ts": "times failover", "control-plane/peers/x.test.ts": "times a round" };

describe("ownJob", () => {
  const cases: [string, boolean][] = [
    ["test/e2e/propagation.test.ts", true],
    ["test/runner/suite-plan.test.ts", true],
    ["control-plane/scheduling/place.test.ts", false],
    ["agent/apply/x.test.ts", false],
    ["control-plane/peers/x.test.ts", true],
  ];
  for (const [file, own] of cases) it(`${file}: ${own ? "its own job" : "the unit batch"}`, () => assert.equal(ownJob(file, alone), own));
});

describe("planJobs", () => {
  const files = ["agent/a.test.ts", "control-plane/peers/x.test.ts", "shared/b.test.ts", "test/e2e/fast.test.ts", "test/e2e/ha.test.ts", "test/e2e/slow.test.ts", "test/docs.test.ts"];

  it("runs the files that must run alone first, then the rest, each longest first; unit files as one batch", () => {
    const jobs = planJobs(files, { "test/e2e/slow.test.ts": 120_000, "test/e2e/fast.test.ts": 5_000, "test/e2e/ha.test.ts": 40_000, [UNIT_BATCH]: 20_000 }, alone);
    assert.deepEqual(
      jobs.map((j) => [j.name, j.alone, j.estimateMs]),
      [
        ["test/e2e/ha.test.ts", true, 40_000],
        ["control-plane/peers/x.test.ts", true, 10_000],
        ["test/e2e/slow.test.ts", false, 120_000],
        [UNIT_BATCH, false, 20_000],
        ["test/docs.test.ts", false, 10_000],
        ["test/e2e/fast.test.ts", false, 5_000],
      ],
    );
    assert.deepEqual(jobs.find((j) => j.name === UNIT_BATCH)?.files, ["agent/a.test.ts", "shared/b.test.ts"]);
  });

  it("without an earlier run, guesses real-cluster files long and the rest short", () => {
    const jobs = planJobs(["test/e2e/a.test.ts", "test/env/b.test.ts", "test/c.test.ts"], {}, {});
    assert.deepEqual(
      jobs.map((j) => [j.name, j.estimateMs]),
      [
        ["test/e2e/a.test.ts", 60_000],
        ["test/env/b.test.ts", 60_000],
        ["test/c.test.ts", 10_000],
      ],
    );
  });

  it("makes no empty batch", () => {
    assert.deepEqual(
      planJobs(["test/a.test.ts"], {}, {}).map((j) => j.name),
      ["test/a.test.ts"],
    );
  });
});

describe("jobsToStart", () => {
  const job = (name: string, isAlone = false): Job => ({ name, files: [name], alone: isAlone, estimateMs: 1 });
  const [a, b, c, d] = [job("a"), job("b"), job("c"), job("d")];
  const x = job("x", true);
  const names = (js: Job[]) => js.map((j) => j.name);
  const cases: { name: string; waiting: Job[]; running: Job[]; concurrency: number; start: string[] }[] = [
    { name: "fills the free places in order", waiting: [a, b, c, d], running: [], concurrency: 3, start: ["a", "b", "c"] },
    { name: "only as many as are free", waiting: [c, d], running: [a, b], concurrency: 3, start: ["c"] },
    { name: "none when full", waiting: [c], running: [a, b], concurrency: 2, start: [] },
    { name: "a job that runs alone starts when nothing runs", waiting: [x, a], running: [], concurrency: 3, start: ["x"] },
    { name: "and nothing beside it", waiting: [a, b], running: [x], concurrency: 3, start: [] },
    { name: "it waits for what runs, and nothing overtakes it", waiting: [x, a], running: [b], concurrency: 3, start: [] },
    { name: "jobs before it in the queue still start", waiting: [a, x, b], running: [], concurrency: 3, start: ["a"] },
    { name: "nothing waiting", waiting: [], running: [a], concurrency: 3, start: [] },
  ];
  for (const t of cases) it(t.name, () => assert.deepEqual(names(jobsToStart(t.waiting, t.running, t.concurrency)), t.start));
});
