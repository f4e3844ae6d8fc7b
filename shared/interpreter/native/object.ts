// Reading and copying the untyped JSON of Kubernetes objects, for the native interpreters: pure.
// Malformed pieces read as absent, as Go's typed conversion would leave them at their zero value.
import type { KubeObject } from "../../api/types.ts";

export type Json = Record<string, unknown>;

export function isRecord(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The value as an object; anything else reads as {}. */
export function rec(v: unknown): Json {
  return isRecord(v) ? v : {};
}

/** The object entries of a list; anything that is not a list gives none. */
export function records(v: unknown): Json[] {
  return Array.isArray(v) ? v.filter(isRecord) : [];
}

/** A whole number, or 0 (Go's zero value for an absent int). */
export function int(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) ? v : 0;
}

export function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/** The value at `path`, or undefined when a step is missing. */
export function at(root: unknown, ...path: string[]): unknown {
  let here: unknown = root;
  for (const key of path) {
    if (!isRecord(here)) return undefined;
    here = here[key];
  }
  return here;
}

/** A deep copy, so an interpreter never changes its input. */
export function copy<T extends KubeObject>(obj: T): T {
  return structuredClone(obj);
}

/** The object's `.status` as an object (a copy's, so callers may change it). */
export function statusOf(obj: KubeObject): Json {
  return rec(obj.status);
}

/** The first condition of a type in a status' conditions. */
export function condition(status: Json, type: string): Json | undefined {
  return records(status.conditions).find((c) => c.type === type);
}

/** Sets `path` under root to value, creating objects on the way (Go's SetNestedField). */
export function setAt(root: Json, path: readonly string[], value: unknown): void {
  let here = root;
  for (const key of path.slice(0, -1)) {
    if (!isRecord(here[key])) here[key] = {};
    here = here[key] as Json;
  }
  const last = path[path.length - 1];
  if (last !== undefined) here[last] = value;
}

/** An RFC 3339 time's instant, or undefined when absent or malformed. */
export function instant(v: unknown): number | undefined {
  if (typeof v !== "string") return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : t;
}

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The statuses members reported, in item order (members not yet reporting left out). */
export function statuses(items: readonly { status?: Json }[]): Json[] {
  return items.flatMap((i) => (i.status === undefined ? [] : [i.status]));
}
