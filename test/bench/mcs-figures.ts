// bench:mcs's figures (pure): writes per change from the apiservers' counters, and the printed
// table and summary of each fleet size.
import { formatWrites, isLease, totalWrites, type WriteCounts } from "./apiserver-metrics.ts";
import { quantile } from "./latency-table.ts";

/** Write requests per endpoint change, Leases left out (the clusters' and agents' heartbeats). */
export interface WritesPerChange {
  /** The control apiserver's, the Clusters' heartbeats (clusters/status) left out too, and those on memberserviceexports (the agents' reports as records). */
  control: { total: number; records: number };
  /** member1's with the Service exported, and on its unexported twin (kube's own controllers alone). */
  member1: { exported: number; plain: number };
  /** Each other member's on average: all, and on endpointslices (the imported slice). */
  others: { total: number; slices: number };
}

/** The resource of a write key ("PATCH endpointslices (409)" → "endpointslices"). */
export const resourceOf = (key: string) => key.split(" ")[1] ?? "";

const notLease = (k: string) => !isLease(k);
const on = (resource: string) => (k: string) => resourceOf(k) === resource;

/**
 * Per change, from each apiserver's writes over k changes of the exported Service (`exported`, by
 * cluster name: control, member1, member2, …) and over k changes of its unexported twin in member1
 * (`plain`: member1's only is read).
 */
export function writesPerChange(exported: ReadonlyMap<string, WriteCounts>, plain: ReadonlyMap<string, WriteCounts>, k: number): WritesPerChange {
  const of = (m: ReadonlyMap<string, WriteCounts>, name: string) => m.get(name) ?? new Map<string, number>();
  const others = [...exported.keys()].filter((n) => n !== "control" && n !== "member1");
  const mean = (keep: (key: string) => boolean) => (others.length === 0 ? Number.NaN : others.reduce((s, n) => s + totalWrites(of(exported, n), (x) => notLease(x) && keep(x)), 0) / others.length / k);
  return {
    control: { total: totalWrites(of(exported, "control"), (x) => notLease(x) && !on("clusters/status")(x)) / k, records: totalWrites(of(exported, "control"), on("memberserviceexports")) / k },
    member1: { exported: totalWrites(of(exported, "member1"), notLease) / k, plain: totalWrites(of(plain, "member1"), notLease) / k },
    others: { total: mean(() => true), slices: mean(on("endpointslices")) },
  };
}

/** One fleet size's measurement: ms from the scale request, per change. */
export interface McsRun {
  members: number;
  /** member1's own EndpointSlice shows the new ready set (the baseline). */
  own: number[];
  /** The last of the other members' imported slices shows it. */
  slowest: number[];
  /** Each other member's times, by name. */
  perMember: Map<string, number[]>;
  writes: WritesPerChange;
  /** Every write over the K changes, Leases left out, by apiserver ("member1 (unexported twin)" for the twin's). */
  breakdown: Map<string, WriteCounts>;
}

/** The counts without Leases. */
export function withoutLeases(c: WriteCounts): WriteCounts {
  return new Map([...c].filter(([k]) => notLease(k)));
}

const ms = (x: number) => (Number.isNaN(x) ? "—" : `${Math.round(x)}`);
const ratio = (a: number, b: number) => (Number.isNaN(a) || Number.isNaN(b) || b === 0 ? "—" : (a / b).toFixed(1));
const f2 = (x: number) => (Number.isNaN(x) ? "—" : x.toFixed(2));
const stats = (xs: number[]) => [quantile(xs, 0.5), quantile(xs, 0.99), xs.length === 0 ? Number.NaN : Math.max(...xs)] as const;

/** Left-aligned columns. */
function columns(rows: string[][]): string[] {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i] as number)).join("  ").trimEnd());
}

/** The table of one fleet size. */
export function formatRun(run: McsRun): string[] {
  const [o50, o99, omax] = stats(run.own);
  const [s50, s99, smax] = stats(run.slowest);
  const w = run.writes;
  const perMember = [...run.perMember].map(([n, xs]) => `${n} ${ms(quantile(xs, 0.5))}`).join(", ");
  return [
    `${run.members} members, ${run.own.length} endpoint changes in member1 (ms from the scale request):`,
    ...columns([
      ["", "p50", "p99", "max"],
      ["member1's own EndpointSlice (baseline)", ms(o50), ms(o99), ms(omax)],
      [`imported slice, slowest of ${run.members - 1} other member${run.members > 2 ? "s" : ""}`, ms(s50), ms(s99), ms(smax)],
      ["ratio import / own", ratio(s50, o50), ratio(s99, o99), ""],
    ]).map((l) => `  ${l}`),
    `  p50 per member: ${perMember}`,
    "  writes per change (Leases left out):",
    ...columns([
      ["control apiserver, Cluster heartbeats left out", f2(w.control.total), `of which memberserviceexports ${f2(w.control.records)}`],
      ["each other member", f2(w.others.total), `of which endpointslices ${f2(w.others.slices)}`],
      ["member1", f2(w.member1.exported), `unexported twin ${f2(w.member1.plain)}: Flotilla's ${f2(w.member1.exported - w.member1.plain)}`],
    ]).map((l) => `    ${l}`),
    `  every write over the ${run.own.length} changes, Leases left out:`,
    ...[...run.breakdown].map(([n, c]) => `    ${n}: ${formatWrites(c) || "none"}`),
  ];
}

/** One line over every fleet size. */
export function summaryLine(runs: readonly McsRun[]): string {
  const parts = runs.map((r) => {
    const [o50, o99] = stats(r.own);
    const [s50, s99] = stats(r.slowest);
    const flotilla = r.writes.control.total + (r.members - 1) * r.writes.others.total + (r.writes.member1.exported - r.writes.member1.plain);
    return `${r.members} members: import p50/p99 ${ms(s50)}/${ms(s99)} ms against own slice ${ms(o50)}/${ms(o99)} ms (×${ratio(s50, o50)}/×${ratio(s99, o99)}), ${f2(flotilla)} writes per change besides the member's own`;
  });
  return `bench:mcs: ${parts.join("; ")}`;
}
