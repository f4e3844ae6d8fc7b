// JSON pointers and JSON-patch operations as the overriders use them (DESIGN §4); pure. Failures
// are OverrideErrors whose message is already fit for status.

import jsonpatch from "fast-json-patch";
import type { Operation } from "fast-json-patch";

/** A user-caused failure whose message is already fit for status. */
export class OverrideError extends Error {
  override name = "OverrideError";
}

/** One operation; `remove` takes no value. */
export type PatchOp = { op: "add" | "replace"; path: string; value: unknown } | { op: "remove"; path: string };

/** Applies one operation to the document in place and returns the result (a new root when path is ""). */
export function patch(document: unknown, operation: PatchOp): unknown {
  try {
    return jsonpatch.applyPatch(document, [operation as Operation], true, true, true).newDocument;
  } catch (e) {
    throw new OverrideError(patchErrorText(e, operation));
  }
}

/** Throws unless path is a JSON pointer below the root (starts with "/"). */
export function checkPath(path: unknown, what = "path"): asserts path is string {
  if (typeof path !== "string" || !path.startsWith("/")) throw new OverrideError(`${what} ${JSON.stringify(path)} must start with "/"`);
}

function patchErrorText(e: unknown, operation: PatchOp): string {
  const path = operation.path;
  switch (e instanceof jsonpatch.JsonPatchError ? e.name : "") {
    case "OPERATION_PATH_UNRESOLVABLE":
      return `path ${path} does not exist`;
    case "OPERATION_PATH_CANNOT_ADD":
      return `cannot add at ${path}: its parent does not exist`;
    case "OPERATION_VALUE_OUT_OF_BOUNDS":
      return `cannot add at ${path}: array index out of bounds`;
    case "OPERATION_PATH_ILLEGAL_ARRAY_INDEX":
      return `path ${path} has an illegal array index`;
    case "OPERATION_VALUE_REQUIRED":
    case "OPERATION_VALUE_CANNOT_CONTAIN_UNDEFINED":
      return `${operation.op} at ${path} needs a JSON value`;
    default:
      if (e instanceof TypeError && /banned/.test(e.message)) return `path ${path} may not modify __proto__ or constructor/prototype`;
      // fast-json-patch appends the operation and the whole document: keep its first line only.
      return `${operation.op} at ${path}: ${errorText(e).split("\n")[0]}`;
  }
}

/** The value at a JSON pointer (RFC 6901), or undefined when the path does not resolve. */
export function getByPointer(root: unknown, pointer: string): unknown {
  let node = root;
  for (const raw of pointer.split("/").slice(1)) {
    const token = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (Array.isArray(node)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
      node = node[Number(token)];
    } else if (isRecord(node)) {
      if (!Object.hasOwn(node, token)) return undefined;
      node = node[token];
    } else {
      return undefined;
    }
  }
  return node;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
