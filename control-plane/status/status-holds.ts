// Whether a template's .status already says what would be written (DESIGN §6: hashes and
// comparisons before writes, so an unchanged fleet costs no template write). Pure.

/**
 * Whether every field of want equals the same field in have (have may hold more: the apiserver
 * adds fields of its own, such as null times on conditions). Lists match item by item.
 */
export function statusHolds(want: unknown, have: unknown): boolean {
  if (typeof want !== "object" || want === null) return (want ?? 0) === (have ?? 0);
  if (typeof have !== "object" || have === null) return false;
  if (Array.isArray(want)) return Array.isArray(have) && have.length === want.length && want.every((w, i) => statusHolds(w, have[i]));
  return Object.entries(want).every(([k, v]) => statusHolds(v, (have as Record<string, unknown>)[k]));
}
