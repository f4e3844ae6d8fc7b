import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { reportLine } from "./file-times-reporter.ts";
import { FAILURE_MESSAGE_CHARS } from "./test-events.ts";

describe("reportLine", () => {
  const cwd = "/repo";
  const cases = [
    {
      name: "a file's own completion: its relative name, time and verdict",
      event: { type: "test:complete", data: { name: "test/a.test.ts", nesting: 0, file: "/repo/test/a.test.ts", details: { duration_ms: 1234.6, passed: true } } },
      line: { kind: "file", file: "test/a.test.ts", ms: 1235, passed: true },
    },
    {
      name: "a failed file",
      event: { type: "test:complete", data: { name: "test/a.test.ts", nesting: 0, file: "/repo/test/a.test.ts", details: { duration_ms: 10, passed: false } } },
      line: { kind: "file", file: "test/a.test.ts", ms: 10, passed: false },
    },
    {
      name: "a top-level test in the file is not the file",
      event: { type: "test:complete", data: { name: "it works", nesting: 0, file: "/repo/test/a.test.ts", entryFile: "/repo/test/a.test.ts", details: { duration_ms: 5, passed: true } } },
      line: undefined,
    },
    {
      name: "a test named like its file is still not the file (it has an entryFile)",
      event: { type: "test:complete", data: { name: "test/a.test.ts", nesting: 0, file: "/repo/test/a.test.ts", entryFile: "/repo/test/a.test.ts", details: { duration_ms: 5, passed: true } } },
      line: undefined,
    },
    {
      name: "a file's counts",
      event: { type: "test:summary", data: { file: "/repo/test/a.test.ts", counts: { tests: 3, passed: 2, failed: 1, skipped: 0, cancelled: 0, todo: 0, topLevel: 3, suites: 0 } } },
      line: { kind: "counts", file: "test/a.test.ts", tests: 3, passed: 2, failed: 1, skipped: 0, cancelled: 0, todo: 0 },
    },
    {
      name: "a test that passed",
      event: { type: "test:pass", data: { name: "t", nesting: 1, file: "/repo/test/a.test.ts", entryFile: "/repo/test/a.test.ts", details: { type: "test" } } },
      line: { kind: "test", file: "test/a.test.ts", outcome: "passed" },
    },
    {
      name: "a test defined in a fixtures file counts for the test file that ran it",
      event: { type: "test:pass", data: { name: "t", nesting: 1, file: "/repo/test/cases.fixtures.ts", entryFile: "/repo/test/a.test.ts", details: { type: "test" } } },
      line: { kind: "test", file: "test/a.test.ts", outcome: "passed" },
    },
    {
      name: "a skipped test",
      event: { type: "test:pass", data: { name: "t", nesting: 0, file: "/repo/test/a.test.ts", entryFile: "/repo/test/a.test.ts", skip: true, details: { type: "test" } } },
      line: { kind: "test", file: "test/a.test.ts", outcome: "skipped" },
    },
    {
      name: "a skipped describe: one skipped test (node counts none)",
      event: { type: "test:pass", data: { name: "s", nesting: 0, file: "/repo/test/a.test.ts", entryFile: "/repo/test/a.test.ts", skip: "no autogroups", details: { type: "suite" } } },
      line: { kind: "test", file: "test/a.test.ts", outcome: "skipped" },
    },
    {
      name: "a describe that ran: nothing of its own",
      event: { type: "test:pass", data: { name: "s", nesting: 0, file: "/repo/test/a.test.ts", entryFile: "/repo/test/a.test.ts", details: { type: "suite" } } },
      line: undefined,
    },
    {
      name: "a todo test",
      event: { type: "test:pass", data: { name: "t", nesting: 0, file: "/repo/test/a.test.ts", entryFile: "/repo/test/a.test.ts", todo: true, details: { type: "test" } } },
      line: { kind: "test", file: "test/a.test.ts", outcome: "todo" },
    },
    {
      name: "a todo test that fails is todo, as node counts it",
      event: { type: "test:fail", data: { name: "t", nesting: 0, file: "/repo/test/a.test.ts", entryFile: "/repo/test/a.test.ts", todo: true, details: { type: "test", error: { failureType: "testCodeFailure" } } } },
      line: { kind: "test", file: "test/a.test.ts", outcome: "todo" },
    },
    {
      name: "a failed test: its name, and the message of what it threw on one line",
      event: { type: "test:fail", data: { name: "t", nesting: 0, file: "/repo/test/a.test.ts", entryFile: "/repo/test/a.test.ts", details: { type: "test", error: { failureType: "testCodeFailure", message: "node's wrapper", cause: { message: "Expected values to be equal:\n\n  1 !== 2\n" } } } } },
      line: { kind: "test", file: "test/a.test.ts", outcome: "failed", name: "t", error: "Expected values to be equal: ⏎ 1 !== 2" },
    },
    {
      name: "a failed test without a cause: node's own message",
      event: { type: "test:fail", data: { name: "t", nesting: 0, file: "/repo/test/a.test.ts", entryFile: "/repo/test/a.test.ts", details: { type: "test", error: { failureType: "hookFailed", message: "after hook failed" } } } },
      line: { kind: "test", file: "test/a.test.ts", outcome: "failed", name: "t", error: "after hook failed" },
    },
    {
      name: "a test cancelled with its suite",
      event: { type: "test:fail", data: { name: "t", nesting: 1, file: "/repo/test/a.test.ts", entryFile: "/repo/test/a.test.ts", details: { type: "test", error: { failureType: "cancelledByParent" } } } },
      line: { kind: "test", file: "test/a.test.ts", outcome: "cancelled" },
    },
    {
      name: "a suite is not a test",
      event: { type: "test:fail", data: { name: "s", nesting: 0, file: "/repo/test/a.test.ts", entryFile: "/repo/test/a.test.ts", details: { type: "suite", error: { failureType: "subtestsFailed" } } } },
      line: undefined,
    },
    { name: "the run's summary names no file", event: { type: "test:summary", data: { counts: { tests: 3 } } }, line: undefined },
    { name: "other events", event: { type: "test:pass", data: { name: "x", nesting: 1, file: "/repo/test/a.test.ts" } }, line: undefined },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(reportLine(c.event, cwd), c.line));

  it("cuts a long failure message to FAILURE_MESSAGE_CHARS", () => {
    const event = { type: "test:fail", data: { name: "t", nesting: 0, file: "/repo/test/a.test.ts", entryFile: "/repo/test/a.test.ts", details: { type: "test", error: { cause: "x".repeat(5000) } } } };
    const line = reportLine(event, cwd);
    assert.equal(line?.kind === "test" ? line.error : undefined, `${"x".repeat(FAILURE_MESSAGE_CHARS - 1)}…`);
  });
});
