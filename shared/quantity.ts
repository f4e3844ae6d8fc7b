// Kubernetes resource quantities ("500m", "2", "64Gi", "1e3") as numbers, for summing capacity.
const suffixes: Record<string, number> = {
  "": 1, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

const QUANTITY = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:[eE]([+-]?\d+))?([a-zA-Z]*)$/;

/** The quantity's value in base units (cores, bytes, count); throws on malformed input. */
export function parseQuantity(q: string): number {
  const m = QUANTITY.exec(q.trim());
  const factor = m ? suffixes[m[3] ?? ""] : undefined;
  if (!m || factor === undefined) throw new Error(`invalid quantity ${JSON.stringify(q)}`);
  return Number(m[1]) * 10 ** Number(m[2] ?? 0) * factor;
}

/** Decimal exponent and binary exponent of each suffix, for exact arithmetic. */
const exactSuffixes: Record<string, [pow10: number, pow2: number]> = {
  "": [0, 0], m: [-3, 0], k: [3, 0], M: [6, 0], G: [9, 0], T: [12, 0], P: [15, 0], E: [18, 0],
  Ki: [0, 10], Mi: [0, 20], Gi: [0, 30], Ti: [0, 40], Pi: [0, 50], Ei: [0, 60],
};

/**
 * The quantity times 10^scale, rounded up to a whole number, exactly (no float error): scale 3
 * is Kubernetes' MilliValue(), scale 0 its Value(). Throws on malformed input.
 */
export function scaledQuantity(q: string, scale: number): bigint {
  const m = QUANTITY.exec(q.trim());
  const exps = m ? exactSuffixes[m[3] ?? ""] : undefined;
  if (!m || exps === undefined) throw new Error(`invalid quantity ${JSON.stringify(q)}`);
  const [whole = "", fraction = ""] = (m[1] ?? "").split(".");
  let num = BigInt(`${whole}${fraction}`.replace(/^\+/, "") || "0") * 2n ** BigInt(exps[1]);
  const pow10 = exps[0] + Number(m[2] ?? 0) + scale - fraction.length;
  let den = 1n;
  if (pow10 >= 0) num *= 10n ** BigInt(pow10);
  else den = 10n ** BigInt(-pow10);
  const floor = num / den;
  return num % den > 0n ? floor + 1n : floor;
}

const decimalSuffixes: Record<number, string> = { [-9]: "n", [-6]: "u", [-3]: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E" };
const binarySuffixes = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];

/**
 * Kubernetes' canonical string for `value` × 10^`pow10` in a format, as Quantity.String() writes
 * it: DecimalSI takes the largest power-of-1000 suffix that keeps the number whole ("1500m",
 * "2", "1k"); BinarySI the largest power of 1024 ("128Mi"), falling back to DecimalSI below 1024
 * or when no binary suffix divides it ("1000000000" stays plain: 1024 does not divide it).
 */
export function canonicalQuantity(value: bigint, pow10: number, format: "DecimalSI" | "BinarySI"): string {
  if (value === 0n) return "0";
  if (format === "BinarySI" && pow10 === 0 && (value >= 1024n || value <= -1024n)) {
    let amount = value;
    let exponent = 0;
    while (amount % 1024n === 0n && exponent < binarySuffixes.length - 1) {
      amount /= 1024n;
      exponent++;
    }
    return `${amount}${binarySuffixes[exponent]}`;
  }
  let amount = value;
  let exponent = pow10;
  while (amount % 10n === 0n) {
    amount /= 10n;
    exponent++;
  }
  const over = ((exponent % 3) + 3) % 3;
  amount *= 10n ** BigInt(over);
  exponent -= over;
  const suffix = decimalSuffixes[exponent];
  return suffix === undefined ? `${amount}e${exponent}` : `${amount}${suffix}`;
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
