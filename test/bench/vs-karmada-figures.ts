// bench:vs-karmada's figures (pure): which processes are a system's own and which are its control
// apiserver's, the per-template control writes, the propagation efficiencies, and the printed
// tables of memory, CPU and the summary of ratios.
import type { WriteCounts } from "./apiserver-metrics.ts";
import { isLease, totalWrites } from "./apiserver-metrics.ts";

export const SYSTEMS = ["flotilla", "karmada"] as const;
export type System = (typeof SYSTEMS)[number];

/** One process of one system at one moment. */
export interface ProcessFigure {
  system: System;
  name: string;
  rssBytes: number;
  /** VmHWM: the most it ever held. */
  peakBytes: number;
}

/**
 * Whether a process is part of a system's control apiserver (etcd, kube-apiserver and the
 * kube-controller-manager for its garbage collection), which both systems run alike, rather than
 * one of the system's own components (control plane, controllers, scheduler, webhook, agents).
 */
export function isControlStack(name: string): boolean {
  return /-(etcd|kube-apiserver|kube-controller-manager)$/.test(name);
}

const mib = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MiB`;
const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
/** a / b to two decimals, or "—" where it means nothing. */
export function ratio(a: number, b: number): string {
  return Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? (a / b).toFixed(2) : "—";
}

/** Each system's RSS summed: its own components, and with its control apiserver's processes. */
export function memoryTotals(ps: readonly ProcessFigure[]): Record<System, { components: number; all: number; peakComponents: number }> {
  const of = (s: System, keep: (p: ProcessFigure) => boolean, f: (p: ProcessFigure) => number) => sum(ps.filter((p) => p.system === s && keep(p)).map(f));
  const own = (p: ProcessFigure) => !isControlStack(p.name);
  const totals = (s: System) => ({ components: of(s, own, (p) => p.rssBytes), all: of(s, () => true, (p) => p.rssBytes), peakComponents: of(s, own, (p) => p.peakBytes) });
  return { flotilla: totals("flotilla"), karmada: totals("karmada") };
}

/** The memory table: every process (RSS now, peak), then each system's sums and the ratios Flotilla / Karmada. */
export function memoryTable(ps: readonly ProcessFigure[]): string[] {
  const lines: string[] = [];
  const width = Math.max(...ps.map((p) => p.name.length), 10);
  for (const s of SYSTEMS) {
    for (const p of ps.filter((x) => x.system === s)) {
      lines.push(`${s.padEnd(8)} ${p.name.padEnd(width)}  ${mib(p.rssBytes).padStart(10)}  peak ${mib(p.peakBytes).padStart(10)}${isControlStack(p.name) ? "  (control apiserver)" : ""}`);
    }
  }
  const t = memoryTotals(ps);
  for (const s of SYSTEMS) lines.push(`${s}: own components ${mib(t[s].components)} (peak sum ${mib(t[s].peakComponents)}); with its control apiserver ${mib(t[s].all)}`);
  lines.push(`ratio flotilla / karmada: own components ${ratio(t.flotilla.components, t.karmada.components)}, peak sum ${ratio(t.flotilla.peakComponents, t.karmada.peakComponents)}, with control apiservers ${ratio(t.flotilla.all, t.karmada.all)}`);
  return lines;
}

/**
 * Requests that come with time rather than with templates: Leases, Cluster status and Clusters
 * (heartbeats), and the access and token reviews that apiserver_request_total counts as creates
 * though nothing is stored (aggregated apiservers and webhooks authorizing their callers).
 */
export function isBackgroundWrite(key: string): boolean {
  return isLease(key) || /^\S+ clusters(\/status)?( \(|$)/.test(key) || /^POST \w*(subjectaccessreviews|tokenreviews)( \(|$)/.test(key);
}

/** Whether a write is an Event's (recorded for people, not state). */
export function isEventWrite(key: string): boolean {
  return /^\S+ events( \(|$)/.test(key);
}

/** Whether a write was refused (the key carries a non-2xx code). */
export function isRefusedWrite(key: string): boolean {
  return / \(\d+\)$/.test(key);
}

/**
 * A run's control-apiserver writes split: per template (accepted, not background, less the
 * bench's own `benchOwn` writes), refused ones (conflicts and the like, each still a request the
 * apiserver served) and background ones.
 */
export function controlWrites(c: WriteCounts, benchOwn: number, templates: number): { perTemplate: number; eventsPerTemplate: number; refused: number; background: number } {
  const accepted = totalWrites(c, (k) => !isBackgroundWrite(k) && !isRefusedWrite(k));
  return {
    perTemplate: (accepted - benchOwn) / templates,
    eventsPerTemplate: totalWrites(c, (k) => isEventWrite(k) && !isRefusedWrite(k)) / templates,
    refused: totalWrites(c, (k) => isRefusedWrite(k) && !isBackgroundWrite(k)),
    background: totalWrites(c, isBackgroundWrite),
  };
}

/** One propagation run of one system: ms from the first template apply until… */
export interface PropagationRun {
  system: System;
  round: number;
  /** …every Deployment exists in every member. */
  existMs: number;
  /** …every Deployment is Available in every member. */
  availableMs: number;
  /** …every template's status in the control apiserver shows the fleet's sum. */
  summedMs: number;
  /** Control-apiserver writes per template (controlWrites), and how many of them are Events'. */
  controlPerTemplate: number;
  eventsPerTemplate: number;
  controlRefused: number;
  /** Member writes without Leases. */
  memberWrites: number;
}

type Measure = "existMs" | "availableMs" | "summedMs";
const MEASURES: [Measure, string][] = [
  ["existMs", "apply → exist in every member"],
  ["availableMs", "apply → Available in every member"],
  ["summedMs", "apply → fleet sum on every template"],
];

/** Summed over the rounds, the efficiency Karmada time ÷ Flotilla time of each measure (above 1: Flotilla is faster). */
export function efficiencies(runs: readonly PropagationRun[]): Record<Measure, number> {
  const total = (s: System, m: Measure) => sum(runs.filter((r) => r.system === s).map((r) => r[m]));
  return Object.fromEntries(MEASURES.map(([m]) => [m, total("karmada", m) / total("flotilla", m)])) as Record<Measure, number>;
}

/** The propagation table: each measure per round and system, the efficiency, and writes per template. */
export function propagationTable(runs: readonly PropagationRun[], templates: number, members: number): string[] {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const per = (sys: System, f: (r: PropagationRun) => string) => runs.filter((r) => r.system === sys).map(f).join(" + ");
  const eff = efficiencies(runs);
  const lines = MEASURES.map(([m, label]) => `${label}: flotilla ${per("flotilla", (r) => s(r[m]))}, karmada ${per("karmada", (r) => s(r[m]))}; efficiency (karmada ÷ flotilla) ${Number.isFinite(eff[m]) ? eff[m].toFixed(2) : "—"}`);
  const mean = (sys: System, f: (r: PropagationRun) => number) => {
    const rs = runs.filter((r) => r.system === sys);
    return rs.length === 0 ? Number.NaN : sum(rs.map(f)) / rs.length;
  };
  const cw = (sys: System) => mean(sys, (r) => r.controlPerTemplate);
  const ew = (sys: System) => mean(sys, (r) => r.eventsPerTemplate);
  const mw = (sys: System) => mean(sys, (r) => r.memberWrites) / (templates * members);
  lines.push(
    `control-apiserver writes per template (besides the template, background excluded): flotilla ${cw("flotilla").toFixed(2)}, karmada ${cw("karmada").toFixed(2)}; ratio ${ratio(cw("flotilla"), cw("karmada"))}` +
      `; without Events: flotilla ${(cw("flotilla") - ew("flotilla")).toFixed(2)}, karmada ${(cw("karmada") - ew("karmada")).toFixed(2)}; ratio ${ratio(cw("flotilla") - ew("flotilla"), cw("karmada") - ew("karmada"))}` +
      `; refused per round: flotilla ${per("flotilla", (r) => String(r.controlRefused))}, karmada ${per("karmada", (r) => String(r.controlRefused))}`,
  );
  lines.push(`member writes per Deployment copy (without Leases): flotilla ${mw("flotilla").toFixed(2)}, karmada ${mw("karmada").toFixed(2)}; ratio ${ratio(mw("flotilla"), mw("karmada"))}`);
  return lines;
}
