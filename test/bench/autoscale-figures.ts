// bench:autoscale's readings and printed figures (pure): which pods count as up, what the metrics
// API says of a workload, and the p50/p99/max lines, ratios and per-stage medians it prints.
import { parseExactQuantity, quantityToNumber } from "../../shared/quantity.ts";
import { quantile } from "./fleet-figures.ts";

/** The fields of a Pod the bench reads. */
export interface PodJson {
  metadata: { deletionTimestamp?: string };
  status?: { phase?: string; conditions?: { type: string; status: string }[] };
}

/** A workload's pods: those not going away (live), and of them the Running and Ready ones. */
export function podCounts(pods: readonly PodJson[]): { live: number; ready: number } {
  const live = pods.filter((p) => p.metadata.deletionTimestamp === undefined && p.status?.phase !== "Succeeded" && p.status?.phase !== "Failed");
  const ready = live.filter((p) => p.status?.phase === "Running" && p.status.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true);
  return { live: live.length, ready: ready.length };
}

/** One item of metrics.k8s.io/v1beta1 PodMetricsList. */
export interface PodMetricsJson {
  containers: { usage: { cpu: string } }[];
}

/** Each listed pod's CPU as a whole percent of its request (the pods' containers summed). */
export function utilizations(items: readonly PodMetricsJson[], requestCores: number): number[] {
  return items.map((p) => Math.floor((100 * p.containers.reduce((s, c) => s + quantityToNumber(parseExactQuantity(c.usage.cpu)), 0)) / requestCores));
}

const secs = (ms: number) => (Number.isNaN(ms) ? "—" : `${(ms / 1000).toFixed(1)} s`);

/** "p50 32.5 s, p99 45.0 s, max 45.0 s" over the trials (— where there are none). */
export function figures(xs: readonly number[]): string {
  const max = xs.length === 0 ? Number.NaN : Math.max(...xs);
  return `p50 ${secs(quantile([...xs], 0.5))}, p99 ${secs(quantile([...xs], 0.99))}, max ${secs(max)}`;
}

/** "p50 1.52, p99 1.71": a's quantiles over b's (— where either side has none). */
export function ratios(a: readonly number[], b: readonly number[]): string {
  const r = (q: number) => {
    const x = quantile([...a], q) / quantile([...b], q);
    return Number.isFinite(x) ? x.toFixed(2) : "—";
  };
  return `p50 ${r(0.5)}, p99 ${r(0.99)}`;
}

/** A trial's milestones of one mode: ms from the load step to each, by name. */
export type Milestones = Record<string, number>;

/**
 * The median time spent between consecutive milestones, in the given order (the first stage
 * starts at the step): "step → metrics 12.0 s, metrics → template 18.5 s, …". A trial that lacks
 * either end of a stage is left out of that stage.
 */
export function stageMedians(trials: readonly Milestones[], order: readonly string[]): string {
  return order
    .map((to, i) => {
      const from = i === 0 ? undefined : (order[i - 1] as string);
      const spans = trials.flatMap((t) => {
        const end = t[to];
        const start = from === undefined ? 0 : t[from];
        return end === undefined || start === undefined ? [] : [Math.max(0, end - start)];
      });
      return `${from ?? "step"} → ${to} ${secs(quantile(spans, 0.5))}`;
    })
    .join(", ");
}

/** One trial's milestones as "metrics 12.0 s, template 30.5 s, …", in the given order. */
export function milestoneLine(t: Milestones, order: readonly string[]): string {
  return order.map((name) => `${name} ${secs(t[name] ?? Number.NaN)}`).join(", ");
}
