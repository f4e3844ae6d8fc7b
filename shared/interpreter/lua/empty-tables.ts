// Karmada's fix for empty Lua tables in a script's result (luavm's ConvertLuaResultInto). An
// empty table cannot say whether it was an object or a list, so the encoder writes `[]`; the
// reference objects (desired and observed for Retain, the input for ReviseReplica, none
// elsewhere) decide: a field whose path (list indices dropped) was `{}` there becomes `{}`, one
// that was `[]` stays, and any other empty field is deleted.
import type { JsonValue } from "./convert.ts";

/** What the result is read into: an object type (status, requires, a whole object) or a list. */
export type TargetShape = "object" | "list";

type Path = string;
const SEP = "\u0000";

function collectEmpties(v: JsonValue, path: string[], lists: Set<Path>, objects: Set<Path>): void {
  const visit = (child: JsonValue, childPath: string[]) => {
    if (Array.isArray(child) && child.length === 0) lists.add(childPath.join(SEP));
    else if (isObject(child) && Object.keys(child).length === 0) objects.add(childPath.join(SEP));
    else collectEmpties(child, childPath, lists, objects);
  };
  if (Array.isArray(v)) for (const item of v) visit(item, path);
  else if (isObject(v)) for (const [k, child] of Object.entries(v)) visit(child, [...path, k]);
}

function isObject(v: JsonValue | undefined): v is { [k: string]: JsonValue } {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Rewrites the empty lists in `result` (in place where it can) as Karmada does, and returns it. */
export function fixEmptyTables(result: JsonValue, target: TargetShape, references: readonly unknown[]): JsonValue {
  if (Array.isArray(result) && result.length === 0) return target === "object" ? {} : [];
  if (references.length === 0) return deleteNestedEmpties(result);
  const lists = new Set<Path>();
  const objects = new Set<Path>();
  for (const ref of references) collectEmpties(JSON.parse(JSON.stringify(ref ?? null)) as JsonValue, [], lists, objects);
  const fix = (v: JsonValue, path: string[]): JsonValue => {
    if (Array.isArray(v)) {
      const out: JsonValue[] = [];
      for (const item of v) {
        if (Array.isArray(item) && item.length === 0) {
          const key = path.join(SEP);
          if (objects.has(key)) out.push({});
          else if (lists.has(key)) out.push(item);
          // else: deleted, as sjson.Delete removes the element
        } else out.push(fix(item, path));
      }
      return out;
    }
    if (isObject(v)) {
      for (const [k, child] of Object.entries(v)) {
        const childPath = [...path, k];
        if (Array.isArray(child) && child.length === 0) {
          const key = childPath.join(SEP);
          if (objects.has(key)) v[k] = {};
          else if (!lists.has(key)) delete v[k];
        } else v[k] = fix(child, childPath);
      }
    }
    return v;
  };
  return fix(result, []);
}

/** With no references every nested empty list goes: the same walk without paths. */
function deleteNestedEmpties(v: JsonValue): JsonValue {
  const isEmptyList = (c: JsonValue | undefined) => Array.isArray(c) && c.length === 0;
  if (Array.isArray(v)) {
    if (!v.some(isEmptyList)) {
      for (let i = 0; i < v.length; i++) v[i] = deleteNestedEmpties(v[i] as JsonValue);
      return v;
    }
    return v.filter((c) => !isEmptyList(c)).map(deleteNestedEmpties);
  }
  if (isObject(v)) {
    for (const k of Object.keys(v)) {
      if (isEmptyList(v[k])) delete v[k];
      else v[k] = deleteNestedEmpties(v[k] as JsonValue);
    }
  }
  return v;
}
