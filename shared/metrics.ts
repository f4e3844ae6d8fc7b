// The process's Prometheus metrics: one registry of our own (not prom-client's global one, which
// any library in the process may fill), Node's default metrics, and helpers to declare ours.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

/** Every metric this process serves on /metrics. */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

/** Label name → value. */
export type Labels = Record<string, string>;

/** What a metric reads at scrape time: one value, or one per label set (repeated sets add up). */
export type Reading = number | Iterable<readonly [Labels, number]>;

/** A counter its module increments; made once per name. */
export function counter(name: string, help: string, labelNames: readonly string[] = []): Counter {
  return existing(name, Counter) ?? new Counter({ name, help, labelNames, registers: [registry] });
}

/** A histogram (seconds by default buckets); made once per name. */
export function histogram(name: string, help: string, labelNames: readonly string[] = [], buckets?: number[]): Histogram {
  return existing(name, Histogram) ?? new Histogram({ name, help, labelNames, registers: [registry], ...(buckets ? { buckets } : {}) });
}

/**
 * A gauge whose values read() gives at scrape time. It replaces an earlier metric of the same
 * name: a component started again in the same process reports its own state, not a stale one.
 */
export function gaugeOf(name: string, help: string, read: () => Reading, labelNames: readonly string[] = []): Gauge {
  return readAtScrape(Gauge, name, help, read, labelNames);
}

/** A counter read at scrape time from a count kept elsewhere (monotonic by contract); as gaugeOf. */
export function counterOf(name: string, help: string, read: () => Reading, labelNames: readonly string[] = []): Counter {
  return readAtScrape(Counter, name, help, read, labelNames);
}

function readAtScrape<M extends Gauge | Counter>(
  Kind: new (config: { name: string; help: string; labelNames: readonly string[]; registers: Registry[]; collect(this: M): void }) => M,
  name: string,
  help: string,
  read: () => Reading,
  labelNames: readonly string[],
): M {
  registry.removeSingleMetric(name);
  return new Kind({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      fill(read(), (labels, v) => this.inc(labels, v));
    },
  });
}

function fill(reading: Reading, add: (labels: Labels, value: number) => void): void {
  if (typeof reading === "number") add({}, reading);
  else for (const [labels, value] of reading) add(labels, value);
}

function existing<T>(name: string, kind: abstract new (...args: never[]) => T): T | undefined {
  const m = registry.getSingleMetric(name);
  if (m === undefined) return undefined;
  if (!(m instanceof kind)) throw new Error(`metric ${name} is already registered as another type`);
  return m;
}
