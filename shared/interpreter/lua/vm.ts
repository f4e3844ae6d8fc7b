// One fengari state with the sandbox built (sandbox.ts), the kube and json libraries, the
// compiled scripts (by sha256, least recently used out), and the per-call limits: a count hook
// checks the clock and the heap every 1000 instructions and ends the call when either is over.
import { createHash } from "node:crypto";
import { performance } from "node:perf_hooks";
import v8 from "node:v8";
import type { Logger } from "pino";
import { fengari, pushTableCopy, stringLimit, type LuaState } from "./fengari.ts";
import { jsString, luaString, pushValue } from "./convert.ts";
import { jsonLibrary, kubeLibrary } from "./libraries.ts";
import { BOOTSTRAP } from "./sandbox.ts";

/** The runtime's options with defaults filled in. */
export interface VmOptions {
  timeoutMs: number;
  memoryBytes: number;
  maxScripts: number;
  logger?: Pick<Logger, "debug">;
}

/** A script that does not compile, fails at load, or lacks its function: the message has the Lua line. */
export class LuaScriptError extends Error {
  override name = "LuaScriptError";
}

const CHUNK_NAME = "=luaScript";
/** Why the current call must end even inside the script's own pcall; the VM is replaced after it. */
type Fatal = "time" | "memory" | "broken" | undefined;

/** One fengari state with the sandbox built. */
export class Vm {
  readonly L: LuaState;
  private readonly env: number;
  private readonly chunks = new Map<string, number>();
  fatal: Fatal;
  private deadline = 0;
  private heapLimit = 0;

  private readonly opts: VmOptions;

  constructor(opts: VmOptions) {
    this.opts = opts;
    const { lua, lauxlib, lualib } = fengari();
    const L = (this.L = lauxlib.luaL_newstate());
    for (const [name, open] of [["_G", lualib.luaopen_base], ["table", lualib.luaopen_table], ["string", lualib.luaopen_string], ["math", lualib.luaopen_math], ["os", lualib.luaopen_os]] as const) {
      lauxlib.luaL_requiref(L, luaString(name), open, 1);
      lua.lua_pop(L, 1);
    }
    // A JavaScript exception inside fengari (a RangeError deep in its code) becomes a Lua error;
    // the VM may be inconsistent after it, so the call ends and the VM is replaced.
    lua.lua_atnativeerror(L, (L1: LuaState) => {
      const e: unknown = lua.lua_touserdata(L1, -1);
      this.fatal ??= "broken";
      lua.lua_pushstring(L1, luaString(`the Lua VM failed: ${e instanceof Error ? e.message : String(e)}`));
      return 1;
    });
    const libraries = { kube: this.table(kubeLibrary()), json: this.table(jsonLibrary()) };
    const bootstrap = luaString(BOOTSTRAP);
    if (lauxlib.luaL_loadbufferx(L, bootstrap, bootstrap.length, luaString("=bootstrap"), luaString("t")) !== lua.LUA_OK) throw new Error(jsString(lua.lua_tolstring(L, -1)));
    lua.lua_pushcfunction(L, this.jsFunction("print", (L1) => {
      const n = lua.lua_gettop(L1);
      const parts: string[] = [];
      for (let i = 1; i <= n; i++) parts.push(jsString(lauxlib.luaL_tolstring(L1, i)));
      this.opts.logger?.debug({ output: parts.join("\t") }, "lua print");
      return 0;
    }));
    lua.lua_pushcfunction(L, this.jsFunction("require", (L1) => {
      const name = jsString(lauxlib.luaL_checklstring(L1, 1));
      if (name !== "kube" && name !== "json") return lauxlib.luaL_error(L1, luaString(`module '${name}' not found: only 'kube' and 'json' can be required`));
      lua.lua_rawgeti(L1, lua.LUA_REGISTRYINDEX, libraries[name]);
      return 1;
    }));
    lua.lua_pushcfunction(L, (L1: LuaState) => {
      lua.lua_pushboolean(L1, this.fatal !== undefined);
      return 1;
    });
    lua.lua_pushnumber(L, opts.memoryBytes);
    if (lua.lua_pcall(L, 4, 1, 0) !== lua.LUA_OK) throw new Error(jsString(lua.lua_tolstring(L, -1)));
    this.env = lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX);
  }

  /** A table of JS functions, kept in the registry; returns its ref. */
  private table(functions: Record<string, (L: LuaState) => number>): number {
    const { lua, lauxlib } = fengari();
    lua.lua_createtable(this.L, 0, Object.keys(functions).length);
    for (const [name, f] of Object.entries(functions)) {
      lua.lua_pushcfunction(this.L, this.jsFunction(name, f));
      lua.lua_setfield(this.L, -2, luaString(name));
    }
    return lauxlib.luaL_ref(this.L, lua.LUA_REGISTRYINDEX);
  }

  /** A JS function as a Lua C function: a JS exception becomes a Lua error at the calling line, never escapes the VM. */
  jsFunction(name: string, f: (L: LuaState) => number): (L: LuaState) => number {
    const { lua } = fengari();
    return (L: LuaState) => {
      let message: string;
      try {
        return f(L);
      } catch (e) {
        if (!(e instanceof Error)) throw e; // fengari unwinds a Lua error by throwing a plain object
        message = `${where(L, 1)}${name}: ${e.message}`;
      }
      lua.lua_pushstring(L, luaString(message));
      return lua.lua_error(L);
    };
  }

  /** The compiled chunk for `script`, compiled now if new. Throws LuaScriptError on a syntax error. */
  chunk(script: string): number {
    const { lua, lauxlib } = fengari();
    const hash = createHash("sha256").update(script).digest("hex");
    const ref = this.chunks.get(hash);
    if (ref !== undefined) {
      this.chunks.delete(hash); // re-insert: most recently used last
      this.chunks.set(hash, ref);
      return ref;
    }
    const L = this.L;
    const bytes = luaString(script);
    if (lauxlib.luaL_loadbufferx(L, bytes, bytes.length, luaString(CHUNK_NAME), luaString("t")) !== lua.LUA_OK) {
      const message = jsString(lua.lua_tolstring(L, -1));
      lua.lua_pop(L, 1);
      throw new LuaScriptError(message);
    }
    const newRef = lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX);
    this.chunks.set(hash, newRef);
    while (this.chunks.size > this.opts.maxScripts) {
      const [oldest, oldRef] = this.chunks.entries().next().value as [string, number];
      this.chunks.delete(oldest);
      lauxlib.luaL_unref(L, lua.LUA_REGISTRYINDEX, oldRef);
    }
    return newRef;
  }

  /**
   * Runs `script`'s chunk in a fresh environment and pushes its global `fn`, leaving the stack
   * as [base: env, fn]. Throws LuaScriptError when the script cannot load or lacks `fn`.
   */
  private prepare(script: string, fn: string): number {
    const { lua } = fengari();
    const L = this.L;
    const ref = this.chunk(script);
    const base = lua.lua_gettop(L);
    lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, this.env);
    pushTableCopy(L, -1);
    lua.lua_remove(L, -2);
    lua.lua_pushvalue(L, -1);
    lua.lua_setfield(L, -2, luaString("_G"));
    lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, ref);
    lua.lua_pushvalue(L, base + 1);
    lua.lua_setupvalue(L, -2, 1); // the chunk's _ENV
    if (lua.lua_pcall(L, 0, 0, 0) !== lua.LUA_OK) throw new LuaScriptError(this.errorMessage(-1));
    lua.lua_getfield(L, base + 1, luaString(fn));
    if (lua.lua_type(L, -1) !== lua.LUA_TFUNCTION) {
      const got = jsString(lua.lua_typename(L, lua.lua_type(L, -1)));
      throw new LuaScriptError(got === "nil" ? `not found function ${fn}` : `${fn} is not a function: ${got}`);
    }
    return base;
  }

  /** Loads `script` and checks that it defines the function `fn`, calling nothing else. */
  check(script: string, fn: string): void {
    const base = fengari().lua.lua_gettop(this.L);
    this.arm();
    try {
      this.prepare(script, fn);
    } finally {
      this.disarm();
      fengari().lua.lua_settop(this.L, base);
    }
  }

  /**
   * Calls `script`'s `fn` with `args` under the limits; returns the stack index below its `nret`
   * results (the caller reads them and clears the stack to it). A failed call throws Error.
   */
  call(script: string, fn: string, args: readonly unknown[], nret: number): number {
    const { lua } = fengari();
    const L = this.L;
    const top = lua.lua_gettop(L);
    this.arm();
    try {
      const base = this.prepare(script, fn);
      for (const a of args) pushValue(L, a);
      if (lua.lua_pcall(L, args.length, nret, 0) !== lua.LUA_OK) throw new Error(this.errorMessage(-1));
      lua.lua_remove(L, base + 1); // the environment
      this.disarm();
      return base;
    } catch (e) {
      this.disarm();
      lua.lua_settop(L, top);
      throw e;
    }
  }

  private disarm(): void {
    fengari().lua.lua_sethook(this.L, null, 0, 0);
    stringLimit.bytes = Infinity;
    stringLimit.exceeded = undefined;
  }

  /** Starts the call's limits: a count hook checks the clock and the heap every 1000 instructions. */
  private arm(): void {
    const { lua } = fengari();
    this.fatal = undefined;
    this.deadline = performance.now() + this.opts.timeoutMs;
    this.heapLimit = heapInUse() + this.opts.memoryBytes;
    stringLimit.bytes = this.opts.memoryBytes;
    stringLimit.exceeded = () => (this.fatal ??= "memory");
    lua.lua_sethook(this.L, (L1: LuaState) => {
      if (this.fatal === undefined) {
        if (performance.now() > this.deadline) this.fatal = "time";
        else if (heapInUse() > this.heapLimit) this.fatal = "memory";
        else return;
      }
      const what = { time: `script exceeded the time limit of ${this.opts.timeoutMs} ms`, memory: `script exceeded the memory limit of ${this.opts.memoryBytes} bytes`, broken: "the Lua VM failed" }[this.fatal];
      lua.lua_pushstring(L1, luaString(`${where(L1, 0)}${what}`));
      lua.lua_error(L1);
    }, lua.LUA_MASKCOUNT, 1000);
  }

  errorMessage(idx: number): string {
    const { lua } = fengari();
    const t = lua.lua_type(this.L, idx);
    if (t === lua.LUA_TSTRING || t === lua.LUA_TNUMBER) return jsString(lua.lua_tolstring(this.L, idx));
    return `(error object is a ${jsString(lua.lua_typename(this.L, t))} value)`;
  }
}

/** "luaScript:12: " for the Lua function `level` frames up (0: the running one), or "" when it is not Lua. */
function where(L: LuaState, level: number): string {
  const { lua } = fengari();
  const ar = new lua.lua_Debug();
  if (!lua.lua_getstack(L, level, ar) || !lua.lua_getinfo(L, luaString("Sl"), ar) || ar.currentline <= 0) return "";
  return `${jsString(ar.short_src)}:${ar.currentline}: `;
}

function heapInUse(): number {
  const h = v8.getHeapStatistics();
  return h.used_heap_size + h.external_memory;
}
