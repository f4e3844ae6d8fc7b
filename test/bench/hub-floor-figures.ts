// bench:hub-floor's figures, pure: a server's memory in parts, and what each connection adds.

/** What process.memoryUsage() gives, the fields used here. */
export interface MemoryUsage {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
}

/** A process's memory in parts (bytes): V8's heap, external memory (Buffers), and the rest of its RSS (code, native allocations). */
export interface MemoryParts {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  rest: number;
}

export function memoryParts(u: MemoryUsage): MemoryParts {
  return { rss: u.rss, heapUsed: u.heapUsed, heapTotal: u.heapTotal, external: u.external, rest: u.rss - u.heapTotal - u.external };
}

/** What each of n connections added to each part, in bytes (undefined parts: no connection). */
export function perConnection(before: MemoryParts, after: MemoryParts, n: number): MemoryParts | undefined {
  if (n <= 0) return undefined;
  const per = (k: keyof MemoryParts) => (after[k] - before[k]) / n;
  return { rss: per("rss"), heapUsed: per("heapUsed"), heapTotal: per("heapTotal"), external: per("external"), rest: per("rest") };
}

const kib = (b: number) => `${(b / 1024).toFixed(1)} KiB`;
const mib = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MiB`;

/** One line: the parts in MiB, or per connection in KiB. */
export function partsLine(p: MemoryParts, unit: "MiB" | "KiB"): string {
  const f = unit === "MiB" ? mib : kib;
  return `RSS ${f(p.rss)}: V8 heap ${f(p.heapUsed)} used of ${f(p.heapTotal)}, external ${f(p.external)}, the rest ${f(p.rest)}`;
}
