import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ReportLine, TestOutcome } from "./file-times-reporter.ts";
import { type JobReport, judgeSuite, MAX_FAILURE_LINES } from "./suite-verdict.ts";

const ran = (file: string, outcomes: TestOutcome[], passed = !outcomes.some((o) => o === "failed" || o === "cancelled")): ReportLine[] => [
  ...outcomes.map((outcome): ReportLine => ({ kind: "test", file, outcome })),
  { kind: "counts", file, tests: outcomes.length, passed: 0, failed: 0, skipped: 0, cancelled: 0, todo: 0 },
  { kind: "file", file, ms: 10, passed },
];
const job = (files: string[], lines: ReportLine[], code: number | null = 0): JobReport => ({ name: files.length === 1 ? files[0]! : "unit tests", files, code, lines });

describe("judgeSuite", () => {
  const cases: { name: string; jobs: JobReport[]; passed: number; failed: number; skipped: number; problems: string[] }[] = [
    { name: "all pass", jobs: [job(["a"], ran("a", ["passed", "passed", "skipped", "todo"])), job(["b", "c"], [...ran("b", ["passed"]), ...ran("c", ["passed"])])], passed: 4, failed: 0, skipped: 1, problems: [] },
    { name: "a failed and a cancelled test", jobs: [job(["a"], ran("a", ["passed", "failed", "cancelled"]), 1)], passed: 1, failed: 2, skipped: 0, problems: ["a: 2 failed"] },
    {
      name: "a file that exits 0 in the middle of a test: what ran counts, and it fails",
      jobs: [job(["a"], [{ kind: "test", file: "a", outcome: "passed" }, { kind: "file", file: "a", ms: 5, passed: true }])],
      passed: 1,
      failed: 1,
      skipped: 0,
      problems: ["a: it ended before node's summary (a process.exit in a test?)"],
    },
    { name: "a file with no test", jobs: [job(["a"], ran("a", []))], passed: 0, failed: 1, skipped: 0, problems: ["a: it ran no test"] },
    {
      name: "a file that did not load",
      jobs: [job(["b", "a"], [...ran("b", ["passed"]), { kind: "counts", file: "a", tests: 0, passed: 0, failed: 0, skipped: 0, cancelled: 0, todo: 0 }, { kind: "file", file: "a", ms: 5, passed: false }], 1)],
      passed: 1,
      failed: 1,
      skipped: 0,
      problems: ["a: it ran no test"],
    },
    {
      name: "a crash after its tests passed",
      jobs: [job(["a"], ran("a", ["passed"], false), 1)],
      passed: 1,
      failed: 1,
      skipped: 0,
      problems: ["a: it failed without a failing test (it did not load, or exited non-zero)"],
    },
    { name: "a job killed before its reporter said anything", jobs: [job(["a"], [], null)], passed: 0, failed: 1, skipped: 0, problems: ["a: its job ended before it reported (killed, or the runner's job timeout)"] },
    { name: "a job that exits non-zero though every file passed", jobs: [job(["a"], ran("a", ["passed"]), 1)], passed: 1, failed: 1, skipped: 0, problems: ["a: exit 1 with no failing test"] },
    { name: "nothing to run", jobs: [], passed: 0, failed: 0, skipped: 0, problems: ["no test file to run"] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const v = judgeSuite(c.jobs);
      assert.deepEqual([v.passed, v.failed, v.skipped], [c.passed, c.failed, c.skipped]);
      assert.deepEqual(v.problems, c.problems);
    });
  }

  it("names each failed test with its message, the first MAX_FAILURE_LINES of them", () => {
    const failedLine = (file: string, name: string): ReportLine => ({ kind: "test", file, outcome: "failed", name, error: `${name} broke` });
    const one = judgeSuite([job(["a"], [failedLine("a", "t1"), { kind: "test", file: "a", outcome: "passed" }, ...ran("a", [], false)], 1)]);
    assert.deepEqual(one.failures, ["a › t1: t1 broke"]);
    const many = Array.from({ length: MAX_FAILURE_LINES + 3 }, (_, i) => failedLine("a", `t${i}`));
    const v = judgeSuite([job(["a"], [...many, ...ran("a", [], false)], 1)]);
    assert.equal(v.failures.length, MAX_FAILURE_LINES + 1);
    assert.equal(v.failures.at(-1), "… and 3 more failed tests");
  });
});
