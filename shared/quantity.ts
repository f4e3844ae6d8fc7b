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

/**
 * The quantity times 10^scale, rounded up to a whole number, exactly (no float error): scale 3
 * is Kubernetes' MilliValue(), scale 0 its Value(). Throws on malformed input.
 */
export function scaledQuantity(q: string, scale: number): bigint {
  return scaledValue(parseExactQuantity(q), -scale);
}

/**
 * Kubernetes' canonical string for `value` × 10^`pow10` in a format, as Quantity.String() writes
 * it: DecimalSI takes the largest power-of-1000 suffix that keeps the number whole ("1500m",
 * "2", "1k"); BinarySI the largest power of 1024 ("128Mi"), falling back to DecimalSI below 1024
 * or when no binary suffix divides it ("1000000000" stays plain: 1024 does not divide it).
 */
export function canonicalQuantity(value: bigint, pow10: number, format: "DecimalSI" | "BinarySI"): string {
  return formatExactQuantity({ mantissa: value, exponent: pow10, format });
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

// ---- Exact quantities, as Kubernetes' resource.Quantity computes and prints them -------------
// The float functions above are for capacity sums; the Lua interpreter's `kube` library needs
// Kubernetes' own results: exact arithmetic, rounding up to nano-units when parsing, and the
// canonical string (BinarySI only when it divides exactly by 1024, "1500m", "12k").

/** How a quantity prints: Kubernetes' resource.Format. */
export type QuantityFormat = "DecimalSI" | "BinarySI" | "DecimalExponent";

/** A quantity as mantissa × 10^exponent, exactly, with the format it prints in. */
export interface Quantity {
  readonly mantissa: bigint;
  readonly exponent: number;
  readonly format: QuantityFormat;
}

const decimalSuffixes: Record<string, number> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const binarySuffixes: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const quantityPattern = /^([+-]?)(\d*)(?:\.(\d*))?(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?)$/;

const pow10 = (n: number): bigint => 10n ** BigInt(n);
/** Divides rounding away from zero, as Kubernetes rounds a quantity "up". */
const divUp = (a: bigint, b: bigint): bigint => {
  const q = a / b;
  return a % b === 0n ? q : a > 0n ? q + 1n : q - 1n;
};

/** Parses a quantity as resource.ParseQuantity does; throws on malformed input. */
export function parseExactQuantity(s: string): Quantity {
  const m = quantityPattern.exec(s.trim());
  if (!m || (m[2] === "" && (m[3] ?? "") === "")) throw new Error(`invalid quantity ${JSON.stringify(s)}`);
  const [, sign, whole = "", frac = "", exp, suffix = ""] = m;
  let mantissa = BigInt(`${whole}${frac}` || "0") * (sign === "-" ? -1n : 1n);
  let exponent = -frac.length;
  let format: QuantityFormat = "DecimalSI";
  if (exp !== undefined) {
    exponent += Number(exp.slice(1));
    format = "DecimalExponent";
  } else if (suffix in binarySuffixes) {
    mantissa *= 2n ** BigInt(binarySuffixes[suffix] as number);
    format = "BinarySI";
  } else exponent += decimalSuffixes[suffix] as number;
  if (exponent < -9) {
    mantissa = divUp(mantissa, pow10(-9 - exponent));
    exponent = -9;
  }
  return { mantissa, exponent, format };
}

/** The zero quantity (resource.Quantity{}): its format is taken from the first non-zero addend. */
export const zeroQuantity: Quantity = { mantissa: 0n, exponent: 0, format: "DecimalSI" };

/** An integer amount of base units (resource.NewQuantity) or of milli-units (NewMilliQuantity). */
export function quantityOf(value: bigint, format: QuantityFormat, milli = false): Quantity {
  return { mantissa: value, exponent: milli ? -3 : 0, format };
}

/** a + b; the sum keeps a's format unless a is zero (resource.Quantity.Add). */
export function addQuantities(a: Quantity, b: Quantity): Quantity {
  const exponent = Math.min(a.exponent, b.exponent);
  const mantissa = a.mantissa * pow10(a.exponent - exponent) + b.mantissa * pow10(b.exponent - exponent);
  return { mantissa, exponent, format: a.mantissa === 0n ? b.format : a.format };
}

/** The value in units of 10^scale, rounded up (ScaledValue): scaledValue(q, -3) is MilliValue, scaledValue(q, 0) is Value. */
export function scaledValue(q: Quantity, scale: number): bigint {
  return q.exponent >= scale ? q.mantissa * pow10(q.exponent - scale) : divUp(q.mantissa, pow10(scale - q.exponent));
}

/** The nearest float (AsApproximateFloat64). */
export function quantityToNumber(q: Quantity): number {
  return Number(q.mantissa) * 10 ** q.exponent;
}

/** The canonical string Kubernetes prints (Quantity.String). */
export function formatExactQuantity(q: Quantity): string {
  if (q.mantissa === 0n) return "0";
  let format = q.format;
  if (format === "BinarySI") {
    const small = q.mantissa * pow10(Math.max(q.exponent, 0)) < 1024n * pow10(Math.max(-q.exponent, 0)) && q.mantissa * pow10(Math.max(q.exponent, 0)) > -1024n * pow10(Math.max(-q.exponent, 0));
    const whole = q.exponent >= 0 || q.mantissa % pow10(-q.exponent) === 0n;
    if (small || !whole) format = "DecimalSI";
  }
  const sign = q.mantissa < 0n ? "-" : "";
  let m = q.mantissa < 0n ? -q.mantissa : q.mantissa;
  if (format === "BinarySI") {
    m = q.exponent >= 0 ? m * pow10(q.exponent) : m / pow10(-q.exponent);
    let power = 0;
    while (power < 60 && m % 1024n === 0n) {
      m /= 1024n;
      power += 10;
    }
    const suffix = Object.keys(binarySuffixes).find((k) => binarySuffixes[k] === power) ?? "";
    return `${sign}${m}${suffix}`;
  }
  let e = q.exponent;
  while (m % 10n === 0n) {
    m /= 10n;
    e++;
  }
  const r = ((e % 3) + 3) % 3;
  m *= pow10(r);
  e -= r;
  const suffix = format === "DecimalSI" ? Object.keys(decimalSuffixes).find((k) => decimalSuffixes[k] === e) : undefined;
  if (suffix !== undefined) return `${sign}${m}${suffix}`;
  return e === 0 ? `${sign}${m}` : `${sign}${m}e${e}`;
}
