// Content hashes identify a rendered Work on the wire (DESIGN §5): every control-plane replica and
// every agent must compute the same hash for the same content, whatever order its keys came in.
import { createHash } from "node:crypto";

/** JSON with keys sorted at every depth, no whitespace, undefined members dropped; TypeError if not JSON. */
export function canonicalJson(value: unknown): string {
  const out = write(value, new Set());
  if (out === undefined) throw new TypeError(`canonicalJson: ${typeof value} is not JSON`);
  return out;
}

/** First 32 hex chars of the SHA-256 of canonicalJson(value). */
export function contentHash(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex").slice(0, 32);
}

// Returns undefined for a value JSON omits (undefined, a function, a symbol), as JSON.stringify does,
// so the caller can drop an object member or write null in an array.
function write(value: unknown, seen: Set<object>): string | undefined {
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
    case "boolean":
      return JSON.stringify(value);
    case "number":
      // NaN and ±Infinity become null, as in JSON.stringify.
      return JSON.stringify(value);
    case "bigint":
      throw new TypeError("canonicalJson: bigint is not JSON");
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
  }
  const obj = value as object;
  const toJSON = (obj as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === "function") return write(toJSON.call(obj), seen);
  if (seen.has(obj)) throw new TypeError("canonicalJson: value is cyclic");
  seen.add(obj);
  let out: string;
  if (Array.isArray(obj)) {
    out = `[${obj.map((item: unknown) => write(item, seen) ?? "null").join(",")}]`;
  } else {
    const record = obj as Record<string, unknown>;
    const members: string[] = [];
    for (const key of Object.keys(record).sort()) {
      const member = write(record[key], seen);
      if (member !== undefined) members.push(`${JSON.stringify(key)}:${member}`);
    }
    out = `{${members.join(",")}}`;
  }
  seen.delete(obj);
  return out;
}
