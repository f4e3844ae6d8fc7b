import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { companionsToRaise, type Job, jobsToStart, ownJob, planJobs, type Running, UNIT_BATCH } from "./suite-plan.ts";

const alone = { "test/e2e/ha.test.ts": "times failover", "control-plane/peers/x.test.ts": "times a round" };

describe("ownJob", () => {
  const cases: [string, boolean][] = [
    ["test/e2e/propagation.test.ts", true],
    ["test/runner/suite-plan.test.ts", true],
    ["control-plane/scheduling/place.test.ts", false],
    ["agent/apply/x.test.ts", false],
    ["control-plane/peers/x.test.ts", true],
    ["bin/ctl/interpret-cli.test.ts", true],
    ["control-plane/hub/hub.test.ts", true],
  ];
  for (const [file, own] of cases) it(`${file}: ${own ? "its own job" : "the unit batch"}`, () => assert.equal(ownJob(file, alone), own));
});

describe("planJobs", () => {
  const files = ["agent/a.test.ts", "control-plane/peers/x.test.ts", "shared/b.test.ts", "test/e2e/fast.test.ts", "test/e2e/ha.test.ts", "test/e2e/slow.test.ts", "test/docs.test.ts"];

  it("runs the files that must run alone first (the busy ones before the others), then the rest, each longest first; unit files as one batch; alone files take only light companions", () => {
    const jobs = planJobs(
      files,
      { "test/e2e/slow.test.ts": 120_000, "test/e2e/fast.test.ts": 5_000, "test/e2e/ha.test.ts": 40_000, [UNIT_BATCH]: 20_000 },
      alone,
      { "control-plane/peers/x.test.ts": "busy" },
    );
    assert.deepEqual(
      jobs.map((j) => [j.name, j.alone, j.companions, j.estimateMs]),
      [
        ["control-plane/peers/x.test.ts", true, "light", 10_000],
        ["test/e2e/ha.test.ts", true, "light", 40_000],
        ["test/e2e/slow.test.ts", false, "any", 120_000],
        [UNIT_BATCH, false, "any", 20_000],
        ["test/docs.test.ts", false, "any", 10_000],
        ["test/e2e/fast.test.ts", false, "any", 5_000],
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
  const job = (name: string, estimateMs = 1, alone = false, companions: "any" | "light" = "any"): Job => ({ name, files: [name], alone, companions, estimateMs });
  // In plan order: longest first.
  const [huge, long, mid, a, b, c, d] = [job("huge", 120_000), job("long", 80_000), job("mid", 30_000), job("a", 3000), job("b", 2000), job("c", 1000), job("d", 500)];
  const x = job("x", 1, true);
  const y = job("y", 1, true);
  const busy = job("busy", 1, true, "light");
  const unit = job(UNIT_BATCH, 5000);
  const hub = job("control-plane/hub/hub.test.ts", 100);
  const normal = (...js: Job[]): Running[] => js.map((j) => ({ job: j, low: false }));
  const low = (...js: Job[]): Running[] => js.map((j) => ({ job: j, low: true }));
  const show = (rs: Running[]) => rs.map((r) => `${r.job.name}${r.low ? " low" : ""}`);
  const cases: { name: string; waiting: Job[]; running: Running[]; concurrency: number; start: string[] }[] = [
    { name: "fills the free places in order", waiting: [a, b, c, d], running: [], concurrency: 3, start: ["a", "b", "c"] },
    { name: "only as many as are free", waiting: [c, d], running: normal(a, b), concurrency: 3, start: ["c"] },
    { name: "none when full", waiting: [c], running: normal(a, b), concurrency: 2, start: [] },
    { name: "an alone job starts when nothing runs, with the shortest job (the queue's end) as its low companion", waiting: [x, huge, long, mid, a], running: [], concurrency: 2, start: ["x", "a low"] },
    { name: "as many companions as places beside it", waiting: [x, huge, long, mid, a], running: [], concurrency: 3, start: ["x", "a low", "mid low"] },
    { name: "a long job too, when no shorter one is left", waiting: [x, huge], running: [], concurrency: 2, start: ["x", "huge low"] },
    { name: "never the unit batch as a companion", waiting: [x, unit, a], running: [], concurrency: 2, start: ["x", "a low"] },
    { name: "nor a waiting unit file (its timers are short)", waiting: [x, a, hub], running: [], concurrency: 2, start: ["x", "a low"] },
    { name: "beside a busy alone job, only the shortest light jobs", waiting: [busy, long, mid, a, b], running: [], concurrency: 3, start: ["busy", "b low", "a low"] },
    { name: "and none when no light job waits", waiting: [busy, long, mid], running: [], concurrency: 2, start: ["busy"] },
    { name: "a busy alone job waits for a companion that is not light", waiting: [busy, a], running: low(mid), concurrency: 2, start: [] },
    { name: "but starts beside a light one", waiting: [busy, a], running: low(b), concurrency: 3, start: ["busy", "a low"] },
    { name: "a companion beside a running alone job", waiting: [mid, a], running: normal(x), concurrency: 2, start: ["a low"] },
    { name: "no second companion when the places are full", waiting: [a, b], running: [...normal(x), ...low(c)], concurrency: 2, start: [] },
    { name: "the next alone job starts beside a companion still running, which stays", waiting: [y, a], running: low(long), concurrency: 2, start: ["y"] },
    { name: "an alone job waits for a job at normal priority, and nothing overtakes it", waiting: [x, a], running: normal(b), concurrency: 3, start: [] },
    { name: "jobs before it in the queue still start", waiting: [a, x, b], running: [], concurrency: 3, start: ["a"] },
    { name: "nothing waiting", waiting: [], running: normal(a), concurrency: 3, start: [] },
    { name: "no companion left to take", waiting: [y], running: [], concurrency: 2, start: ["y"] },
  ];
  for (const t of cases) it(t.name, () => assert.deepEqual(show(jobsToStart(t.waiting, t.running, t.concurrency)), t.start));

  it("without companions, an alone job starts when nothing runs, and nothing beside it", () => {
    assert.deepEqual(show(jobsToStart([x, a, b], [], 2, false)), ["x"]);
    assert.deepEqual(show(jobsToStart([a, b], normal(x), 2, false)), []);
    assert.deepEqual(show(jobsToStart([y, a], low(b), 2, false)), []);
  });
});

describe("companionsToRaise", () => {
  const job = (name: string, isAlone = false): Job => ({ name, files: [name], alone: isAlone, companions: "any", estimateMs: 1 });
  const [a, b, x] = [job("a"), job("b"), job("x", true)];
  const cases: { name: string; waiting: Job[]; running: Running[]; raise: string[] }[] = [
    { name: "none while an alone job runs", waiting: [], running: [{ job: x, low: false }, { job: a, low: true }], raise: [] },
    { name: "none while an alone job waits (between two)", waiting: [x], running: [{ job: a, low: true }], raise: [] },
    { name: "every companion once none runs or waits", waiting: [b], running: [{ job: a, low: true }, { job: b, low: false }], raise: ["a"] },
  ];
  for (const t of cases) it(t.name, () => assert.deepEqual(companionsToRaise(t.waiting, t.running).map((r) => r.job.name), t.raise));
});
