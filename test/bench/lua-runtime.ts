// Benchmark: which Lua runtime runs Karmada's interpreter scripts (issue 21). wasmoon
// (WebAssembly Lua 5.4) against fengari (pure-JS Lua 5.3), each driven through its C API with
// the same hand-written push/pull, against a baseline of the same operations in plain
// TypeScript in the same process. It prints figures and ratios; it never fails on a time.
//   npm run bench:lua            (N=2000 calls per measure; BENCH_LUA_CALLS to change)
import { createRequire } from "node:module";
import { performance } from "node:perf_hooks";
import type { KubeObject } from "../../shared/api/types.ts";

const CALLS = Number(process.env.BENCH_LUA_CALLS ?? 2000);
const require = createRequire(import.meta.url);
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

// A realistic ~1 KB member object (a CloneSet-like workload) and two status items.
const observed = {
  apiVersion: "apps.kruise.io/v1alpha1",
  kind: "CloneSet",
  metadata: { name: "web", namespace: "shop", generation: 4, labels: { app: "web", tier: "front" }, annotations: { "flotilla.dev/work": "shop-web-7d9" }, uid: "0b7e4c2a-1f7e-4d8a-9a57-1c1e4f0b8e11", resourceVersion: "381920" },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: "web" } },
    updateStrategy: { type: "ReCreate", partition: 0, maxUnavailable: "20%", maxSurge: 0 },
    template: {
      metadata: { labels: { app: "web", tier: "front" } },
      spec: { containers: [{ name: "web", image: "nginx:1.27", ports: [{ containerPort: 80, protocol: "TCP" }], resources: { requests: { cpu: "250m", memory: "128Mi" }, limits: { cpu: "1", memory: "256Mi" } }, env: [{ name: "MODE", value: "prod" }] }], volumes: [{ name: "cfg", configMap: { name: "web-cfg" } }] },
    },
  },
  status: { observedGeneration: 4, replicas: 3, readyReplicas: 3, availableReplicas: 3, updatedReplicas: 3, updatedReadyReplicas: 3, expectedUpdatedReplicas: 3, updateRevision: "web-7d9", currentRevision: "web-7d9", labelSelector: "app=web", conditions: [{ type: "Ready", status: "True", lastTransitionTime: "2026-11-24T08:00:00Z" }] },
};
const items = ["a", "b"].map((clusterName) => ({ clusterName, applied: true, health: "Healthy", status: observed.status }));

const healthScript = `
function InterpretHealth(observed)
  if observed.status == nil then return false end
  if observed.metadata.generation ~= observed.status.observedGeneration then return false end
  if observed.spec.updateStrategy ~= nil and observed.spec.updateStrategy.partition ~= nil and observed.spec.updateStrategy.partition ~= 0 then return true end
  return observed.status.updatedReplicas == observed.spec.replicas and observed.status.availableReplicas == observed.status.updatedReplicas
end`;
const aggregateScript = `
function AggregateStatus(desired, statusItems)
  if statusItems == nil then return desired end
  if desired.status == nil then desired.status = {} end
  local replicas, ready, available, updated = 0, 0, 0, 0
  for i = 1, #statusItems do
    local s = statusItems[i].status
    if s ~= nil then
      replicas = replicas + (s.replicas or 0); ready = ready + (s.readyReplicas or 0)
      available = available + (s.availableReplicas or 0); updated = updated + (s.updatedReplicas or 0)
    end
  end
  desired.status.observedGeneration = desired.metadata.generation
  desired.status.replicas = replicas; desired.status.readyReplicas = ready
  desired.status.availableReplicas = available; desired.status.updatedReplicas = updated
  return desired
end`;

// The baseline: the same two operations in TypeScript, with the JSON copy a caller makes anyway.
function nativeHealth(o: typeof observed): boolean {
  const c = JSON.parse(JSON.stringify(o)) as typeof observed;
  return c.metadata.generation === c.status.observedGeneration && c.status.updatedReplicas === c.spec.replicas && c.status.availableReplicas === c.status.updatedReplicas;
}
function nativeAggregate(d: typeof observed, its: typeof items): unknown {
  const c = JSON.parse(JSON.stringify(d)) as typeof observed;
  const sum = (k: "replicas" | "readyReplicas" | "availableReplicas" | "updatedReplicas") => its.reduce((n, i) => n + (i.status[k] ?? 0), 0);
  c.status = { ...c.status, observedGeneration: c.metadata.generation, replicas: sum("replicas"), readyReplicas: sum("readyReplicas"), availableReplicas: sum("availableReplicas"), updatedReplicas: sum("updatedReplicas") };
  return c;
}

/** One runtime as the bench drives it. */
interface Adapter {
  name: string;
  newVm(): unknown;
  closeVm(vm: unknown): void;
  load(vm: unknown, script: string): void;
  callHealth(vm: unknown, obj: unknown): boolean;
  callAggregate(vm: unknown, obj: unknown, its: unknown): unknown;
  /** Runs `while true do end` under a 1 s limit; returns the ms it took to stop, or a reason it did not. */
  timeLimit(vm: unknown): string;
  /** Runs a growing allocation under a 32 MiB limit; says whether and how it was stopped. */
  memoryLimit(vm: unknown): string;
  /** pairs() order over a table built a=1,b=2,c=3 then b=nil, b=4 (gopher-lua: a b c), and tostring(10/2) (5.1: "5"). */
  compat(vm: unknown): string;
}

const runaway = "local t = {} local i = 0 while true do i = i + 1 t[i] = string.rep('x', 1024) .. i end";
const compatScript = `local t = {} t.a=1 t.b=2 t.c=3 t.b=nil t.b=4 local o = {} for k in pairs(t) do o[#o+1]=k end
  return table.concat(o, " ") .. " | " .. tostring(10/2) .. " | unpack:" .. tostring(unpack ~= nil) .. " getn:" .. tostring(table.getn ~= nil) .. " pow:" .. tostring(math.pow ~= nil)`;

// ---- fengari -------------------------------------------------------------------------------
/* eslint-disable @typescript-eslint/no-explicit-any */
function fengariAdapter(f: any): Adapter {
  const { lua, lauxlib, lualib, to_luastring, to_jsstring } = f;
  const keyCache = new Map<string, Uint8Array>();
  const ls = (s: string) => {
    let b = keyCache.get(s);
    if (!b) {
      b = to_luastring(s) as Uint8Array;
      if (keyCache.size < 10000) keyCache.set(s, b);
    }
    return b;
  };
  const push = (L: any, v: unknown): void => {
    if (v === null || v === undefined) lua.lua_pushnil(L);
    else if (typeof v === "boolean") lua.lua_pushboolean(L, v);
    else if (typeof v === "number") {
      if (Number.isInteger(v) && v >= -2147483648 && v <= 2147483647) lua.lua_pushinteger(L, v);
      else lua.lua_pushnumber(L, v);
    } else if (typeof v === "string") lua.lua_pushstring(L, ls(v));
    else if (Array.isArray(v)) {
      lua.lua_createtable(L, v.length, 0);
      v.forEach((e, i) => {
        push(L, e);
        lua.lua_rawseti(L, -2, i + 1);
      });
    } else {
      const o = v as Record<string, unknown>;
      lua.lua_createtable(L, 0, 0);
      for (const k in o) {
        push(L, o[k]);
        lua.lua_setfield(L, -2, ls(k));
      }
    }
  };
  const pull = (L: any, idx: number): unknown => {
    switch (lua.lua_type(L, idx)) {
      case lua.LUA_TNIL:
        return null;
      case lua.LUA_TBOOLEAN:
        return lua.lua_toboolean(L, idx);
      case lua.LUA_TNUMBER:
        return lua.lua_tonumber(L, idx);
      case lua.LUA_TSTRING:
        return to_jsstring(lua.lua_tostring(L, idx));
      case lua.LUA_TTABLE: {
        const t = lua.lua_absindex(L, idx);
        const n = lua.lua_rawlen(L, t);
        if (n > 0) {
          const a = [];
          for (let i = 1; i <= n; i++) {
            lua.lua_rawgeti(L, t, i);
            a.push(pull(L, -1));
            lua.lua_pop(L, 1);
          }
          return a;
        }
        const o: Record<string, unknown> = {};
        lua.lua_pushnil(L);
        while (lua.lua_next(L, t)) {
          o[to_jsstring(lua.lua_tostring(L, -2))] = pull(L, -1);
          lua.lua_pop(L, 1);
        }
        return o;
      }
      default:
        return undefined;
    }
  };
  const call = (L: any, fn: string, args: unknown[], nret: number) => {
    lua.lua_getglobal(L, ls(fn));
    for (const a of args) push(L, a);
    if (lua.lua_pcall(L, args.length, nret, 0) !== lua.LUA_OK) throw new Error(to_jsstring(lua.lua_tostring(L, -1)));
  };
  const run = (L: any, src: string): string => {
    if (lauxlib.luaL_loadstring(L, to_luastring(src)) !== lua.LUA_OK) return `compile: ${to_jsstring(lua.lua_tostring(L, -1))}`;
    const r = lua.lua_pcall(L, 0, 1, 0);
    const out = to_jsstring(lua.lua_tostring(L, -1) ?? to_luastring("nil"));
    lua.lua_settop(L, 0);
    return r === lua.LUA_OK ? out : `error: ${out}`;
  };
  return {
    name: "fengari",
    newVm() {
      const L = lauxlib.luaL_newstate();
      lualib.luaL_openlibs(L);
      return L;
    },
    closeVm() {},
    load(L: any, script: string) {
      if (lauxlib.luaL_dostring(L, to_luastring(script)) !== lua.LUA_OK) throw new Error(to_jsstring(lua.lua_tostring(L, -1)));
    },
    callHealth(L: any, obj: unknown) {
      call(L, "InterpretHealth", [obj], 1);
      const r = lua.lua_toboolean(L, -1);
      lua.lua_settop(L, 0);
      return r;
    },
    callAggregate(L: any, obj: unknown, its: unknown) {
      call(L, "AggregateStatus", [obj, its], 1);
      const r = pull(L, -1);
      lua.lua_settop(L, 0);
      return r;
    },
    timeLimit(L: any) {
      const deadline = performance.now() + 1000;
      const t0 = performance.now();
      lua.lua_sethook(L, (L1: any) => {
        if (performance.now() > deadline) lauxlib.luaL_error(L1, to_luastring("time limit exceeded"));
      }, lua.LUA_MASKCOUNT, 10000);
      const r = run(L, "while true do end");
      lua.lua_sethook(L, null, 0, 0);
      return `stopped after ${(performance.now() - t0).toFixed(0)} ms (${r})`;
    },
    memoryLimit(L: any) {
      // fengari has no allocator: sample the process's heap growth from the count hook.
      const limit = 32 * 2 ** 20;
      const base = process.memoryUsage();
      const deadline = performance.now() + 5000;
      const t0 = performance.now();
      lua.lua_sethook(L, (L1: any) => {
        const m = process.memoryUsage();
        if (m.heapUsed + m.arrayBuffers - base.heapUsed - base.arrayBuffers > limit) lauxlib.luaL_error(L1, to_luastring("memory limit exceeded"));
        if (performance.now() > deadline) lauxlib.luaL_error(L1, to_luastring("time limit exceeded"));
      }, lua.LUA_MASKCOUNT, 10000);
      const r = run(L, runaway);
      lua.lua_sethook(L, null, 0, 0);
      return `stopped after ${(performance.now() - t0).toFixed(0)} ms (${r}); heap sampled every 10000 instructions`;
    },
    compat(L: any) {
      return run(L, compatScript);
    },
  };
}

// ---- wasmoon -------------------------------------------------------------------------------
function wasmoonAdapter(lw: any, Global: any): Adapter {
  const T = { NIL: 0, BOOLEAN: 1, NUMBER: 3, STRING: 4, TABLE: 5 };
  const push = (L: number, v: unknown): void => {
    if (v === null || v === undefined) lw.lua_pushnil(L);
    else if (typeof v === "boolean") lw.lua_pushboolean(L, v ? 1 : 0);
    else if (typeof v === "number") {
      if (Number.isSafeInteger(v)) lw.lua_pushinteger(L, BigInt(v));
      else lw.lua_pushnumber(L, v);
    } else if (typeof v === "string") lw.lua_pushstring(L, v);
    else if (Array.isArray(v)) {
      lw.lua_createtable(L, v.length, 0);
      v.forEach((e, i) => {
        push(L, e);
        lw.lua_rawseti(L, -2, BigInt(i + 1));
      });
    } else {
      const o = v as Record<string, unknown>;
      lw.lua_createtable(L, 0, 0);
      for (const k in o) {
        push(L, o[k]);
        lw.lua_setfield(L, -2, k);
      }
    }
  };
  const pull = (L: number, idx: number): unknown => {
    switch (lw.lua_type(L, idx)) {
      case T.NIL:
        return null;
      case T.BOOLEAN:
        return lw.lua_toboolean(L, idx) !== 0;
      case T.NUMBER:
        return lw.lua_isinteger(L, idx) ? Number(lw.lua_tointegerx(L, idx, null)) : lw.lua_tonumberx(L, idx, null);
      case T.STRING:
        return lw.lua_tolstring(L, idx, null);
      case T.TABLE: {
        const t = lw.lua_absindex(L, idx);
        const n = lw.lua_rawlen(L, t);
        if (n > 0) {
          const a = [];
          for (let i = 1; i <= n; i++) {
            lw.lua_rawgeti(L, t, BigInt(i));
            a.push(pull(L, -1));
            lw.lua_settop(L, -2);
          }
          return a;
        }
        const o: Record<string, unknown> = {};
        lw.lua_pushnil(L);
        while (lw.lua_next(L, t)) {
          o[lw.lua_tolstring(L, -2, null)] = pull(L, -1);
          lw.lua_settop(L, -2);
        }
        return o;
      }
      default:
        return undefined;
    }
  };
  const call = (L: number, fn: string, args: unknown[], nret: number) => {
    lw.lua_getglobal(L, fn);
    for (const a of args) push(L, a);
    if (lw.lua_pcallk(L, args.length, nret, 0, 0, null) !== 0) throw new Error(lw.lua_tolstring(L, -1, null));
  };
  // wasmoon's own Global.setTimeout pushes a JS Error, which a Global without type extensions cannot push.
  const withDeadline = (g: any, ms: number, fn: () => string): string => {
    const deadline = performance.now() + ms;
    const hook = lw.module.addFunction((L1: number) => {
      if (performance.now() > deadline) {
        lw.lua_pushstring(L1, "time limit exceeded");
        lw.lua_error(L1);
      }
    }, "vii");
    lw.lua_sethook(g.address, hook, 8 /* LUA_MASKCOUNT */, 10000);
    try {
      return fn();
    } finally {
      lw.lua_sethook(g.address, null, 0, 0);
      lw.module.removeFunction(hook);
    }
  };
  const run = (g: any, src: string): string => {
    const L = g.address;
    if (lw.luaL_loadstring(L, src) !== 0) return `compile: ${lw.lua_tolstring(L, -1, null)}`;
    const r = lw.lua_pcallk(L, 0, 1, 0, 0, null);
    const out = lw.luaL_tolstring(L, -1, null);
    lw.lua_settop(L, 0);
    return r === 0 ? out : `error: ${out}`;
  };
  return {
    name: "wasmoon",
    newVm() {
      const g = new Global(lw, true); // true: a JS allocator that counts bytes, so a memory maximum can be set
      lw.luaL_openlibs(g.address);
      return g;
    },
    closeVm(g: any) {
      g.close();
    },
    load(g: any, script: string) {
      const L = g.address;
      if (lw.luaL_loadstring(L, script) !== 0 || lw.lua_pcallk(L, 0, 0, 0, 0, null) !== 0) throw new Error(lw.lua_tolstring(L, -1, null));
    },
    callHealth(g: any, obj: unknown) {
      call(g.address, "InterpretHealth", [obj], 1);
      const r = lw.lua_toboolean(g.address, -1) !== 0;
      lw.lua_settop(g.address, 0);
      return r;
    },
    callAggregate(g: any, obj: unknown, its: unknown) {
      call(g.address, "AggregateStatus", [obj, its], 1);
      const r = pull(g.address, -1);
      lw.lua_settop(g.address, 0);
      return r;
    },
    timeLimit(g: any) {
      const t0 = performance.now();
      const r = withDeadline(g, 1000, () => run(g, "while true do end"));
      return `stopped after ${(performance.now() - t0).toFixed(0)} ms (${r.slice(0, 60)})`;
    },
    memoryLimit(g: any) {
      const t0 = performance.now();
      g.setMemoryMax(32 * 2 ** 20);
      const r = withDeadline(g, 5000, () => run(g, runaway));
      g.setMemoryMax(undefined);
      return `stopped after ${(performance.now() - t0).toFixed(0)} ms (${r.slice(0, 80)}); allocator-enforced`;
    },
    compat(g: any) {
      return run(g, compatScript);
    },
  };
}
/* eslint-enable @typescript-eslint/no-explicit-any */

function perCall(fn: () => unknown, n = CALLS): number {
  for (let i = 0; i < Math.min(200, n); i++) fn();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) fn();
  return ((performance.now() - t0) * 1000) / n;
}
function rssMiB(): number {
  gc();
  gc();
  return process.memoryUsage().rss / 2 ** 20;
}

interface Figures {
  name: string;
  loadMs: number;
  firstVmMs: number;
  nextVmMs: number;
  healthUs: number;
  aggregateUs: number;
  rss100Vms: number;
  rss100Scripts: number;
  time: string;
  memory: string;
  compat: string;
}

function measure(name: string, loadMs: number, a: Adapter): Figures {
  let t0 = performance.now();
  const vm = a.newVm();
  const firstVmMs = performance.now() - t0;
  t0 = performance.now();
  for (let i = 0; i < 10; i++) a.closeVm(a.newVm());
  const nextVmMs = (performance.now() - t0) / 10;
  a.load(vm, healthScript);
  a.load(vm, aggregateScript);
  if (a.callHealth(vm, observed) !== true) throw new Error(`${name}: InterpretHealth gave false`);
  const agg = a.callAggregate(vm, observed, items) as typeof observed;
  if (agg.status.replicas !== 6) throw new Error(`${name}: AggregateStatus gave ${JSON.stringify(agg.status)}`);
  const healthUs = perCall(() => a.callHealth(vm, observed));
  const aggregateUs = perCall(() => a.callAggregate(vm, observed, items));

  let before = rssMiB();
  const vms = Array.from({ length: 100 }, () => {
    const v = a.newVm();
    a.load(v, healthScript);
    return v;
  });
  const rss100Vms = rssMiB() - before;
  for (const v of vms) a.closeVm(v);
  before = rssMiB();
  const scriptVm = a.newVm();
  for (let i = 0; i < 100; i++) a.load(scriptVm, healthScript.replace("InterpretHealth", `InterpretHealth${i}`) + aggregateScript.replace("AggregateStatus", `AggregateStatus${i}`));
  const rss100Scripts = rssMiB() - before;
  a.closeVm(scriptVm);

  const time = a.timeLimit(a.newVm());
  const memory = a.memoryLimit(a.newVm());
  const compat = a.compat(a.newVm());
  a.closeVm(vm);
  return { name, loadMs, firstVmMs, nextVmMs, healthUs, aggregateUs, rss100Vms, rss100Scripts, time, memory, compat };
}

async function main(): Promise<void> {
  const baseHealth = perCall(() => nativeHealth(observed));
  const baseAggregate = perCall(() => nativeAggregate(observed, items));
  console.log(`object ${JSON.stringify(observed).length} bytes JSON; ${CALLS} calls per measure; node ${process.version}`);
  console.log(`baseline (TypeScript + JSON copy): InterpretHealth ${baseHealth.toFixed(1)} µs, AggregateStatus ${baseAggregate.toFixed(1)} µs`);

  // fengari reads its luaconf from the environment when first loaded: 5.1-style float printing.
  process.env.FENGARICONF = JSON.stringify({ LUA_COMPAT_FLOATSTRING: true });
  let t0 = performance.now();
  const fengari = require("fengari");
  const fengariLoad = performance.now() - t0;
  t0 = performance.now();
  const wasmoon = await import("wasmoon");
  const lw = await new wasmoon.LuaFactory().getLuaModule();
  const wasmoonLoad = performance.now() - t0;
  const results = [measure("fengari 0.1.5 (Lua 5.3, JS)", fengariLoad, fengariAdapter(fengari)), measure("wasmoon 1.16.0 (Lua 5.4, wasm)", wasmoonLoad, wasmoonAdapter(lw, (wasmoon as unknown as { LuaGlobal: unknown }).LuaGlobal))];

  for (const r of results) {
    console.log(`\n${r.name}`);
    console.log(`  module load ${r.loadMs.toFixed(1)} ms; first VM ${r.firstVmMs.toFixed(2)} ms; next VM ${r.nextVmMs.toFixed(2)} ms`);
    console.log(`  InterpretHealth ${r.healthUs.toFixed(1)} µs/call (${(r.healthUs / baseHealth).toFixed(1)}× baseline)`);
    console.log(`  AggregateStatus ${r.aggregateUs.toFixed(1)} µs/call (${(r.aggregateUs / baseAggregate).toFixed(1)}× baseline)`);
    console.log(`  RSS +${r.rss100Vms.toFixed(1)} MiB per 100 VMs (libs + one script); +${r.rss100Scripts.toFixed(1)} MiB per 100 compiled scripts in one VM`);
    console.log(`  time limit: ${r.time}`);
    console.log(`  memory limit: ${r.memory}`);
    console.log(`  compat (pairs after delete+re-add | tostring(10/2) | 5.1 functions): ${r.compat}`);
  }
  const [f, w] = results as [Figures, Figures];

  // The chosen runtime as callers use it: sandbox, fresh environment per call, limits, Karmada's
  // conversions; on the calling thread and in its Lua thread (lua-thread.ts), side by side.
  const { LuaInterpreterRuntime } = await import("../../shared/interpreter/lua/runtime.ts");
  const asObject = observed as unknown as KubeObject;
  const heapMiB = () => {
    gc();
    gc();
    return process.memoryUsage().heapUsed / 2 ** 20;
  };
  const runtimeFigures = (thread: boolean) => {
    const rt = new LuaInterpreterRuntime({ thread });
    const firstStart = performance.now();
    rt.check(healthScript, "InterpretHealth");
    const firstMs = performance.now() - firstStart;
    const one = rt.interpreter({ healthInterpretation: { luaScript: healthScript }, statusAggregation: { luaScript: aggregateScript } });
    const health = perCall(() => one.interpretHealth?.(asObject));
    const aggregate = perCall(() => one.aggregateStatus?.(asObject, items as never));
    const before = rssMiB();
    const heapBefore = heapMiB();
    const start = performance.now();
    for (let i = 0; i < 100; i++) {
      const c = rt.interpreter({ healthInterpretation: { luaScript: `${healthScript}\n-- customization ${i}` }, statusAggregation: { luaScript: `${aggregateScript}\n-- customization ${i}` } });
      c.interpretHealth?.(asObject);
      c.aggregateStatus?.(asObject, items as never);
    }
    const figures = { firstMs, health, aggregate, compileMs: (performance.now() - start) / 100, heap100: heapMiB() - heapBefore, rss100: rssMiB() - before };
    rt.close();
    return figures;
  };
  const local = runtimeFigures(false);
  const threaded = runtimeFigures(true);
  console.log(`\nLuaInterpreterRuntime (fengari, sandbox, fresh environment per call, 1 s / 32 MiB limits): calling thread | Lua thread | ratio`);
  console.log(`  first call (a new VM; the thread's start and fengari's load): ${local.firstMs.toFixed(1)} ms | ${threaded.firstMs.toFixed(1)} ms | ${(threaded.firstMs / local.firstMs).toFixed(2)}`);
  console.log(`  InterpretHealth µs/call: ${local.health.toFixed(1)} (${(local.health / baseHealth).toFixed(1)}× baseline) | ${threaded.health.toFixed(1)} (${(threaded.health / baseHealth).toFixed(1)}×) | ${(threaded.health / local.health).toFixed(2)}`);
  console.log(`  AggregateStatus µs/call: ${local.aggregate.toFixed(1)} (${(local.aggregate / baseAggregate).toFixed(1)}× baseline) | ${threaded.aggregate.toFixed(1)} (${(threaded.aggregate / baseAggregate).toFixed(1)}×) | ${(threaded.aggregate / local.aggregate).toFixed(2)}`);
  console.log(`  100 customizations (health + aggregate scripts each) compiled and run once, ms each: ${local.compileMs.toFixed(2)} | ${threaded.compileMs.toFixed(2)} | ${(threaded.compileMs / local.compileMs).toFixed(2)}`);
  console.log(`  ... the caller's JS heap +${local.heap100.toFixed(1)} MiB | +${threaded.heap100.toFixed(1)} MiB (the VM's heap is the thread's); RSS +${local.rss100.toFixed(1)} MiB | +${threaded.rss100.toFixed(1)} MiB (the thread's included)`);
  console.log(`\nratios fengari/wasmoon: health ${(f.healthUs / w.healthUs).toFixed(2)}, aggregate ${(f.aggregateUs / w.aggregateUs).toFixed(2)}, next VM ${(f.nextVmMs / w.nextVmMs).toFixed(2)}, RSS/100 VMs ${(f.rss100Vms / Math.max(w.rss100Vms, 0.1)).toFixed(2)}`);
}

await main();
