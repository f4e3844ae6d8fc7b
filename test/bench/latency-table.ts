// The latency benchmark's figures: nearest-rank quantiles and the printed table (pure).

/** The nearest-rank q-quantile of xs (NaN for none). */
export function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? Number.NaN;
}

/** One measured operation of one phase: latencies in ms, and how many never arrived in time. */
export interface Row {
  phase: string;
  op: string;
  flotilla: number[];
  direct: number[];
  flotillaMissed: number;
  directMissed: number;
}

const ms = (x: number) => (Number.isNaN(x) ? "—" : `${x.toFixed(0)} ms`);
const ratio = (a: number, b: number) => (Number.isNaN(a) || Number.isNaN(b) || b === 0 ? "—" : (a / b).toFixed(1));

/** The table: p50 and p99 of each side, their ratios Flotilla / direct, samples and misses. */
export function formatTable(rows: readonly Row[]): string[] {
  const head = ["phase", "op", "flotilla p50", "p99", "direct p50", "p99", "ratio p50", "p99", "samples", "missed"];
  const body = rows.map((r) => {
    const [f50, f99, d50, d99] = [quantile(r.flotilla, 0.5), quantile(r.flotilla, 0.99), quantile(r.direct, 0.5), quantile(r.direct, 0.99)];
    return [r.phase, r.op, ms(f50), ms(f99), ms(d50), ms(d99), ratio(f50, d50), ratio(f99, d99), `${r.flotilla.length}/${r.direct.length}`, `${r.flotillaMissed}/${r.directMissed}`];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] as string).length)));
  return [head, ...body].map((cells) => cells.map((c, i) => c.padEnd(widths[i] as number)).join("  ").trimEnd());
}
