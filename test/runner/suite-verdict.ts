// The suite's counts and its failures, as a pure judgement over what the jobs reported: the
// closing line `tests: N passed, N failed, N skipped` and every reason the run fails.
import type { ReportLine } from "./file-times-reporter.ts";

/** What one job reported, and how its process ended. */
export interface JobReport {
  name: string;
  files: string[];
  /** Its exit code (null when a signal ended it). */
  code: number | null;
  lines: ReportLine[];
}

export interface SuiteVerdict {
  passed: number;
  /** Failed and cancelled tests, plus one for each file that failed without a failing test. */
  failed: number;
  skipped: number;
  /** Why the run fails, one line each (empty when every file ran its tests and passed). */
  problems: string[];
  /** Each failed test, `file › name: message`, at most MAX_FAILURE_LINES of them, so the run's last lines say what broke. */
  failures: string[];
}

/** How many failed tests the closing lines name (a run that breaks everything names the first ones). */
export const MAX_FAILURE_LINES = 20;

export function judgeSuite(jobs: readonly JobReport[]): SuiteVerdict {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const problems: string[] = [];
  const failures: string[] = [];
  if (jobs.length === 0) problems.push("no test file to run");
  for (const job of jobs) {
    let jobFailures = 0;
    for (const file of job.files) {
      const lines = job.lines.filter((l) => l.file === file);
      for (const l of lines) if (l.kind === "test" && l.outcome === "failed") failures.push(`${file} › ${l.name ?? "(unnamed)"}: ${l.error ?? "(no message)"}`);
      const tests = lines.flatMap((l) => (l.kind === "test" ? [l.outcome] : []));
      const own = lines.find((l) => l.kind === "file");
      const summary = lines.find((l) => l.kind === "counts");
      passed += tests.filter((o) => o === "passed").length;
      skipped += tests.filter((o) => o === "skipped").length;
      const failedTests = tests.filter((o) => o === "failed" || o === "cancelled").length;
      failed += failedTests;
      jobFailures += failedTests;
      const problem =
        own === undefined
          ? "its job ended before it reported (killed, or the runner's job timeout)"
          : summary === undefined
            ? "it ended before node's summary (a process.exit in a test?)"
            : tests.length === 0
              ? "it ran no test"
              : !own.passed && failedTests === 0
                ? "it failed without a failing test (it did not load, or exited non-zero)"
                : undefined;
      if (problem !== undefined) {
        problems.push(`${file}: ${problem}`);
        failed++;
        jobFailures++;
      } else if (failedTests > 0) {
        problems.push(`${file}: ${failedTests} failed`);
      }
    }
    if (job.code !== 0 && jobFailures === 0) {
      problems.push(`${job.name}: exit ${job.code ?? "by signal"} with no failing test`);
      failed++;
    }
  }
  const more = failures.length - MAX_FAILURE_LINES;
  return { passed, failed, skipped, problems, failures: more > 0 ? [...failures.slice(0, MAX_FAILURE_LINES), `… and ${more} more failed tests`] : failures };
}
