// The `kube` and `json` libraries as Lua C functions: they move arguments and results; the
// work is in kube.ts.
import { fengari, type LuaState } from "./fengari.ts";
import { jsString, luaString, pullValue, pushValue } from "./convert.ts";
import { fixEmptyTables } from "./empty-tables.ts";
import { accuratePodRequirements, getPodDependencies, getResourceQuantity, resourceAdd } from "./kube.ts";

/** A string argument that may be nil (checkResourceQuantity). */
function quantityArg(L: LuaState, i: number): string | undefined {
  const { lua, lauxlib } = fengari();
  const t = lua.lua_type(L, i);
  if (t === lua.LUA_TNIL || t === lua.LUA_TNONE) return undefined;
  if (t !== lua.LUA_TSTRING) return lauxlib.luaL_argerror(L, i, luaString(`string expected, got ${jsString(lua.lua_typename(L, t))}`));
  return jsString(lua.lua_tolstring(L, i));
}

function pushResult(L: LuaState, v: unknown): number {
  pushValue(L, v === undefined ? null : v);
  return 1;
}

/** require("kube"): Karmada's kube library. */
export function kubeLibrary(): Record<string, (L: LuaState) => number> {
  const { lua, lauxlib } = fengari();
  return {
    resourceAdd: (L) => {
      const qs: (string | undefined)[] = [];
      for (let i = 1, n = lua.lua_gettop(L); i <= n; i++) qs.push(quantityArg(L, i));
      return pushResult(L, resourceAdd(qs));
    },
    accuratePodRequirements: (L) => {
      if (lua.lua_gettop(L) !== 1) return lauxlib.luaL_error(L, luaString("getPodRequirements only accepts one argument"));
      lauxlib.luaL_checktype(L, 1, lua.LUA_TTABLE);
      return pushResult(L, accuratePodRequirements(fixEmptyTables(pullValue(L, 1), "object", [])));
    },
    getPodDependencies: (L) => {
      if (lua.lua_gettop(L) !== 2) return lauxlib.luaL_error(L, luaString("getPodDependencies only accepts two argument"));
      lauxlib.luaL_checktype(L, 1, lua.LUA_TTABLE);
      const t = lua.lua_type(L, 2);
      if (t !== lua.LUA_TNIL && t !== lua.LUA_TSTRING && t !== lua.LUA_TNUMBER) return lauxlib.luaL_argerror(L, 2, luaString("string expected"));
      const namespace = t === lua.LUA_TNIL ? "default" : jsString(lua.lua_tolstring(L, 2));
      return pushResult(L, getPodDependencies(fixEmptyTables(pullValue(L, 1), "object", []), namespace));
    },
    getResourceQuantity: (L) => {
      if (lua.lua_gettop(L) !== 1) return lauxlib.luaL_error(L, luaString("getResourceQuantity only accepts one argument"));
      lua.lua_pushnumber(L, getResourceQuantity(quantityArg(L, 1)));
      return 1;
    },
  };
}

/** require("json"): encode (an empty table is []) and decode (null is nil). */
export function jsonLibrary(): Record<string, (L: LuaState) => number> {
  const { lauxlib } = fengari();
  return {
    encode: (L) => pushResult(L, JSON.stringify(pullValue(L, 1))),
    decode: (L) => pushResult(L, JSON.parse(jsString(lauxlib.luaL_checklstring(L, 1))) as unknown),
  };
}
