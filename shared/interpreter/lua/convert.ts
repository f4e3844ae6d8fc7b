// Values between JavaScript and Lua, as Karmada moves them between Go and gopher-lua. In: a JSON
// value becomes Lua values (null and absent fields are nil; whole numbers stay integers, so
// they print as 5.1 prints them). Out: the encoder Karmada uses (layeh.com/gopher-json): an
// empty table is `[]`; a table is a list when its keys are 1..n and an object when they are all
// strings; mixed or sparse keys, a table met twice, a function or NaN are errors.
import { fengari, type LuaState } from "./fengari.ts";

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

const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;

/** Pushes a JSON-like value onto the Lua stack (one slot). `undefined` fields are left out. */
export function pushValue(L: LuaState, v: unknown): void {
  const { lua } = fengari();
  if (v === null || v === undefined) lua.lua_pushnil(L);
  else if (typeof v === "boolean") lua.lua_pushboolean(L, v);
  else if (typeof v === "number") {
    // fengari's integers are 32-bit; a larger whole number goes in as a float, which still
    // prints without ".0" (Lua 5.1 has only floats).
    if (Number.isInteger(v) && v >= INT_MIN && v <= INT_MAX) lua.lua_pushinteger(L, v);
    else lua.lua_pushnumber(L, v);
  } else if (typeof v === "string") lua.lua_pushstring(L, luaString(v));
  else if (Array.isArray(v)) {
    lua.lua_checkstack(L, 3);
    lua.lua_createtable(L, v.length, 0);
    for (let i = 0; i < v.length; i++) {
      pushValue(L, v[i]);
      lua.lua_rawseti(L, -2, i + 1);
    }
  } else if (typeof v === "object") {
    lua.lua_checkstack(L, 3);
    lua.lua_createtable(L, 0, 0);
    for (const k of Object.keys(v)) {
      const child = (v as Record<string, unknown>)[k];
      if (child === undefined || child === null) continue;
      pushValue(L, child);
      lua.lua_setfield(L, -2, luaString(k));
    }
  } else lua.lua_pushnil(L);
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
  const { lua } = fengari();
  const id = lua.lua_topointer(L, t);
  if (visited.has(id)) throw new LuaConversionError("cannot encode recursively nested tables to JSON");
  visited.add(id);
  lua.lua_checkstack(L, 4);
  const keys: (number | string)[] = [];
  const values: JsonValue[] = [];
  let kind: "list" | "object" | undefined;
  lua.lua_pushnil(L);
  while (lua.lua_next(L, t)) {
    const keyType = lua.lua_type(L, -2);
    const keyKind = keyType === lua.LUA_TNUMBER ? "list" : keyType === lua.LUA_TSTRING ? "object" : undefined;
    kind ??= keyKind;
    if (keyKind === undefined || keyKind !== kind) {
      lua.lua_pop(L, 2);
      throw new LuaConversionError("cannot encode mixed or invalid key types");
    }
    // lua_tolstring would turn a number key into a string in place and confuse lua_next.
    keys.push(kind === "list" ? (lua.lua_tonumber(L, -2) as number) : jsString(lua.lua_tolstring(L, -2)));
    try {
      values.push(pullValue(L, -1, visited));
    } catch (e) {
      lua.lua_pop(L, 2);
      throw e;
    }
    lua.lua_pop(L, 1);
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
