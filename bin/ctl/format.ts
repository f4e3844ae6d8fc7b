// How flotillactl prints: aligned tables by default (kubectl's look), or JSON / YAML. Pure.
import { stringify } from "yaml";
import { parseQuantity } from "../../shared/quantity.ts";

export type OutputFormat = "table" | "json" | "yaml";

/** The output format a flag names, or an error message. */
export function outputFormat<F extends string>(value: string, allowed: readonly F[]): F | { error: string } {
  return (allowed as readonly string[]).includes(value) ? (value as F) : { error: `-o ${JSON.stringify(value)}: choose one of ${allowed.join(", ")}` };
}

/** Columns padded to the widest cell, separated by three spaces; headers upper case. */
export function table(headers: string[], rows: string[][]): string {
  const widths = columnWidths(headers, rows);
  return [headers.map((h) => h.toUpperCase()), ...rows].map((r) => tableRow(r, widths)).join("\n");
}

/** One row of a table whose columns are this wide (a later row of a watch, printed under the table). */
export function tableRow(cells: readonly string[], widths: readonly number[]): string {
  return cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join("   ").trimEnd();
}

/** The widths table() gives its columns. */
export function columnWidths(headers: readonly string[], rows: readonly string[][]): number[] {
  return headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
}

/** A value as JSON (2-space indent) or YAML. */
export function structured(value: unknown, format: "json" | "yaml"): string {
  return format === "json" ? JSON.stringify(value, null, 2) : stringify(value).trimEnd();
}

/** "3m ago" style age of an RFC 3339 time, relative to now; "-" when unknown. */
export function age(time: string, now: number): string {
  const at = Date.parse(time);
  if (time === "" || Number.isNaN(at)) return "-";
  const s = Math.max(0, Math.round((now - at) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.round(s / 60)}m`;
  if (s < 172800) return `${Math.round(s / 3600)}h`;
  return `${Math.round(s / 86400)}d`;
}

/** "Kind ns/name" of a template the Admin API names, or `fallback` when it names none. */
export function templateTitle(t: { kind: string; namespace: string; name: string } | undefined, fallback: string): string {
  return t === undefined ? fallback : `${t.kind} ${t.namespace ? `${t.namespace}/` : ""}${t.name}`;
}

/** Splits `kind/name`; an error message when it is not that shape. */
export function kindAndName(arg: string | undefined): { kind: string; name: string } | { error: string } {
  const m = /^([^/\s]+)\/([^/\s]+)$/.exec(arg ?? "");
  if (m === null) return { error: `expected <kind>/<name> (e.g. deployment/web), got ${JSON.stringify(arg ?? "")}` };
  return { kind: m[1] as string, name: m[2] as string };
}

/** A kind's plural in prose, as English makes it: PropagationPolicy → PropagationPolicies, Ingress → Ingresses. */
export function kindPlural(kind: string): string {
  if (/[^aeiou]y$/i.test(kind)) return `${kind.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/i.test(kind)) return `${kind}es`;
  return `${kind}s`;
}

/** A byte quantity for people: binary units, one decimal below 10 ("1.5Gi", "128Gi"); "-" when unknown. */
export function bytes(q: string | undefined): string {
  if (q === undefined || q === "") return "-";
  let n: number;
  try {
    n = parseQuantity(q);
  } catch {
    return q;
  }
  const units = ["", "Ki", "Mi", "Gi", "Ti", "Pi"];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${n < 10 && i > 0 ? Number(n.toFixed(1)) : Math.round(n)}${units[i]}`;
}
