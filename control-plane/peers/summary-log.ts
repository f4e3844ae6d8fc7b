// What this replica offers the leader (issue 22): the latest summary each of its own agents sent
// per workload, each stamped with a sequence number when it arrived, so the leader asks only for
// what changed since its last answer. One entry per (cluster, workload): memory is bounded by what
// the hub admitted (the workloads MetricsWanted lists), however often agents send.
import type { WorkloadMetricsReport } from "../../shared/workload-metrics-wire.ts";

export interface LoggedSummary {
  cluster: string;
  report: WorkloadMetricsReport;
  /** When this replica took it (ms, its clock). */
  at: number;
  seq: number;
}

/** One page of the log after a cursor: summaries in sequence order, the next cursor, and whether more wait. */
export interface SummaryPage {
  summaries: LoggedSummary[];
  next: number;
  more: boolean;
}

/** The most a page holds, whatever the caller asks (a summary is at most a few KiB: a page stays well under 4 MiB). */
export const MAX_PAGE = 1000;

/**
 * The summaries with a sequence number after `after` that are younger than maxAgeMs, oldest change
 * first, at most `limit` (and MAX_PAGE). Older ones are skipped: the leader would count them as
 * missing anyway. Pure over the entries given.
 */
export function pageAfter(entries: Iterable<LoggedSummary>, after: number, limit: number, now: number, maxAgeMs: number): SummaryPage {
  const cap = Math.max(1, Math.min(limit > 0 ? limit : MAX_PAGE, MAX_PAGE));
  const fresh = [...entries].filter((e) => e.seq > after && now - e.at <= maxAgeMs).sort((a, b) => a.seq - b.seq);
  const summaries = fresh.slice(0, cap);
  const last = summaries.at(-1);
  return { summaries, next: last === undefined ? after : last.seq, more: fresh.length > cap };
}

/**
 * How many of a page's items (their encoded sizes, in order) fit in maxBytes: at least one (a
 * summary is bounded far below any budget), so a cursor always moves.
 */
export function fitting(sizes: readonly number[], maxBytes: number): number {
  let total = 0;
  for (const [i, size] of sizes.entries()) {
    total += size;
    if (total > maxBytes && i > 0) return i;
  }
  return sizes.length;
}

export class SummaryLog {
  /** Tells a restarted replica's cursors from this one's. */
  readonly epoch: string;
  private readonly entries = new Map<string, LoggedSummary>();
  private seq = 0;

  constructor(epoch: string) {
    this.epoch = epoch;
  }

  /** A summary this replica's hub took from the cluster's agent (admitted, within bounds). */
  record(cluster: string, report: WorkloadMetricsReport, at: number): void {
    const key = JSON.stringify([cluster, report.key]);
    // Re-inserted so that the map's order stays the sequence order.
    this.entries.delete(key);
    this.entries.set(key, { cluster, report, at, seq: ++this.seq });
  }

  page(after: number, limit: number, now: number, maxAgeMs: number): SummaryPage {
    // Entries older than twice the age limit can never be asked for again: drop them on the way.
    for (const [key, e] of this.entries) if (now - e.at > 2 * maxAgeMs) this.entries.delete(key);
    return pageAfter(this.entries.values(), after, limit, now, maxAgeMs);
  }

  get size(): number {
    return this.entries.size;
  }
}
