import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ReportLine } from "./file-times-reporter.ts";
import { SharedProcessReport } from "./shared-process-report.ts";

type Ev = { type: string; data: Record<string, unknown> };
const pass = (name: string, nesting: number, file: string, type = "test", extra: Record<string, unknown> = {}): Ev => ({ type: "test:pass", data: { name, nesting, file: `/repo/${file}`, details: { type, duration_ms: 10 }, ...extra } });
const fail = (name: string, nesting: number, file: string, type = "test", extra: Record<string, unknown> = {}): Ev => ({ type: "test:fail", data: { name, nesting, file: `/repo/${file}`, details: { type, duration_ms: 10, error: {} }, ...extra } });
const summary: Ev = { type: "test:summary", data: { counts: { tests: 0, passed: 0, failed: 0, skipped: 0, cancelled: 0, todo: 0 } } };

function report(events: Ev[]): ReportLine[] {
  const r = new SharedProcessReport("/repo");
  return events.flatMap((e) => r.take(e));
}
const files = (lines: ReportLine[]) => lines.filter((l) => l.kind === "file");
const counts = (lines: ReportLine[]) => lines.filter((l) => l.kind === "counts");

describe("SharedProcessReport: files that ran in one process", () => {
  const cases: { name: string; events: Ev[]; file: ReportLine[]; counts: ReportLine[] }[] = [
    {
      name: "top-level tests of two files: each file its time and counts",
      events: [pass("a1", 0, "a.test.ts"), pass("a2", 0, "a.test.ts"), pass("b1", 0, "b.test.ts"), summary],
      file: [{ kind: "file", file: "a.test.ts", ms: 20, passed: true }, { kind: "file", file: "b.test.ts", ms: 10, passed: true }],
      counts: [
        { kind: "counts", file: "a.test.ts", tests: 2, passed: 2, failed: 0, skipped: 0, cancelled: 0, todo: 0 },
        { kind: "counts", file: "b.test.ts", tests: 1, passed: 1, failed: 0, skipped: 0, cancelled: 0, todo: 0 },
      ],
    },
    {
      name: "a test a fixtures file defines inside the test file's describe counts for the test file",
      events: [pass("case 1", 1, "cases.fixtures.ts"), fail("case 2", 1, "cases.fixtures.ts"), fail("cases", 0, "a.test.ts", "suite"), summary],
      file: [{ kind: "file", file: "a.test.ts", ms: 10, passed: false }],
      counts: [{ kind: "counts", file: "a.test.ts", tests: 2, passed: 1, failed: 1, skipped: 0, cancelled: 0, todo: 0 }],
    },
    {
      name: "a file that did not load: one failed test named after it",
      events: [pass("a1", 0, "a.test.ts"), fail("b.test.ts", 0, "b.test.ts"), summary],
      file: [{ kind: "file", file: "a.test.ts", ms: 10, passed: true }, { kind: "file", file: "b.test.ts", ms: 10, passed: false }],
      counts: [
        { kind: "counts", file: "a.test.ts", tests: 1, passed: 1, failed: 0, skipped: 0, cancelled: 0, todo: 0 },
        { kind: "counts", file: "b.test.ts", tests: 1, passed: 0, failed: 1, skipped: 0, cancelled: 0, todo: 0 },
      ],
    },
    {
      name: "skipped, todo and cancelled tests",
      events: [pass("s", 0, "a.test.ts", "test", { skip: true }), pass("t", 0, "a.test.ts", "test", { todo: true }), fail("c", 1, "a.test.ts", "test", { details: { type: "test", error: { failureType: "cancelledByParent" } } }), fail("suite", 0, "a.test.ts", "suite"), summary],
      file: [{ kind: "file", file: "a.test.ts", ms: 30, passed: false }],
      counts: [{ kind: "counts", file: "a.test.ts", tests: 3, passed: 0, failed: 0, skipped: 1, cancelled: 1, todo: 1 }],
    },
    {
      name: "a file that registered no test: node's stand-in named after it passes, and counts as no test",
      events: [pass("a.test.ts", 0, "a.test.ts"), summary],
      file: [{ kind: "file", file: "a.test.ts", ms: 10, passed: true }],
      counts: [{ kind: "counts", file: "a.test.ts", tests: 0, passed: 0, failed: 0, skipped: 0, cancelled: 0, todo: 0 }],
    },
    {
      name: "a batch that ends before node's summary (a process.exit) reports no file: each of them fails",
      events: [pass("a1", 0, "a.test.ts"), pass("b1", 0, "b.test.ts")],
      file: [],
      counts: [],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const lines = report(c.events);
      assert.deepEqual(files(lines), c.file);
      assert.deepEqual(counts(lines), c.counts);
    });
  }

  it("writes each test's outcome as its top-level test ends, credited to the top-level test's file", () => {
    const r = new SharedProcessReport("/repo");
    assert.deepEqual(r.take(pass("nested", 1, "x.fixtures.ts")), []);
    assert.deepEqual(r.take(pass("top", 0, "a.test.ts", "suite")), [{ kind: "test", file: "a.test.ts", outcome: "passed" }]);
  });

  it("a failed nested test keeps its name and message for the runner's closing lines", () => {
    const r = new SharedProcessReport("/repo");
    assert.deepEqual(r.take(fail("inner", 1, "a.test.ts", "test", { details: { type: "test", error: { cause: { message: "boom" } } } })), []);
    assert.deepEqual(r.take(fail("outer", 0, "a.test.ts", "suite")), [{ kind: "test", file: "a.test.ts", outcome: "failed", name: "inner", error: "boom" }]);
  });
});
