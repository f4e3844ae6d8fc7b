// The file-times reporter's lines for files that ran in one process (`node --test
// --test-isolation=none`, the unit batch): node then reports no file of its own, no entryFile on
// a test and one summary for all files. Events come in the order the tests are defined, so a
// nested test's outcome belongs to the top-level test or suite that ends next, and that one names
// the test file (a test a fixtures file defines inside a describe counts for the test file). A
// file's time is the sum of its top-level tests' times; its lines are written at the summary, so
// a batch that dies before it (a process.exit) reports no file, and every file of it fails. Not
// seen here: an import that throws after the file registered a test (node keeps the error only
// for a file that registered none), which a process per file reported as a failed file.
import { relative } from "node:path";
import { failure, type ReportLine } from "./file-times-reporter.ts";
import { type EventData, type TestOutcome, testOutcome } from "./test-events.ts";

interface Ended {
  outcome: TestOutcome;
  name?: string;
  error?: string;
}

interface FileSoFar {
  ms: number;
  passed: boolean;
  outcomes: TestOutcome[];
}

export class SharedProcessReport {
  private readonly cwd: string;
  /** Outcomes of nested tests whose top-level test has not ended yet, with a failure's name and message. */
  private nested: Ended[] = [];
  private readonly files = new Map<string, FileSoFar>();

  constructor(cwd: string) {
    this.cwd = cwd;
  }

  /** The lines one event adds: a top-level test's outcomes when it ends, every file's time and counts at the summary. */
  take(event: { type: string; data: unknown }): ReportLine[] {
    const data = event.data as EventData;
    if (event.type === "test:summary" && data.file === undefined) return this.summary();
    if (event.type !== "test:pass" && event.type !== "test:fail") return [];
    const outcome = testOutcome(event);
    if ((data.nesting ?? 0) > 0) {
      if (outcome !== undefined) this.nested.push({ outcome, ...failure(event, outcome) });
      return [];
    }
    // A top-level test or suite, or a file that did not load (a failed test named after it).
    if (data.file === undefined) return [];
    const file = relative(this.cwd, data.file);
    // Node stands a test named after the file in for a file that registered none: it passes
    // unless the import threw. A pass of it is no test: the file then "ran no test".
    const standIn = data.name === file && event.type === "test:pass";
    const outcomes = [...this.nested, ...(outcome === undefined || standIn ? [] : [{ outcome, ...failure(event, outcome) }])];
    this.nested = [];
    const soFar = this.files.get(file) ?? { ms: 0, passed: true, outcomes: [] };
    soFar.ms += data.details?.duration_ms ?? 0;
    soFar.passed &&= event.type === "test:pass";
    soFar.outcomes.push(...outcomes.map((o) => o.outcome));
    this.files.set(file, soFar);
    return outcomes.map((o) => ({ kind: "test", file, ...o }));
  }

  private summary(): ReportLine[] {
    return [...this.files].flatMap(([file, f]): ReportLine[] => {
      const count = (o: TestOutcome) => f.outcomes.filter((x) => x === o).length;
      return [
        { kind: "file", file, ms: Math.round(f.ms), passed: f.passed },
        { kind: "counts", file, tests: f.outcomes.length, passed: count("passed"), failed: count("failed"), skipped: count("skipped"), cancelled: count("cancelled"), todo: count("todo") },
      ];
    });
  }
}
