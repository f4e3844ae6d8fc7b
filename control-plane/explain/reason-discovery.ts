// Which condition and status reasons a TypeScript source writes, read from its text: the test
// of reasons.ts runs it over control-plane/, agent/ and shared/ so that a reason written later
// without an explanation fails. Pure (the caller reads the files).
//
// What counts as writing a reason (a PascalCase word, as Kubernetes reasons are):
//   - a string literal in the expression given to a `reason…` property or variable
//     (`reason: "X"`, `reason: ok ? "A" : "B"`, `const reason = …`, a default `reason = "X"`),
//     comparisons (`reason === "X"`) excepted: they read a reason, they do not write one;
//   - a constant given to one (`reason: DELETION_HELD`), resolved through the constants
//     (`const DELETION_HELD = "DeletionHeld"`) of every source read;
//   - every member of a string union type named …Reason, …Phase or …StatusWord;
//   - a template literal (`reason: \`Rollout${phase}\``): its fixed prefix, as a pattern "Rollout*".
// Reasons written positionally (`f("X")`) are not seen: write them through one of the above.

/** What one source writes: reasons, constants it gives as reasons, patterns, and constants it defines. */
export interface SourceReasons {
  reasons: string[];
  constantsUsed: string[];
  patterns: string[];
  constants: Record<string, string>;
}

const WORD = /^[A-Z][A-Za-z]+$/;
const LITERAL = /["']([A-Z][A-Za-z]+)["']/g;

/** The reasons one source writes, as the header says. */
export function reasonsInSource(source: string): SourceReasons {
  const text = stripComments(source);
  const reasons = new Set<string>();
  const constantsUsed = new Set<string>();
  const patterns = new Set<string>();
  const constants: Record<string, string> = {};
  // A reason property or variable given a value: up to the end of that expression.
  for (const m of text.matchAll(/\b\w*reason\w*\??\s*(?::|=(?![=>]))\s*([^,;\n}]*)/gi)) {
    const expression = m[1] ?? "";
    if (/^\s*(string|undefined|number|boolean)\b/.test(expression) && !/["'`]/.test(expression)) continue;
    for (const lit of expression.matchAll(LITERAL)) {
      // Skip a literal compared to, not given: `x === "A" ? …`.
      const before = expression.slice(0, lit.index);
      if (/[!=]==?\s*$/.test(before)) continue;
      reasons.add(lit[1] ?? "");
    }
    const constant = /^\s*([A-Z][A-Z0-9_]{2,})\b\s*$/.exec(expression);
    if (constant !== null) constantsUsed.add(constant[1] ?? "");
    const template = /^\s*`([A-Z][A-Za-z]*)\$\{/.exec(expression);
    if (template !== null) patterns.add(`${template[1]}*`);
  }
  for (const m of text.matchAll(/\bconst\s+([A-Z][A-Z0-9_]{2,})\s*=\s*["']([^"']*)["']/g)) {
    if (WORD.test(m[2] ?? "")) constants[m[1] ?? ""] = m[2] ?? "";
  }
  for (const m of text.matchAll(/\btype\s+\w*(?:Reason|Phase|StatusWord)\s*=([^;]*);/g)) {
    const members = (m[1] ?? "").split("|").map((s) => s.trim());
    for (const member of members) {
      const lit = /^["']([A-Z][A-Za-z]+)["']$/.exec(member);
      if (lit !== null) reasons.add(lit[1] ?? "");
    }
  }
  return { reasons: [...reasons].sort(), constantsUsed: [...constantsUsed].sort(), patterns: [...patterns].sort(), constants };
}

/** Over every source: the reasons written, constants resolved; a constant no source defines is reported. */
export function reasonsInSources(sources: readonly { path: string; text: string }[]): { reasons: Map<string, string[]>; patterns: Map<string, string[]>; unresolved: string[] } {
  const found = sources.map((s) => ({ path: s.path, ...reasonsInSource(s.text) }));
  const constants = Object.assign({}, ...found.map((f) => f.constants)) as Record<string, string>;
  const reasons = new Map<string, string[]>();
  const patterns = new Map<string, string[]>();
  const unresolved: string[] = [];
  const add = (into: Map<string, string[]>, word: string, path: string) => into.set(word, [...(into.get(word) ?? []), path]);
  for (const f of found) {
    for (const r of f.reasons) add(reasons, r, f.path);
    for (const p of f.patterns) add(patterns, p, f.path);
    for (const c of f.constantsUsed) {
      const value = constants[c];
      if (value === undefined) unresolved.push(`${f.path}: ${c}`);
      else add(reasons, value, f.path);
    }
  }
  return { reasons, patterns, unresolved };
}

function stripComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}
