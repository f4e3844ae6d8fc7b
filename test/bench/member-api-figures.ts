// bench:member-api's figures (pure): the Work propagation table with each phase's rise against the
// idle fleet, the processes' memory, and the failures a phase saw.
import { quantile } from "./latency-table.ts";

/** One phase of the Work probe: ms of each create and update, and how many member1 did not show in time. */
export interface WorkPhase {
  phase: string;
  create: number[];
  update: number[];
  missed: number;
}

/** How much `loaded` is above `idle`, in percent (NaN when either is unknown). */
export function rise(loaded: number, idle: number): number {
  return Number.isNaN(loaded) || Number.isNaN(idle) || idle === 0 ? Number.NaN : (loaded / idle - 1) * 100;
}

const ms = (x: number) => (Number.isNaN(x) ? "—" : `${Math.round(x)} ms`);
export const pct = (x: number) => (Number.isNaN(x) ? "—" : `${x >= 0 ? "+" : ""}${x.toFixed(1)}%`);

function columns(rows: string[][]): string[] {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i] as number)).join("  ").trimEnd());
}

/** p50 and p99 of a phase's creates and updates together. */
export function pooled(p: WorkPhase): { p50: number; p99: number } {
  const all = [...p.create, ...p.update];
  return { p50: quantile(all, 0.5), p99: quantile(all, 0.99) };
}

/** The table: each phase's create and update p50/p99, and the rise of both together against `idle` (the first phase so named). */
export function formatWork(phases: readonly WorkPhase[], idle: string): string[] {
  const base = phases.find((p) => p.phase === idle);
  const b = base === undefined ? { p50: Number.NaN, p99: Number.NaN } : pooled(base);
  const rows = phases.map((p) => {
    const all = pooled(p);
    return [p.phase, ms(quantile(p.create, 0.5)), ms(quantile(p.create, 0.99)), ms(quantile(p.update, 0.5)), ms(quantile(p.update, 0.99)), ms(all.p50), ms(all.p99), p === base ? "" : pct(rise(all.p50, b.p50)), p === base ? "" : pct(rise(all.p99, b.p99)), `${p.create.length + p.update.length}`, `${p.missed}`];
  });
  return columns([["phase", "create p50", "p99", "update p50", "p99", "both p50", "p99", `rise p50`, "p99", "samples", "missed"], ...rows]);
}

/** A process's memory and CPU over a phase. */
export interface ProcessFigures {
  rssMiB: number;
  /** The largest RSS seen while the phase ran. */
  peakMiB: number;
  /** CPU seconds per second of the phase (1 = one core). */
  cpu: number;
}

/** One line per process: idle against under load. */
export function formatProcesses(rows: readonly { name: string; idle: ProcessFigures; loaded: ProcessFigures }[]): string[] {
  const f = (x: number) => x.toFixed(1);
  return columns([
    ["process", "RSS idle", "under load (peak)", "rise", "CPU idle", "under load"],
    ...rows.map((r) => [r.name, `${f(r.idle.rssMiB)} MiB`, `${f(r.loaded.rssMiB)} (${f(r.loaded.peakMiB)}) MiB`, pct(rise(r.loaded.peakMiB, r.idle.rssMiB)), `${(r.idle.cpu * 100).toFixed(0)}%`, `${(r.loaded.cpu * 100).toFixed(0)}%`]),
  ]);
}

/** "none", or each failure with its count. */
export function formatFailures(failed: ReadonlyMap<string, number>): string {
  return failed.size === 0 ? "none" : [...failed].map(([why, n]) => `${n}× ${why}`).join(", ");
}
