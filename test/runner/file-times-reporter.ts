// A node:test reporter that writes one JSON line per test file: its wall time, whether it
// passed, and its counts. The suite runner (run.ts) reads these lines for the slowest-files table,
// the per-file budget and the closing summary. Used beside the spec reporter:
//   --test-reporter=spec --test-reporter-destination=stdout
//   --test-reporter=./test/runner/file-times-reporter.ts --test-reporter-destination=FILE
import { relative } from "node:path";
import type { TestEvent } from "node:test/reporters";
import { SharedProcessReport } from "./shared-process-report.ts";
import { type EventData, failureMessage, type TestOutcome, testOutcome } from "./test-events.ts";

export type { TestOutcome };

/** What the reporter writes for one test file. */
export interface FileTime {
  /** The file, relative to the runner's working directory. */
  file: string;
  /** Wall time of the file's process, from its start to its end. */
  ms: number;
  /** False when any of its tests failed, or the file itself failed (did not load, exited non-zero). */
  passed: boolean;
}

/** A file's test counts (node's per-file test:summary). */
export interface FileCounts {
  file: string;
  tests: number;
  passed: number;
  failed: number;
  skipped: number;
  cancelled: number;
  todo: number;
}


/**
 * One line of the reporter's output: a file's time, node's per-file summary (absent when the file
 * ended before it: a process.exit in a test), and each test's outcome as it ends (so a file that
 * dies midway still counts what ran).
 */
export type ReportLine =
  | ({ kind: "file" } & FileTime)
  | ({ kind: "counts" } & FileCounts)
  | { kind: "test"; file: string; outcome: TestOutcome; name?: string; error?: string };


/**
 * What one runner event says about a file, if anything. A file's own completion is the top-level
 * test:complete named by the file's relative path and without an entryFile (its tests carry one);
 * its counts are the test:summary that names the file.
 */
export function reportLine(event: { type: string; data: unknown }, cwd: string): ReportLine | undefined {
  const data = event.data as EventData;
  if (data.file === undefined) return undefined;
  const file = relative(cwd, data.file);
  if (event.type === "test:complete" && data.nesting === 0 && data.entryFile === undefined && data.name === file) {
    return { kind: "file", file, ms: Math.round(data.details?.duration_ms ?? 0), passed: data.details?.passed === true };
  }
  const outcome = testOutcome(event);
  // A test defined in a shared fixtures file belongs to the test file that ran it.
  if (outcome !== undefined && data.entryFile !== undefined) return { kind: "test", file: relative(cwd, data.entryFile), outcome, ...failure(event, outcome) };
  if (event.type === "test:summary" && data.counts !== undefined) {
    const c = data.counts;
    return { kind: "counts", file, tests: c.tests, passed: c.passed, failed: c.failed, skipped: c.skipped, cancelled: c.cancelled, todo: c.todo };
  }
  return undefined;
}

/** A failed test's name and message, which the runner repeats in its closing lines. */
export function failure(event: { type: string; data: unknown }, outcome: TestOutcome): { name?: string; error?: string } {
  if (outcome !== "failed") return {};
  return { name: (event.data as EventData).name, error: failureMessage(event) };
}

/** Set by the runner on a job whose files run in one process (`--test-isolation=none`). */
export const SHARED_PROCESS_ENV = "FLOTILLA_TEST_ISOLATION";

export default async function* fileTimesReporter(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const cwd = process.cwd();
  const shared = process.env[SHARED_PROCESS_ENV] === "none" ? new SharedProcessReport(cwd) : undefined;
  for await (const event of source) {
    const lines = shared !== undefined ? shared.take(event) : [reportLine(event, cwd)];
    for (const line of lines) if (line !== undefined) yield `${JSON.stringify(line)}\n`;
  }
}
