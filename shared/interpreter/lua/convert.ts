// Values between JavaScript and Lua, as Karmada moves them between Go and gopher-lua. In: a JSON
// value becomes Lua values (null and absent fields are nil; numbers are floats, as all of
// gopher-lua's are). Out: the encoder Karmada uses (layeh.com/gopher-json): an
// empty table is `[]`; a table is a list when its keys are 1..n and an object when they are all
// strings; mixed or sparse keys, a table met twice, a function or NaN are errors.
import { fengari, internals, type FengariInternals, type LuaState } from "./fengari.ts";

export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };

/** A Lua value that has no JSON form (the message is gopher-json's where it has one). */
export class LuaConversionError extends Error {
  override name = "LuaConversionError";
}

const encoder = new TextEncoder();
const decoder = new TextDecoder(); // invalid UTF-8 becomes U+FFFD, as Go's encoder writes it
const keyCache = new Map<string, Uint8Array>();

/** A JS string as a Lua string (the bytes of its UTF-8); short keys are cached. */
export function luaString(s: string): Uint8Array {
  if (s.length > 64) return encoder.encode(s);
  let b = keyCache.get(s);
  if (!b) {
    b = encoder.encode(s);
    if (keyCache.size >= 4096) keyCache.clear();
    keyCache.set(s, b);
  }
  return b;
}

/** A Lua string's bytes as a JS string. */
export function jsString(b: Uint8Array): string {
  // Most strings in Kubernetes objects are short ASCII, where TextDecoder's call costs more than the work.
  if (b.length <= 64) {
    for (let i = 0; i < b.length; i++) if ((b[i] as number) >= 0x80) return decoder.decode(b);
    return String.fromCharCode.apply(null, b as unknown as number[]);
  }
  return decoder.decode(b);
}

// fengari's type tags (lua.h, lobject.h).
const TNIL = 0;
const TBOOLEAN = 1;
const TNUMFLT = 3;
const TNUMINT = 3 | (1 << 4);
const TSHRSTR = 4;
const TLNGSTR = 4 | (1 << 4);
const TTABLE = 5;
const keyStrings = new Map<string, unknown>();

/** Pushes a JSON-like value onto the Lua stack (one slot). `undefined` and null fields are left out. */
export function pushValue(L: LuaState, v: unknown): void {
  fengari().lua.lua_checkstack(L, 1);
  const f = internals();
  f.push(L, toLua(L, f, v));
}

/** The value as a fengari TValue, tables built directly: the C API per field costs twice as much. */
function toLua(L: LuaState, f: FengariInternals, v: unknown): unknown {
  if (v === null || v === undefined) return f.tvalue(TNIL, null);
  if (typeof v === "boolean") return f.tvalue(TBOOLEAN, v);
  // Every number is a float, as in gopher-lua (Lua 5.1 has no integers): no 32-bit integer
  // wrap-around in fengari, and the VM prints whole floats as gopher-lua does ("5").
  if (typeof v === "number") return f.tvalue(TNUMFLT, v);
  if (typeof v === "string") return f.tvalue(TLNGSTR, f.tstring(L, luaString(v)));
  if (typeof v !== "object") return f.tvalue(TNIL, null);
  const t = f.newTable(L);
  if (Array.isArray(v)) {
    // gopher-lua's Append skips nil: [null, "a"] is {"a"}, as Karmada pushes it.
    let n = 0;
    for (const item of v) if (item !== null && item !== undefined) f.set(L, t, f.tvalue(TNUMINT, ++n), toLua(L, f, item));
  } else {
    for (const k of Object.keys(v)) {
      const child = (v as Record<string, unknown>)[k];
      if (child === undefined || child === null) continue;
      let key = keyStrings.get(k);
      if (key === undefined) {
        key = f.tvalue(TLNGSTR, f.tstring(L, luaString(k)));
        if (keyStrings.size >= 4096) keyStrings.clear();
        keyStrings.set(k, key);
      }
      f.set(L, t, key, toLua(L, f, child));
    }
  }
  return f.tvalue(TTABLE, t);
}

/**
 * Reads the Lua value at `idx` as gopher-json encodes it. `visited` is shared by one whole
 * result: gopher-json never clears it, so a table that appears twice is an error.
 */
export function pullValue(L: LuaState, idx: number, visited: Set<unknown> = new Set()): JsonValue {
  const { lua } = fengari();
  switch (lua.lua_type(L, idx)) {
    case lua.LUA_TNIL:
    case lua.LUA_TNONE:
      return null;
    case lua.LUA_TBOOLEAN:
      return lua.lua_toboolean(L, idx);
    case lua.LUA_TNUMBER: {
      const n = lua.lua_tonumber(L, idx) as number;
      if (!Number.isFinite(n)) throw new LuaConversionError(`json: unsupported value: ${n > 0 ? "+Inf" : n < 0 ? "-Inf" : "NaN"}`);
      return n;
    }
    case lua.LUA_TSTRING:
      return jsString(lua.lua_tolstring(L, idx));
    case lua.LUA_TTABLE:
      return pullTable(L, lua.lua_absindex(L, idx), visited);
    default:
      throw new LuaConversionError(`cannot encode ${jsString(lua.lua_typename(L, lua.lua_type(L, idx)))} to JSON`);
  }
}

function pullTable(L: LuaState, t: number, visited: Set<unknown>): JsonValue {
  return fromTable(fengari().lua.lua_topointer(L, t), visited);
}

// The type tags fromValue meets (lobject.h): functions, userdata and threads have no JSON form.
const typeNames: Record<number, string> = { 2: "userdata", 6: "function", 22: "function", 38: "function", 7: "userdata", 8: "thread" };

/** A TValue's JSON, reading fengari's values directly (the C API per field costs twice as much). */
function fromValue(tv: { type: number; value: unknown }, visited: Set<unknown>): JsonValue {
  switch (tv.type) {
    case TNIL:
      return null;
    case TBOOLEAN:
      return tv.value as boolean;
    case TNUMINT:
      return tv.value as number;
    case TNUMFLT: {
      const n = tv.value as number;
      if (!Number.isFinite(n)) throw new LuaConversionError(`json: unsupported value: ${n > 0 ? "+Inf" : n < 0 ? "-Inf" : "NaN"}`);
      return n;
    }
    case TSHRSTR:
    case TLNGSTR:
      return jsString((tv.value as { realstring: Uint8Array }).realstring);
    case TTABLE:
      return fromTable(tv.value, visited);
    default:
      throw new LuaConversionError(`cannot encode ${typeNames[tv.type] ?? "value"} to JSON`);
  }
}

interface TableEntry {
  key: { type: number; value: unknown };
  value: { type: number; value: unknown } | undefined;
  n: TableEntry | undefined;
}

function fromTable(table: unknown, visited: Set<unknown>): JsonValue {
  if (visited.has(table)) throw new LuaConversionError("cannot encode recursively nested tables to JSON");
  visited.add(table);
  const keys: (number | string)[] = [];
  const values: JsonValue[] = [];
  let kind: "list" | "object" | undefined;
  for (let e = (table as { f: TableEntry | undefined }).f; e; e = e.n) {
    if (e.value === undefined) continue; // a deleted key keeping its place
    const keyType = e.key.type;
    const keyKind = keyType === TNUMINT || keyType === TNUMFLT ? "list" : keyType === TSHRSTR || keyType === TLNGSTR ? "object" : undefined;
    kind ??= keyKind;
    if (keyKind === undefined || keyKind !== kind) throw new LuaConversionError("cannot encode mixed or invalid key types");
    keys.push(kind === "list" ? (e.key.value as number) : jsString((e.key.value as { realstring: Uint8Array }).realstring));
    values.push(fromValue(e.value, visited));
  }
  if (kind === undefined) return [];
  if (kind === "list") {
    // gopher-json walks next() order expecting 1, 2, 3...; a table whose keys are exactly 1..n
    // is accepted here whatever order they were set in.
    const out = new Array<JsonValue>(keys.length);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] as number;
      if (!Number.isInteger(k) || k < 1 || k > keys.length || out[k - 1] !== undefined) throw new LuaConversionError("cannot encode sparse array");
      out[k - 1] = values[i] as JsonValue;
    }
    return out;
  }
  // Go's encoder writes a map's keys sorted.
  const order = keys.map((_, i) => i).sort((a, b) => ((keys[a] as string) < (keys[b] as string) ? -1 : 1));
  const out: { [k: string]: JsonValue } = {};
  for (const i of order) {
    const k = keys[i] as string;
    // "__proto__" is an ordinary key in JSON; plain assignment would set the prototype.
    if (k === "__proto__") Object.defineProperty(out, k, { value: values[i], enumerable: true, writable: true, configurable: true });
    else out[k] = values[i] as JsonValue;
  }
  return out;
}
