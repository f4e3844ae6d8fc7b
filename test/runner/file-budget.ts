// The per-file time budget, as a pure judgement over the files' wall times, and the table the
// suite prints at its end.
import type { FileTime } from "./file-times-reporter.ts";

/** No test file may take longer than this, unless it is excused below. */
export const FILE_BUDGET_MS = 150_000;

/**
 * Files that may take longer than the budget, each with its reason. Keep this list short: a slow
 * file is shortened (product timers as flags, waits for what is observable), not excused.
 */
export const OVER_BUDGET_EXCUSED: Readonly<Record<string, string>> = {
  "test/chaos/chaos.test.ts": "the chaos run's point is minutes of churn and faults on a 3-member fleet",
  "test/image.test.ts": "builds the container image (a Debian base with debootstrap when it is not cached) and runs it",
};

export interface BudgetVerdict {
  /** The slowest files, slowest first. */
  slowest: FileTime[];
  /** Files over the budget that are not excused: each fails the run. */
  over: FileTime[];
  /** Files over the budget that are excused, with the reason. */
  excused: (FileTime & { reason: string })[];
}

export function judgeFileTimes(times: readonly FileTime[], opts: { budgetMs: number; excused: Readonly<Record<string, string>>; slowest: number }): BudgetVerdict {
  const bySlowest = [...times].sort((a, b) => b.ms - a.ms || a.file.localeCompare(b.file));
  const overBudget = bySlowest.filter((t) => t.ms > opts.budgetMs);
  return {
    slowest: bySlowest.slice(0, opts.slowest),
    over: overBudget.filter((t) => !(t.file in opts.excused)),
    excused: overBudget.flatMap((t) => (t.file in opts.excused ? [{ ...t, reason: opts.excused[t.file]! }] : [])),
  };
}

/** The lines the suite prints for a verdict. */
export function budgetReport(v: BudgetVerdict, budgetMs: number): string[] {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const lines = [`slowest test files (budget ${s(budgetMs)} each):`];
  const width = Math.max(0, ...v.slowest.map((t) => t.file.length));
  for (const t of v.slowest) lines.push(`  ${t.file.padEnd(width)}  ${s(t.ms).padStart(8)}${t.passed ? "" : "  (failed)"}`);
  for (const t of v.excused) lines.push(`over budget, excused: ${t.file} took ${s(t.ms)} (${t.reason})`);
  for (const t of v.over) lines.push(`OVER BUDGET: ${t.file} took ${s(t.ms)}, more than ${s(budgetMs)}: shorten it (docs/development/testing.md)`);
  return lines;
}
