// Kubernetes label selectors, plus Gt and Lt on integer label values (Federation v1 had them).
// One rule covers input that slipped past CRD validation: a selector validateLabelSelector
// faults matches nothing, as Kubernetes' LabelSelectorAsSelector errors and Karmada then
// treats the object as not matching. A bad selector therefore selects less, never more.

import type { LabelSelector, LabelSelectorRequirement } from "./api/types.ts";

const INTEGER = /^-?\d+$/;

interface Problem {
  /** Path below the selector, e.g. `.matchExpressions[0].values`. */
  at: string;
  message: string;
}

/** True when the labels satisfy every matchLabels entry and every matchExpressions requirement. */
export function matchesLabelSelector(
  selector: LabelSelector | undefined,
  labels: Record<string, string> | undefined,
): boolean {
  if (selector === undefined) return true;
  if (selectorProblems(selector).length > 0) return false;
  const have = labels ?? {};
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (!Object.hasOwn(have, key) || have[key] !== value) return false;
  }
  return (selector.matchExpressions ?? []).every((req) => requirementHolds(req, have));
}

/** Messages naming each malformed field under `path`; empty when the selector is well formed. */
export function validateLabelSelector(selector: LabelSelector | undefined, path: string): string[] {
  if (selector === undefined) return [];
  return selectorProblems(selector).map((p) => `${path}${p.at}: ${p.message}`);
}

function requirementHolds(req: LabelSelectorRequirement, labels: Record<string, string>): boolean {
  const present = Object.hasOwn(labels, req.key);
  const value = present ? labels[req.key] : undefined;
  const values = req.values ?? [];
  switch (req.operator) {
    case "In":
      return value !== undefined && values.includes(value);
    case "NotIn":
      return value === undefined || !values.includes(value);
    case "Exists":
      return present;
    case "DoesNotExist":
      return !present;
    case "Gt":
    case "Lt": {
      // values[0] is known to be an integer here; the label value may not be, and then it fails.
      if (value === undefined || !INTEGER.test(value)) return false;
      const have = BigInt(value);
      const bound = BigInt(values[0] as string);
      return req.operator === "Gt" ? have > bound : have < bound;
    }
    default:
      return false;
  }
}

function selectorProblems(selector: unknown): Problem[] {
  if (!isObject(selector)) return [{ at: "", message: "must be an object" }];
  const problems: Problem[] = [];
  const { matchLabels, matchExpressions } = selector;
  if (matchLabels !== undefined) {
    if (!isObject(matchLabels)) {
      problems.push({ at: ".matchLabels", message: "must be a map of strings" });
    } else {
      for (const [key, value] of Object.entries(matchLabels)) {
        const at = `.matchLabels[${JSON.stringify(key)}]`;
        if (key === "") problems.push({ at, message: "key must not be empty" });
        if (typeof value !== "string") problems.push({ at, message: "must be a string" });
      }
    }
  }
  if (matchExpressions !== undefined) {
    if (!Array.isArray(matchExpressions)) {
      problems.push({ at: ".matchExpressions", message: "must be a list" });
    } else {
      matchExpressions.forEach((req: unknown, i) => {
        problems.push(...requirementProblems(req).map((p) => ({ ...p, at: `.matchExpressions[${i}]${p.at}` })));
      });
    }
  }
  return problems;
}

function requirementProblems(req: unknown): Problem[] {
  if (!isObject(req)) return [{ at: "", message: "must be an object" }];
  const problems: Problem[] = [];
  if (typeof req.key !== "string" || req.key === "") problems.push({ at: ".key", message: "must not be empty" });
  const values = req.values ?? [];
  if (!Array.isArray(values) || values.some((v) => typeof v !== "string")) {
    problems.push({ at: ".values", message: "must be a list of strings" });
    return problems;
  }
  const op = req.operator;
  switch (op) {
    case "In":
    case "NotIn":
      if (values.length === 0) problems.push({ at: ".values", message: `${op} needs at least one value` });
      break;
    case "Exists":
    case "DoesNotExist":
      if (values.length > 0) problems.push({ at: ".values", message: `${op} takes no values` });
      break;
    case "Gt":
    case "Lt":
      if (values.length !== 1 || !INTEGER.test(values[0] as string)) {
        problems.push({ at: ".values", message: `${op} needs exactly one integer value` });
      }
      break;
    default:
      problems.push({
        at: ".operator",
        message: `must be one of In, NotIn, Exists, DoesNotExist, Gt, Lt (got ${JSON.stringify(op) ?? "nothing"})`,
      });
  }
  return problems;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
