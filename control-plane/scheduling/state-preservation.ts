// State preservation (Karmada's StatePreservation): when a workload leaves a cluster, each rule's
// JSONPath is read from that cluster's status of the workload and kept on the eviction task as a
// label for the new copy. The JSONPath is Kubernetes' template syntax (client-go util/jsonpath,
// which Karmada runs with missing keys refused), rooted at .status: text with {…} expressions of
// fields (.a.b, ['a.b']), indexes ([0], [-1]), slices ([0:2]), wildcards (.*, [*]), recursive
// descent (..name) and filters ([?(@.type=="Ready")], with ==, !=, <, >, <=, >= or a bare
// existence test). Not supported: {range}/{end} blocks; a template that uses them is refused with a
// message. Pure.
import type { AggregatedStatusItem, StatePreservation } from "../../shared/api/types.ts";

/** The labels the rules read, or the first rule that could not be read and why. */
export type PreservedState = { ok: true; labels: Record<string, string> } | { ok: false; rule: string; message: string };

export function preservedLabelState(preservation: StatePreservation | undefined, status: Record<string, unknown> | undefined): PreservedState {
  const labels: Record<string, string> = {};
  for (const rule of preservation?.rules ?? []) {
    if (status === undefined) return { ok: false, rule: rule.aliasLabelName, message: "the workload's status has not been reported from that cluster" };
    const value = evaluateJsonPath(rule.jsonPath, status);
    if (!value.ok) return { ok: false, rule: rule.aliasLabelName, message: value.message };
    if (!LABEL_VALUE.test(value.text)) return { ok: false, rule: rule.aliasLabelName, message: `${rule.jsonPath} read ${JSON.stringify(value.text.slice(0, 80))}, which is not a label value (63 characters at most: letters, digits, '-', '_', '.', starting and ending alphanumeric)` };
    labels[rule.aliasLabelName] = value.text;
  }
  return { ok: true, labels };
}

/**
 * The labels statePreservation reads from a cluster's status of the workload; a rule that reads
 * nothing leaves the task without labels and says why in its message (the move is not held up).
 */
export function statePreserved(preservation: StatePreservation | undefined, item: AggregatedStatusItem | undefined): { labels?: Record<string, string>; message?: string } {
  if (preservation === undefined || preservation.rules.length === 0) return {};
  const r = preservedLabelState(preservation, item?.status);
  return r.ok ? { labels: r.labels } : { message: `statePreservation rule ${r.rule}: ${r.message}` };
}

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$/;

export type JsonPathResult = { ok: true; text: string } | { ok: false; message: string };

/** A Kubernetes JSONPath template over data, printed as kubectl prints it (results joined by spaces). */
export function evaluateJsonPath(template: string, data: unknown): JsonPathResult {
  let out = "";
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf("{", i);
    if (open < 0) {
      out += template.slice(i);
      break;
    }
    out += template.slice(i, open);
    const close = template.indexOf("}", open);
    if (close < 0) return { ok: false, message: `${template}: unclosed {` };
    const expr = template.slice(open + 1, close).trim();
    if (/^(range|end)\b/.test(expr)) return { ok: false, message: `${template}: {range}/{end} blocks are not supported` };
    const steps = parse(expr);
    if (typeof steps === "string") return { ok: false, message: `${template}: ${steps}` };
    let values: unknown[] = [data];
    for (const step of steps) {
      values = values.flatMap((v) => step(v));
      if (values.length === 0) return { ok: false, message: `${template}: ${expr} is not found` };
    }
    out += values.map(print).join(" ");
    i = close + 1;
  }
  return { ok: true, text: out };
}

type Step = (v: unknown) => unknown[];

function parse(expr: string): Step[] | string {
  const steps: Step[] = [];
  let rest = expr.startsWith("$") ? expr.slice(1) : expr;
  while (rest.length > 0) {
    let m: RegExpMatchArray | null;
    if ((m = /^\.\.([A-Za-z0-9_-]+)/.exec(rest))) {
      const name = m[1] as string;
      steps.push((v) => descend(v).flatMap((x) => field(x, name)));
    } else if ((m = /^\.(\*|[A-Za-z0-9_-]+)/.exec(rest))) {
      const name = m[1] as string;
      steps.push(name === "*" ? children : (v) => field(v, name));
    } else if ((m = /^\[\s*'([^']*)'\s*\]/.exec(rest)) || (m = /^\[\s*"([^"]*)"\s*\]/.exec(rest))) {
      const name = m[1] as string;
      steps.push((v) => field(v, name));
    } else if ((m = /^\[\s*\*\s*\]/.exec(rest))) {
      steps.push(children);
    } else if ((m = /^\[\s*(-?\d*)\s*:\s*(-?\d*)\s*\]/.exec(rest))) {
      const [from, to] = [m[1] === "" ? undefined : Number(m[1]), m[2] === "" ? undefined : Number(m[2])];
      steps.push((v) => (Array.isArray(v) ? v.slice(from, to) : []));
    } else if ((m = /^\[\s*(-?\d+)\s*\]/.exec(rest))) {
      const n = Number(m[1]);
      steps.push((v) => (Array.isArray(v) && v.at(n) !== undefined ? [v.at(n)] : []));
    } else if ((m = /^\[\s*\?\(\s*@((?:\.[A-Za-z0-9_-]+)+)\s*(?:(==|!=|<=|>=|<|>)\s*('[^']*'|"[^"]*"|-?\d+(?:\.\d+)?|true|false))?\s*\)\s*\]/.exec(rest))) {
      const path = (m[1] as string).slice(1).split(".");
      const op = m[2];
      const literal = m[3] === undefined ? undefined : literalOf(m[3]);
      steps.push((v) => (Array.isArray(v) ? v : []).filter((item) => matches(item, path, op, literal)));
    } else {
      return `cannot parse ${JSON.stringify(rest)}`;
    }
    rest = rest.slice(m[0].length);
  }
  return steps;
}

function field(v: unknown, name: string): unknown[] {
  if (v === null || typeof v !== "object" || Array.isArray(v) || !Object.hasOwn(v, name)) return [];
  return [(v as Record<string, unknown>)[name]];
}

function children(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  if (v !== null && typeof v === "object") return Object.keys(v).sort().map((k) => (v as Record<string, unknown>)[k]);
  return [];
}

function descend(v: unknown): unknown[] {
  return [v, ...children(v).flatMap(descend)];
}

function literalOf(text: string): unknown {
  if (text.startsWith("'") || text.startsWith('"')) return text.slice(1, -1);
  if (text === "true" || text === "false") return text === "true";
  return Number(text);
}

function matches(item: unknown, path: string[], op: string | undefined, literal: unknown): boolean {
  let values: unknown[] = [item];
  for (const name of path) values = values.flatMap((x) => field(x, name));
  if (values.length === 0) return false;
  if (op === undefined) return true;
  const v = values[0];
  switch (op) {
    case "==":
      return v === literal;
    case "!=":
      return v !== literal;
    default:
      if (typeof v !== "number" || typeof literal !== "number") return false;
      return op === "<" ? v < literal : op === ">" ? v > literal : op === "<=" ? v <= literal : v >= literal;
  }
}

function print(v: unknown): string {
  if (typeof v === "string") return v;
  if (v === null || v === undefined) return "";
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}
