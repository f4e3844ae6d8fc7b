// fengari (Lua 5.3 in JavaScript), loaded once and adjusted to behave like gopher-lua, the Lua
// that Karmada runs: pairs()/next() walk integer keys first in ascending order and the rest in
// first-insertion order (a deleted key keeps its place), #t is the highest integer key holding a
// value, and numbers print as gopher-lua prints them (10/2 as "5"). Also a per-string memory
// check for running calls, and direct access to fengari's tables for fast value conversion.
// fengari has no types; this file is the one place that reaches into its internals (pinned to
// 0.1.5), and it types only what the runtime uses.
import { createRequire } from "node:module";

/* eslint-disable @typescript-eslint/no-explicit-any */
export type LuaState = any;

export interface Fengari {
  lua: any;
  lauxlib: any;
  lualib: any;
}

let loaded: Fengari | undefined;
let ltableModule: any;

/**
 * The longest string a running script may make, in bytes (Infinity between calls). The heap is
 * sampled only every 1000 instructions, and `s = s .. s` grows faster than any sampling: every
 * string a script creates is checked as it lands on the stack, so one allocation at most
 * overshoots (by the number of operands of one concatenation).
 */
export const stringLimit: { bytes: number; exceeded?: () => void } = { bytes: Infinity };

/** fengari, with gopher-lua's float printing and pairs order; the first call loads it. */
export function fengari(): Fengari {
  if (loaded) return loaded;
  const require = createRequire(import.meta.url);
  // fengari reads its luaconf from FENGARICONF once, when first loaded.
  const previous = process.env.FENGARICONF;
  process.env.FENGARICONF = JSON.stringify({ ...(previous ? JSON.parse(previous) : {}), LUA_COMPAT_FLOATSTRING: true });
  try {
    const f = require("fengari");
    ltableModule = require("fengari/src/ltable.js");
    const lobject = require("fengari/src/lobject.js");
    patchDeletedKeysKeepTheirPlace(ltableModule, lobject);
    patchStringLimit(lobject, require("fengari/src/ldebug.js"), require("fengari/src/defs.js"));
    patchNumberFormat(lobject, require("fengari/src/lstring.js"), require("fengari/src/defs.js"));
    loaded = { lua: f.lua, lauxlib: f.lauxlib, lualib: f.lualib };
  } finally {
    if (previous === undefined) delete process.env.FENGARICONF;
    else process.env.FENGARICONF = previous;
  }
  return loaded;
}

/**
 * A number as gopher-lua prints it (LNumber.String): a whole number within int64 as its exact
 * digits, anything else as Go's %v (shortest digits, exponent form below 1e-4 and from 1e6:
 * 66.66666666666667, 1.2345675e+06, 1e-05, +Inf, NaN). Lua 5.3 prints %.14g.
 */
export function formatNumberAsGopher(v: number): string {
  if (Number.isInteger(v) && Math.abs(v) < 2 ** 63) return BigInt(v).toString();
  if (Number.isNaN(v)) return "NaN";
  if (!Number.isFinite(v)) return v > 0 ? "+Inf" : "-Inf";
  const [mantissa = "", exp = "0"] = v.toExponential().split("e"); // shortest round-trip digits
  const e = Number(exp);
  if (e >= -4 && e < 6) return String(v);
  return `${mantissa}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
}

/** Number to string in the VM (concatenation, lua_tolstring) and in luaL_tolstring's "%f" (tostring, print) as gopher-lua. */
function patchNumberFormat(lobject: any, lstring: any, defs: any): void {
  if (lobject.__flotillaNumbers) return;
  const { luaO_tostring, luaO_pushvfstring } = lobject;
  const bytes = (v: number): Uint8Array => defs.to_luastring(formatNumberAsGopher(v));
  lobject.luaO_tostring = function (L: any, obj: any) {
    if (obj.ttisinteger()) return luaO_tostring(L, obj);
    obj.setsvalue(lstring.luaS_bless(L, bytes(obj.value)));
  };
  lobject.luaO_pushvfstring = function (L: any, fmt: Uint8Array, argp: unknown[]) {
    if (fmt.length === 2 && fmt[0] === 37 && fmt[1] === 102 && typeof argp[0] === "number") {
      const b = bytes(argp[0]);
      lobject.pushsvalue2s(L, lstring.luaS_bless(L, b));
      return b;
    }
    return luaO_pushvfstring(L, fmt, argp);
  };
  lobject.__flotillaNumbers = true;
}

/** fengari's VM and API put every new string on the stack through these two; both are reached through the module object. */
function patchStringLimit(lobject: any, ldebug: any, defs: any): void {
  if (lobject.__flotillaPatched) return;
  const { pushsvalue2s, setsvalue2s } = lobject;
  const check = (L: any, ts: any) => {
    const n = ts.realstring.length;
    if (n > stringLimit.bytes) {
      stringLimit.exceeded?.();
      ldebug.luaG_runerror(L, defs.to_luastring(`a string of ${n} bytes exceeds the memory limit`));
    }
  };
  lobject.pushsvalue2s = function (L: any, ts: any) {
    check(L, ts);
    return pushsvalue2s(L, ts);
  };
  lobject.setsvalue2s = function (L: any, idx: number, ts: any) {
    check(L, ts);
    return setsvalue2s(L, idx, ts);
  };
  lobject.__flotillaPatched = true;
}

/** fengari's value constructors, to build a table without going through the C API for each field. */
export interface FengariInternals {
  /** new TValue(type, value) */
  tvalue(type: number, value: unknown): unknown;
  /** A Lua string (fengari's TString) for the bytes; immutable, so it can be shared and cached. */
  tstring(L: LuaState, bytes: Uint8Array): unknown;
  /** A new empty table (fengari's Table). */
  newTable(L: LuaState): unknown;
  /** t[key] = value (raw), with the patched key order. */
  set(L: LuaState, table: unknown, key: unknown, value: unknown): void;
  /** Pushes a TValue onto the stack (the caller made room). */
  push(L: LuaState, tv: unknown): void;
}

let internalsLoaded: FengariInternals | undefined;

/** See FengariInternals; pinned to fengari 0.1.5 like the patches. */
export function internals(): FengariInternals {
  if (internalsLoaded) return internalsLoaded;
  fengari();
  const require = createRequire(import.meta.url);
  const { TValue, pushobj2s } = require("fengari/src/lobject.js");
  const { luaS_bless } = require("fengari/src/lstring.js");
  internalsLoaded = {
    tvalue: (type, value) => new TValue(type, value),
    tstring: (L, bytes) => luaS_bless(L, bytes),
    newTable: (L) => ltableModule.luaH_new(L),
    set: (L, table, key, value) => ltableModule.luaH_setfrom(L, table, key, value),
    push: (L, tv) => pushobj2s(L, tv),
  };
  return internalsLoaded;
}

/**
 * Pushes a shallow copy of the table at `idx`, in its key order. In JavaScript over fengari's
 * table, because a copy per call in Lua (next + assignment per key) costs ~30 µs.
 */
export function pushTableCopy(L: LuaState, idx: number): void {
  const { lua } = fengari();
  const src = lua.lua_topointer(L, idx);
  lua.lua_createtable(L, 0, 0);
  const dst = lua.lua_topointer(L, -1);
  for (let e = src.f; e; e = e.n) if (e.value !== undefined) ltableModule.luaH_setfrom(L, dst, e.key, e.value);
}

/**
 * fengari keeps a table's keys in a linked list in insertion order and unlinks a key when it is
 * set to nil, so the key goes to the end when set again. gopher-lua keeps the key's slot. Here a
 * deleted entry stays linked as a tombstone (`t.tomb`); setting the key again revives it in
 * place; next() skips tombstones. The rest of fengari reaches these functions through the
 * module object, so replacing its properties is enough. Pinned to fengari 0.1.5.
 */
function patchDeletedKeysKeepTheirPlace(ltable: any, lobject: any): void {
  if (ltable.__flotillaPatched) return;
  const require = createRequire(import.meta.url);
  const { luaS_hashlongstr } = require("fengari/src/lstring.js");
  const { luaG_runerror } = require("fengari/src/ldebug.js");
  const { to_luastring } = require("fengari/src/defs.js");
  const { TValue } = lobject;
  const { luaH_setfrom: origSetfrom, luaH_setint: origSetint } = ltable;
  const TNIL = 0;
  const TLIGHTUSERDATA = 2;
  const TSHRSTR = 4;
  const TLNGSTR = 4 | (1 << 4);
  const TNUMINT = 3 | (1 << 4);

  // fengari's table_hash is not exported: the same hash for every key type but light userdata
  // (which scripts cannot make), and a one-entry probe table for that.
  const probe = ltable.luaH_new({ l_G: { id_counter: 0 } });
  const hashOf = (L: any, key: any): unknown => {
    if (key.type === TSHRSTR || key.type === TLNGSTR) return luaS_hashlongstr(key.tsvalue());
    if (key.type !== TLIGHTUSERDATA) return key.value;
    origSetfrom(L, probe, key, new TValue(1, true));
    const hash = probe.strong.keys().next().value;
    probe.strong.clear();
    probe.f = probe.l = undefined;
    return hash;
  };
  const deleteKeepingPlace = (t: any, hash: unknown): void => {
    const e = t.strong.get(hash);
    if (!e) return;
    if (hash === t.maxInt) t.maxInt = undefined;
    t.strong.delete(hash);
    e.value = undefined;
    (t.tomb ??= new Map()).set(hash, e);
  };
  const revive = (t: any, hash: unknown, keyType: number, keyValue: unknown, value: any): boolean => {
    const e = t.tomb?.get(hash);
    if (!e) return false;
    t.tomb.delete(hash);
    e.key = new TValue(keyType, keyValue);
    e.value = new TValue(value.type, value.value);
    t.strong.set(hash, e);
    return true;
  };

  // #t needs the highest integer key holding a value: kept per table once asked for (t.maxInt),
  // raised by sets, forgotten when that key is deleted.
  const MAX_ARRAY_INDEX = 67108864;
  const noteSet = (t: any, k: unknown) => {
    if (t.maxInt !== undefined && typeof k === "number" && k > t.maxInt && Number.isInteger(k) && k < MAX_ARRAY_INDEX) t.maxInt = k;
  };
  ltable.luaH_setint = function (t: any, key: number, value: any) {
    if (value.ttisnil()) return deleteKeepingPlace(t, key);
    noteSet(t, key);
    if (t.tomb?.size && !t.strong.has(key) && revive(t, key, TNUMINT, key, value)) return;
    return origSetint(t, key, value);
  };
  ltable.luaH_setfrom = function (L: any, t: any, key: any, value: any) {
    const badKey = key.ttisnil() || (key.ttisfloat() && Number.isNaN(key.value));
    if (value.ttisnil() && !badKey) return deleteKeepingPlace(t, hashOf(L, key));
    if (!badKey && t.maxInt !== undefined) noteSet(t, key.value);
    if (!badKey && t.tomb?.size) {
      const hash = hashOf(L, key);
      const asInt = key.ttisfloat() && (key.value | 0) === key.value;
      if (!t.strong.has(hash) && revive(t, hash, asInt ? TNUMINT : key.type, key.value, value)) return;
    }
    return origSetfrom(L, t, key, value); // also raises fengari's errors for a nil or NaN key
  };
  // gopher-lua keeps every integer key from 1 to 2^26 in its array part and walks that first,
  // in ascending order, then the other keys in insertion order. The sorted integer keys are
  // taken when a traversal starts (next(t, nil)); a traversal may not add keys.
  const isArrayKey = (k: any) => k.type === TNUMINT && k.value >= 1 && k.value < MAX_ARRAY_INDEX;
  const arrayKeys = (t: any): number[] => {
    const ints: number[] = [];
    const collect = (h: unknown) => {
      if (typeof h === "number" && Number.isInteger(h) && h >= 1 && h < MAX_ARRAY_INDEX) ints.push(h);
    };
    for (const h of t.strong.keys()) collect(h);
    if (t.tomb) for (const h of t.tomb.keys()) collect(h);
    return ints.sort((a, b) => a - b);
  };
  const indexOf = (ints: number[], k: number): number => {
    let lo = 0;
    let hi = ints.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = ints[mid] as number;
      if (v === k) return mid;
      if (v < k) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  };
  const found = (L: any, keyI: number, e: any): boolean => {
    lobject.setobj2s(L, keyI, e.key);
    lobject.setobj2s(L, keyI + 1, e.value);
    return true;
  };
  ltable.luaH_next = function (L: any, table: any, keyI: number): boolean {
    const keyO = L.stack[keyI];
    let i = -1;
    let entry;
    if (keyO.type === TNIL) {
      table.ints = arrayKeys(table);
      i = 0;
    } else if (isArrayKey(keyO)) {
      const at = indexOf((table.ints ??= arrayKeys(table)), keyO.value);
      if (at >= 0) i = at + 1;
    }
    if (i < 0) {
      const hash = hashOf(L, keyO);
      const current = table.strong.get(hash) ?? table.tomb?.get(hash);
      if (!current) return luaG_runerror(L, to_luastring("invalid key to 'next'"));
      entry = current.n;
    } else {
      for (; i < table.ints.length; i++) {
        const e = table.strong.get(table.ints[i]);
        if (e) return found(L, keyI, e);
      }
      entry = table.f;
    }
    while (entry && (entry.value === undefined || isArrayKey(entry.key))) entry = entry.n;
    return entry ? found(L, keyI, entry) : false;
  };
  // #t in gopher-lua is the highest index holding a value in its array part, holes or not
  // ({1, nil, 3} and a table with only t[5] both have #t = that index); fengari finds any border.
  ltable.luaH_getn = function (t: any): number {
    if (t.maxInt === undefined) {
      let max = 0;
      for (const h of t.strong.keys()) if (typeof h === "number" && h > max && Number.isInteger(h) && h < MAX_ARRAY_INDEX) max = h;
      t.maxInt = max;
    }
    return t.maxInt;
  };
  ltable.__flotillaPatched = true;
}
/* eslint-enable @typescript-eslint/no-explicit-any */
