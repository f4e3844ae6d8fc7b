// The latency benchmarks' figures: nearest-rank quantiles and the printed table (pure).

/** The nearest-rank q-quantile of xs (NaN for none). */
export function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? Number.NaN;
}

/** One measured operation of one phase: latencies in ms of both sides, and how many never arrived in time. */
export interface Row {
  phase: string;
  op: string;
  measured: number[];
  baseline: number[];
  measuredMissed: number;
  baselineMissed: number;
}

/** What the table calls the two sides (bench:latency's by default). */
export interface TableLabels {
  measured: string;
  baseline: string;
}

const ms = (x: number) => (Number.isNaN(x) ? "—" : `${x.toFixed(0)} ms`);
const ratio = (a: number, b: number) => (Number.isNaN(a) || Number.isNaN(b) || b === 0 ? "—" : (a / b).toFixed(1));

/** The table: p50 and p99 of each side, their ratios measured / baseline, samples and misses (each measured/baseline). */
export function formatTable(rows: readonly Row[], labels: TableLabels = { measured: "flotilla", baseline: "direct" }): string[] {
  const head = ["phase", "op", `${labels.measured} p50`, "p99", `${labels.baseline} p50`, "p99", "ratio p50", "p99", "samples", "missed"];
  const body = rows.map((r) => {
    const [m50, m99, b50, b99] = [quantile(r.measured, 0.5), quantile(r.measured, 0.99), quantile(r.baseline, 0.5), quantile(r.baseline, 0.99)];
    return [r.phase, r.op, ms(m50), ms(m99), ms(b50), ms(b99), ratio(m50, b50), ratio(m99, b99), `${r.measured.length}/${r.baseline.length}`, `${r.measuredMissed}/${r.baselineMissed}`];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] as string).length)));
  return [head, ...body].map((cells) => cells.map((c, i) => c.padEnd(widths[i] as number)).join("  ").trimEnd());
}
