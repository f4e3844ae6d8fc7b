// How the runtime calls a script: LuaCalls is the surface (call a function, check a script), and
// InThreadLua runs it on the calling thread in one fengari VM (vm.ts), replacing the VM after a
// call that hit a limit or broke it. lua-thread.ts runs an InThreadLua in a worker thread behind
// the same surface, with a hard deadline that built-in functions cannot escape.
import { LuaConversionError, pullValue, type JsonValue } from "./convert.ts";
import { fengari } from "./fengari.ts";
import { LuaScriptError, Vm, type VmOptions } from "./vm.ts";

/** Calls into Lua, synchronously. */
export interface LuaCalls {
  /**
   * Calls `script`'s `fn` with `args` and returns its `nret` results as JSON values (undefined
   * for a value with no JSON form is never returned: that throws). Throws LuaScriptError when the
   * script cannot load or lacks `fn`, and Error with the Lua message (and line) otherwise.
   */
  call(script: string, fn: string, args: readonly unknown[], nret: number): (JsonValue | undefined)[];
  /** Loads `script` and checks it defines `fn`, calling nothing else. Throws LuaScriptError. */
  check(script: string, fn: string): void;
}

/** The limits and settings every VM gets. */
export type LuaCallOptions = VmOptions;

/** One VM on this thread; a call that hit a limit or broke the VM gets the next call a new one. */
export class InThreadLua implements LuaCalls {
  private vm: Vm | undefined;
  private readonly opts: VmOptions;

  constructor(opts: LuaCallOptions) {
    this.opts = opts;
  }

  call(script: string, fn: string, args: readonly unknown[], nret: number): (JsonValue | undefined)[] {
    const { lua } = fengari();
    let vm: Vm | undefined;
    let base: number | undefined;
    try {
      vm = this.current();
      base = vm.call(script, fn, args, nret);
      const visited = new Set<unknown>();
      const results: (JsonValue | undefined)[] = [];
      for (let i = 1; i <= nret; i++) results.push(pullValue(vm.L, base + i, visited));
      lua.lua_settop(vm.L, base);
      return results;
    } catch (e) {
      if (vm && base !== undefined) lua.lua_settop(vm.L, base);
      if (!vm || vm.fatal !== undefined || !(e instanceof Error) || !(e instanceof LuaScriptError || e instanceof LuaConversionError || e.constructor === Error)) {
        // A limit was hit, or something broke inside fengari: start from a fresh VM.
        this.vm = undefined;
      }
      throw e;
    }
  }

  check(script: string, fn: string): void {
    const vm = this.current();
    try {
      vm.check(script, fn);
    } catch (e) {
      if (vm.fatal !== undefined || !(e instanceof LuaScriptError)) this.vm = undefined;
      if (e instanceof LuaScriptError) throw e;
      throw new LuaScriptError(e instanceof Error ? e.message : String(e));
    }
  }

  private current(): Vm {
    this.vm ??= new Vm(this.opts);
    return this.vm;
  }
}
