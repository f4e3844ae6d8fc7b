// Karmada's FieldOverrider (DESIGN §4): JSON-patch operations inside a string field that holds a
// JSON or YAML document, such as a ConfigMap's data key. Pure.
//
// As in Karmada: the field must exist and be a string; the string is parsed, each operation runs
// at its subPath (a JSON pointer inside the document, "" for the whole of it), and the result is
// written back, JSON compact and YAML (1.1, as Karmada's parser reads it) with its keys sorted
// and its comments gone, since the document goes through a plain value. Every failure is an
// OverrideError, so that cluster's Work fails with ApplyOverridesFailed and keeps what it ran.
// Where Flotilla differs from Karmada, on input Karmada's webhook refuses anyway or reads badly:
// json and yaml together, or neither, fail (Karmada: yaml wins; neither empties the field); a
// YAML stream of several documents fails (Karmada keeps the first and drops the rest); YAML
// timestamps stay strings; a document holding an integer beyond 2^53 fails, since writing it back
// would change it (Karmada keeps it).

import { parseAllDocuments, stringify, type Tags } from "yaml";
import type { FieldOverrider, FieldPatchOperation } from "../../shared/api/types.ts";
import { checkPath, errorText, getByPointer, OverrideError, patch, type PatchOp } from "./json-patch.ts";

type Format = "json" | "yaml";

/** Runs one FieldOverrider on the object in place. */
export function applyFieldOverrider(object: object, o: FieldOverrider): void {
  checkPath(o.fieldPath, "fieldPath");
  const hasJson = o.json !== undefined && o.json !== null && o.json.length > 0;
  const hasYaml = o.yaml !== undefined && o.yaml !== null && o.yaml.length > 0;
  if (hasJson && hasYaml) throw new OverrideError("json and yaml are both set: give one of them");
  if (!hasJson && !hasYaml) throw new OverrideError("json or yaml must hold at least one operation");
  const format: Format = hasJson ? "json" : "yaml";
  const operations = (hasJson ? o.json : o.yaml) as unknown;
  if (!Array.isArray(operations)) throw new OverrideError(`${format}: not a list`);
  const text = getByPointer(object, o.fieldPath);
  if (text === undefined) throw new OverrideError(`field ${o.fieldPath} does not exist`);
  if (typeof text !== "string") throw new OverrideError(`field ${o.fieldPath} is not a string but ${typeName(text)}`);
  let document = parse(text, format, o.fieldPath);
  const inexact = inexactInteger(document);
  if (inexact !== undefined) throw new OverrideError(`field ${o.fieldPath} holds the integer ${inexact}, larger than a fieldOverrider carries exactly (2^53)`);
  for (const [i, op] of (operations as unknown[]).entries()) {
    try {
      document = patch(document, operation(op));
    } catch (e) {
      throw new OverrideError(`${format}[${i}]: ${errorText(e)}`);
    }
  }
  patch(object, { op: "replace", path: o.fieldPath, value: serialise(document, format) });
}

/** The JSON-patch operation a FieldPatchOperation means; its value is copied, never shared with the policy. */
function operation(item: unknown): PatchOp {
  if (typeof item !== "object" || item === null) throw new OverrideError("not an object");
  const { subPath, operator, value } = item as FieldPatchOperation;
  if (operator !== "add" && operator !== "remove" && operator !== "replace") throw new OverrideError(`unknown operator ${JSON.stringify(operator)}`);
  if (subPath !== "") checkPath(subPath, "subPath");
  if (operator === "remove") return { op: operator, path: subPath };
  if (value === undefined) throw new OverrideError(`${operator} at ${JSON.stringify(subPath)} needs a value`);
  return { op: operator, path: subPath, value: structuredClone(value) };
}

// Timestamps are left out of YAML 1.1's tags so that a date stays the string it was written as.
const withoutTimestamps = (tags: Tags): Tags => tags.filter((t) => typeof t !== "object" || t.tag !== "tag:yaml.org,2002:timestamp");

function parse(text: string, format: Format, fieldPath: string): unknown {
  if (format === "json") {
    try {
      return JSON.parse(text) as unknown;
    } catch (e) {
      throw new OverrideError(`field ${fieldPath} is not valid JSON: ${errorText(e)}`);
    }
  }
  const docs = parseAllDocuments(text, { version: "1.1", customTags: withoutTimestamps });
  if (docs.length > 1) throw new OverrideError(`field ${fieldPath} holds ${docs.length} YAML documents; a fieldOverrider edits one`);
  const doc = docs[0];
  // An empty stream (no document, or only comments) is YAML's null, as in Karmada.
  const error = doc === undefined ? ("errors" in docs ? docs.errors[0] : undefined) : doc.errors[0];
  if (error !== undefined) throw new OverrideError(`field ${fieldPath} is not valid YAML: ${firstLine(error.message)}`);
  if (doc === undefined) return null;
  try {
    return doc.toJS({ maxAliasCount: 100 }) as unknown;
  } catch (e) {
    throw new OverrideError(`field ${fieldPath} is not valid YAML: ${errorText(e)}`);
  }
}

function serialise(document: unknown, format: Format): string {
  if (format === "json") return JSON.stringify(document);
  return stringify(document, { version: "1.1", customTags: withoutTimestamps, sortMapEntries: true, indentSeq: false, lineWidth: 0 });
}

/** The parser's message without the excerpt it appends ("… at line 2, column 1:" and the source). */
function firstLine(message: string): string {
  return (message.split("\n")[0] ?? "").replace(/:$/, "");
}

/** The first integer in the document that a JavaScript number holds only approximately, as written back. */
function inexactInteger(v: unknown): string | undefined {
  if (typeof v === "number") return Number.isInteger(v) && !Number.isSafeInteger(v) ? String(v) : undefined;
  if (typeof v !== "object" || v === null) return undefined;
  for (const item of Array.isArray(v) ? v : Object.values(v)) {
    const found = inexactInteger(item);
    if (found !== undefined) return found;
  }
  return undefined;
}

function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  return typeof v === "object" ? "an object" : `a ${typeof v}`;
}
