// What a node:test reporter event says about a test: the fields the runner reads, and how a test ended.

/** How one test ended (suites are not counted, as in node's summary). */
export type TestOutcome = "passed" | "failed" | "skipped" | "cancelled" | "todo";

/** The fields of an event's data the runner reads. */
export interface EventData {
  name?: string;
  nesting?: number;
  file?: string;
  entryFile?: string;
  skip?: unknown;
  todo?: unknown;
  details?: { duration_ms?: number; passed?: boolean; type?: string; error?: { failureType?: string; message?: string; cause?: unknown } };
  counts?: { tests: number; passed: number; failed: number; skipped: number; cancelled: number; todo: number };
}

/**
 * How a test:pass or test:fail event's test ended, or undefined when it is not a test (a suite that
 * ran, another event). A skipped describe runs none of its tests and node counts none of them: it
 * counts as one skipped test here.
 */
export function testOutcome(event: { type: string; data: unknown }): TestOutcome | undefined {
  const data = event.data as EventData;
  if (event.type !== "test:pass" && event.type !== "test:fail") return undefined;
  const skippedSuite = data.details?.type === "suite" && event.type === "test:pass" && data.skip !== undefined && data.skip !== false;
  if (data.details?.type !== "test" && !skippedSuite) return undefined;
  // A todo test is todo whether it passes or fails (node counts neither as a failure).
  if (data.todo !== undefined && data.todo !== false) return "todo";
  if (event.type === "test:fail") return data.details?.error?.failureType === "cancelledByParent" ? "cancelled" : "failed";
  return data.skip !== undefined && data.skip !== false ? "skipped" : "passed";
}

/** The longest failure message the runner keeps for its closing lines. */
export const FAILURE_MESSAGE_CHARS = 600;

/**
 * A failed test's message on one line, at most FAILURE_MESSAGE_CHARS long: the cause node wraps
 * (the assertion or error the test threw), else node's own message.
 */
export function failureMessage(event: { type: string; data: unknown }): string | undefined {
  if (event.type !== "test:fail") return undefined;
  const error = (event.data as EventData).details?.error;
  if (error === undefined) return undefined;
  const cause = error.cause as { message?: unknown } | string | undefined;
  const raw = typeof cause === "string" ? cause : typeof cause?.message === "string" ? cause.message : (error.message ?? "");
  const line = raw.trim().replace(/\s*\n\s*/g, " ⏎ ");
  return line.length > FAILURE_MESSAGE_CHARS ? `${line.slice(0, FAILURE_MESSAGE_CHARS - 1)}…` : line;
}
