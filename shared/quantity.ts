// Kubernetes resource quantities ("500m", "2", "64Gi", "1e3") as numbers, for summing capacity.
const suffixes: Record<string, number> = {
  "": 1, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

/** The quantity's value in base units (cores, bytes, count); throws on malformed input. */
export function parseQuantity(q: string): number {
  const m = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:[eE]([+-]?\d+))?([a-zA-Z]*)$/.exec(q.trim());
  const factor = m ? suffixes[m[3] ?? ""] : undefined;
  if (!m || factor === undefined) throw new Error(`invalid quantity ${JSON.stringify(q)}`);
  return Number(m[1]) * 10 ** Number(m[2] ?? 0) * factor;
}

/** A value back as a quantity: whole numbers plain, fractions in milli-units. */
export function formatQuantity(value: number): string {
  if (Number.isInteger(value)) return String(value);
  return `${Math.round(value * 1000)}m`;
}

/** Sums quantities per resource name (unparseable values are skipped). */
export function sumQuantities(lists: Record<string, string>[]): Record<string, string> {
  const sums = new Map<string, number>();
  for (const list of lists) {
    for (const [name, q] of Object.entries(list)) {
      try {
        sums.set(name, (sums.get(name) ?? 0) + parseQuantity(q));
      } catch {
        // a malformed quantity from the member: leave it out
      }
    }
  }
  return Object.fromEntries([...sums].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, formatQuantity(v)]));
}
