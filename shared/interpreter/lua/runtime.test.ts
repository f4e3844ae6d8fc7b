// The runtime as a caller sees it: each Karmada script function, the sandbox, the limits, and
// what happens after a script misbehaves.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InterpreterError } from "../interpreter.ts";
import type { KubeObject } from "../../api/types.ts";
import { LuaInterpreterRuntime, LuaScriptError } from "./runtime.ts";

const rt = new LuaInterpreterRuntime({ timeoutMs: 200, memoryBytes: 16 * 2 ** 20 });
const workload = {
  apiVersion: "example.io/v1",
  kind: "Widget",
  metadata: { name: "w", namespace: "shop", generation: 2 },
  spec: { replicas: 4, paused: false, template: { spec: { containers: [{ name: "c", resources: { requests: { cpu: "250m", memory: "64Mi" } } }] } } },
  status: { observedGeneration: 2, readyReplicas: 4 },
} as unknown as KubeObject;

const health = (script: string) => rt.interpreter({ healthInterpretation: { luaScript: script } }).interpretHealth?.(workload);
const failsWith = (f: () => unknown, operation: string, message: RegExp) =>
  assert.throws(f, (e: unknown) => e instanceof InterpreterError && e.operation === operation && message.test(e.message));

describe("Karmada's script functions", () => {
  it("GetReplicas gives the replicas and what one replica needs", () => {
    const i = rt.interpreter({
      replicaResource: { luaScript: `local kube = require("kube")\nfunction GetReplicas(obj)\n  return obj.spec.replicas, kube.accuratePodRequirements(obj.spec.template)\nend` },
    });
    assert.deepEqual(i.getReplicas?.(workload), { replicas: 4, requires: { resourceRequest: { cpu: "250m", memory: "64Mi" } } });
  });
  it("GetReplicas with nil requirements, and a fractional replica count truncated as Go's int32() does", () => {
    const i = rt.interpreter({ replicaResource: { luaScript: `function GetReplicas(obj) return obj.spec.replicas / 3, nil end` } });
    assert.deepEqual(i.getReplicas?.(workload), { replicas: 1 });
  });
  it("ReviseReplica keeps empty fields the input had", () => {
    const i = rt.interpreter({ replicaRevision: { luaScript: `function ReviseReplica(obj, r) obj.spec.replicas = r obj.spec.selector = {} return obj end` } });
    const input = { ...workload, spec: { ...(workload.spec as object), selector: {} } } as KubeObject;
    assert.deepEqual((i.reviseReplica?.(input, 2) as unknown as { spec: unknown }).spec, { ...(input.spec as object), replicas: 2, selector: {} });
  });
  it("Retain keeps what the member owns", () => {
    const i = rt.interpreter({ retention: { luaScript: `function Retain(desired, observed) desired.spec.paused = observed.spec.paused return desired end` } });
    const observed = { ...workload, spec: { ...(workload.spec as object), paused: true } } as KubeObject;
    assert.equal((i.retain?.(workload, observed) as unknown as { spec: { paused: boolean } }).spec.paused, true);
  });
  it("AggregateStatus sees Karmada's status items: applied false and empty fields left out", () => {
    const script = `function AggregateStatus(desired, items)
  local ready, seen = 0, {}
  for i = 1, #items do
    ready = ready + items[i].status.readyReplicas
    seen[#seen + 1] = items[i].clusterName .. ":" .. tostring(items[i].applied) .. ":" .. tostring(items[i].health)
  end
  desired.status = { readyReplicas = ready, seen = table.concat(seen, " "), conditions = {} }
  return desired
end`;
    const out = rt.interpreter({ statusAggregation: { luaScript: script } }).aggregateStatus?.(workload, [
      { clusterName: "a", status: { readyReplicas: 1 }, applied: true, health: "Healthy" },
      { clusterName: "b", status: { readyReplicas: 2 }, applied: false },
    ]);
    assert.deepEqual(out?.status, { readyReplicas: 3, seen: "a:true:Healthy b:nil:nil" });
  });
  it("an aggregated result without kind is refused", () => {
    failsWith(() => rt.interpreter({ statusAggregation: { luaScript: `function AggregateStatus(d, items) return {} end` } }).aggregateStatus?.(workload, []), "AggregateStatus", /Kind' is missing/);
  });
  it("ReflectStatus: an empty table is {}, nil is an error", () => {
    assert.deepEqual(rt.interpreter({ statusReflection: { luaScript: `function ReflectStatus(o) return {} end` } }).reflectStatus?.(workload), {});
    failsWith(() => rt.interpreter({ statusReflection: { luaScript: `function ReflectStatus(o) return nil end` } }).reflectStatus?.(workload), "InterpretStatus", /table but got nil/);
  });
  it("InterpretHealth must return a boolean", () => {
    assert.equal(health(`function InterpretHealth(o) return o.status.readyReplicas == o.spec.replicas end`), true);
    failsWith(() => health(`function InterpretHealth(o) return 1 end`), "InterpretHealth", /not bool/);
  });
  it("GetDependencies come sorted and without duplicates; kube.getPodDependencies gives nil for none", () => {
    const script = `local kube = require("kube")
function GetDependencies(desired)
  local refs = kube.getPodDependencies(desired.spec.template, desired.metadata.namespace) or {}
  refs[#refs + 1] = { apiVersion = "v1", kind = "Secret", namespace = "shop", name = "b" }
  refs[#refs + 1] = { apiVersion = "v1", kind = "ConfigMap", namespace = "shop", name = "z" }
  refs[#refs + 1] = { apiVersion = "v1", kind = "Secret", namespace = "shop", name = "b" }
  return refs
end`;
    assert.deepEqual(rt.interpreter({ dependencyInterpretation: { luaScript: script } }).getDependencies?.(workload), [
      { apiVersion: "v1", kind: "ConfigMap", namespace: "shop", name: "z" },
      { apiVersion: "v1", kind: "Secret", namespace: "shop", name: "b" },
    ]);
  });
  it("GetComponents reads names, replicas and requirements", () => {
    const script = `function GetComponents(obj) return { { name = "main", replicas = obj.spec.replicas, replicaRequirements = { resourceRequest = { cpu = "0.5" } } } } end`;
    assert.deepEqual(rt.interpreter({ componentResource: { luaScript: script } }).getComponents?.(workload), [{ name: "main", replicas: 4, replicaRequirements: { resourceRequest: { cpu: "500m" } } }]);
  });
  it("only the operations a customization has are interpreted", () => {
    assert.deepEqual(Object.keys(rt.interpreter({ healthInterpretation: { luaScript: "function InterpretHealth(o) return true end" } })), ["interpretHealth"]);
  });
});

describe("the kube and json libraries", () => {
  const value = (expr: string) => (rt.interpreter({ statusReflection: { luaScript: `local kube = require("kube") local json = require("json")\nfunction ReflectStatus(o) return { v = ${expr} } end` } }).reflectStatus?.(workload) as { v: unknown }).v;
  it("resourceAdd keeps the first non-zero format; nil counts as 0", () => {
    assert.equal(value(`kube.resourceAdd(nil, "100Mi", "1Gi")`), "1124Mi");
    assert.equal(value(`kube.resourceAdd("250m", "1", nil)`), "1250m");
  });
  it("getResourceQuantity is a number", () => {
    assert.equal(value(`kube.getResourceQuantity("1.5Gi")`), 1610612736);
    assert.equal(value(`kube.getResourceQuantity("250m") * 4`), 1);
  });
  it("accuratePodRequirements: init containers' max against the containers' sum, overhead added, limits as requests", () => {
    const template = `{ spec = {
      containers = { { resources = { requests = { cpu = "250m", memory = "100Mi" } } }, { resources = { limits = { cpu = "1", memory = "1G", ["nvidia.com/gpu"] = "1" } } } },
      initContainers = { { resources = { requests = { cpu = "2", memory = "10Mi" } } } },
      overhead = { cpu = "100m" },
      nodeSelector = { zone = "a" },
      tolerations = { { key = "k", operator = "Exists" } } } }`;
    assert.deepEqual(value(`kube.accuratePodRequirements(${template})`), {
      nodeClaim: { nodeSelector: { zone: "a" }, tolerations: [{ key: "k", operator: "Exists" }] },
      resourceRequest: { cpu: "2100m", memory: "1104857600", "nvidia.com/gpu": "1" },
    });
  });
  it("getPodDependencies: ConfigMaps, Secrets, the ServiceAccount and PVCs", () => {
    const template = `{ spec = {
      serviceAccountName = "robot",
      imagePullSecrets = { { name = "pull" } },
      containers = { { envFrom = { { configMapRef = { name = "env" } } }, env = { { name = "X", valueFrom = { secretKeyRef = { name = "token", key = "t" } } } } } },
      volumes = { { name = "a", configMap = { name = "cfg" } }, { name = "b", persistentVolumeClaim = { claimName = "data" } }, { name = "c", projected = { sources = { { secret = { name = "proj" } } } } } } } }`;
    assert.deepEqual(value(`kube.getPodDependencies(${template}, "shop")`), [
      { apiVersion: "v1", kind: "ConfigMap", namespace: "shop", name: "cfg" },
      { apiVersion: "v1", kind: "ConfigMap", namespace: "shop", name: "env" },
      { apiVersion: "v1", kind: "Secret", namespace: "shop", name: "proj" },
      { apiVersion: "v1", kind: "Secret", namespace: "shop", name: "pull" },
      { apiVersion: "v1", kind: "Secret", namespace: "shop", name: "token" },
      { apiVersion: "v1", kind: "ServiceAccount", namespace: "shop", name: "robot" },
      { apiVersion: "v1", kind: "PersistentVolumeClaim", namespace: "shop", name: "data" },
    ]);
    assert.equal(value(`tostring(kube.getPodDependencies({ spec = {} }, nil))`), "nil");
  });
  it("json encodes (an empty table as []) and decodes (null as nil)", () => {
    assert.equal(value(`json.encode({ a = { 1, 2 }, b = {} })`), `{"a":[1,2],"b":[]}`);
    assert.equal(value(`tostring(json.decode('{"a":null,"b":[1]}').a) .. json.decode('{"b":[1]}').b[1]`), "nil1");
  });
  it("a bad quantity is an error at the calling line", () => {
    const script = `local kube = require("kube")\nfunction ReflectStatus(o)\n  return { q = kube.resourceAdd("1x") }\nend`;
    failsWith(() => rt.interpreter({ statusReflection: { luaScript: script } }).reflectStatus?.(workload), "InterpretStatus", /: luaScript:3: resourceAdd: invalid quantity "1x"$/);
  });
  it("Lua 5.1's unpack, table.getn, math.pow and the other 5.1 functions gopher-lua has are there", () => {
    assert.equal(value(`table.getn({ 1, 2, 3 }) + select(2, unpack({ 1, 2 })) + math.pow(2, 3)`), 13);
    assert.equal(value(`table.maxn({ 1, 2, [7] = 3 }) + math.log10(100) + math.mod(7, 4) + math.ldexp(1, 3) + math.floor(math.atan2(1, 0) * 2 / math.pi + 0.5)`), 21);
    assert.deepEqual(value(`{ math.frexp(8) }`), [0.5, 4]);
  });
});

describe("the sandbox", () => {
  for (const [what, script, message] of [
    ["io", `function InterpretHealth(o) local f = io.open("/etc/passwd") return true end`, /global 'io'/],
    ["os.exit", `function InterpretHealth(o) os.exit(1) return true end`, /field 'exit'/],
    ["os.getenv", `function InterpretHealth(o) local v = os.getenv("HOME") return true end`, /field 'getenv'/],
    ["load", `function InterpretHealth(o) local f = load("return 1") return true end`, /load is not supported/],
    ["loadstring", `function InterpretHealth(o) local f = loadstring("return 1") return true end`, /loadstring is not supported/],
    ["dofile", `function InterpretHealth(o) dofile("/etc/passwd") return true end`, /dofile is not supported/],
    ["setmetatable", `function InterpretHealth(o) setmetatable({}, {}) return true end`, /setmetatable is not supported/],
    ["require of anything else", `local io = require("io") function InterpretHealth(o) return true end`, /module 'io' not found/],
    ["debug", `function InterpretHealth(o) debug.sethook() return true end`, /global 'debug'/],
    ["changing a library", `function InterpretHealth(o) string.upper = nil return true end`, /read-only library 'string'/],
  ] as const) {
    it(`refuses ${what}`, () => failsWith(() => health(script), "InterpretHealth", message));
  }
  it("print reaches the logger, not stdout", () => {
    const lines: unknown[] = [];
    const logger = { debug: (fields: unknown) => lines.push(fields) } as never;
    const quiet = new LuaInterpreterRuntime({ logger });
    assert.equal(quiet.interpreter({ healthInterpretation: { luaScript: `function InterpretHealth(o) print("hello", 1) return true end` } }).interpretHealth?.(workload), true);
    assert.deepEqual(lines, [{ output: "hello\t1" }]);
  });
  it("a global set by one call is not seen by the next", () => {
    const script = `function InterpretHealth(o) local seen = counter ~= nil counter = 1 return seen end`;
    assert.equal(health(script), false);
    assert.equal(health(script), false);
  });
});

describe("runaway scripts", () => {
  const healthy = `function InterpretHealth(o) return true end`;
  for (const [what, script, message] of [
    ["an infinite loop", `function InterpretHealth(o)\n  while true do end\nend`, /: luaScript:2: script exceeded the time limit of 200 ms$/],
    ["an infinite loop inside pcall", `function InterpretHealth(o)\n  while true do pcall(function() while true do end end) end\nend`, /time limit/],
    ["string.rep, which Karmada refuses too", `function InterpretHealth(o)\n  local s = string.rep("x", 1e9)\n  return true\nend`, /luaScript:2: call function string.rep is not supported/],
    ["a string scan over 1,000,000 bytes, which Karmada refuses too", `function InterpretHealth(o)\n  local s = "x"\n  for i = 1, 20 do s = s .. s end\n  return s:find("y") == nil\nend`, /luaScript:4: string length 1048576 exceeds the maximum allowed input string length 1000000/],
    ["a string doubled", `function InterpretHealth(o)\n  local s = "x"\n  for i = 1, 64 do s = s .. s end\n  return true\nend`, /luaScript:3: a string of 33554432 bytes exceeds the memory limit/],
    ["a string quadrupled inside pcall", `function InterpretHealth(o)\n  local s = "x"\n  for i = 1, 64 do pcall(function() s = s .. s .. s .. s end) end\n  return true\nend`, /a string of \d+ bytes exceeds the memory limit/],
    ["error()", `function InterpretHealth(o)\n  error("boom")\nend`, /luaScript:2: boom/],
    ["a nil index", `function InterpretHealth(o)\n  return o.status.missing.field\nend`, /luaScript:2: attempt to index a nil value \(field 'missing'\)/],
    ["deep recursion", `local function f(n) return 1 + f(n + 1) end\nfunction InterpretHealth(o) return f(1) == 0 end`, /stack overflow|time limit|memory limit/],
  ] as const) {
    it(`${what} gives an InterpreterError with the Lua line, and the runtime keeps serving`, () => {
      failsWith(() => health(script), "InterpretHealth", message);
      assert.equal(health(healthy), true);
    });
  }
  it("a huge allocation hits the memory limit, with the Lua line, and the runtime keeps serving", () => {
    // A generous time limit, so that the memory limit is what stops it on a busy machine.
    const roomy = new LuaInterpreterRuntime({ timeoutMs: 10_000, memoryBytes: 16 * 2 ** 20 });
    const run = (script: string) => roomy.interpreter({ healthInterpretation: { luaScript: script } }).interpretHealth?.(workload);
    const script = `function InterpretHealth(o)\n  local t = {}\n  for i = 1, 1e9 do t[i] = "some text that fills memory " .. i end\nend`;
    failsWith(() => run(script), "InterpretHealth", /: luaScript:3: script exceeded the memory limit of 16777216 bytes$/);
    assert.equal(run(healthy), true);
  });
});

describe("built-in functions, which the VM's own check never reaches", () => {
  // A 16 KiB subject and a pattern of 20 `a*` then a `b` it never finds: string.find backtracks
  // through ~n^20 positions inside fengari's JavaScript, between two Lua instructions. On the
  // calling thread it ran for minutes and held the event loop (issue 37's webhook reproduction).
  const backtracking = `local s = "a"\nfor i = 1, 14 do s = s .. s end\nlocal p = ""\nfor i = 1, 20 do p = p .. "a*" end\np = p .. "b"`;
  it("a backtracking string.find ends at the hard deadline, and the runtime keeps serving", () => {
    const started = performance.now();
    failsWith(() => health(`${backtracking}\nfunction InterpretHealth(o)\n  return s:find(p) ~= nil\nend`), "InterpretHealth", /script exceeded the time limit of 200 ms \(its thread was ended 1200 ms into the call\)$/);
    const took = performance.now() - started;
    assert.ok(took >= 1200 && took < 6000, `the call took ${took.toFixed(0)} ms`);
    assert.equal(health(`function InterpretHealth(o) return true end`), true);
    // The same script again is refused at once, for a while: a customization that does this on
    // every call (an agent's health reports) would hold its caller each time.
    const again = performance.now();
    failsWith(() => health(`${backtracking}\nfunction InterpretHealth(o)\n  return s:find(p) ~= nil\nend`), "InterpretHealth", /its thread was ended 1200 ms into the call/);
    assert.ok(performance.now() - again < 500, `the second call took ${(performance.now() - again).toFixed(0)} ms`);
  });
  it("at check, as the admission webhook runs a script's top level", () => {
    const started = performance.now();
    assert.throws(() => rt.check(`${backtracking}\nlocal found = s:find(p)\nfunction InterpretHealth(o) return true end`, "InterpretHealth"), (e: unknown) => e instanceof LuaScriptError && /time limit of 200 ms/.test(e.message));
    assert.ok(performance.now() - started < 6000);
    rt.check(`function InterpretHealth(o) return true end`, "InterpretHealth");
  });
  it("arguments that cannot reach the thread give an InterpreterError", () =>
    failsWith(() => rt.run("InterpretHealth", `function InterpretHealth(o) return true end`, "InterpretHealth", [{ f: () => 1 }], 1, ([h]) => h), "InterpretHealth", /cannot be passed to Lua/));
  it("on the calling thread (thread: false) the same scripts run, under the VM's own checks", () => {
    const local = new LuaInterpreterRuntime({ timeoutMs: 200, memoryBytes: 16 * 2 ** 20, thread: false });
    const run = (script: string) => local.interpreter({ healthInterpretation: { luaScript: script } }).interpretHealth?.(workload);
    assert.equal(run(`function InterpretHealth(o) return o.status.readyReplicas == 4 end`), true);
    failsWith(() => run(`function InterpretHealth(o)\n  while true do end\nend`), "InterpretHealth", /luaScript:2: script exceeded the time limit of 200 ms$/);
    assert.throws(() => local.check(`function Other() end`, "InterpretHealth"), /not found function InterpretHealth/);
  });
});

describe("check, as an apply does", () => {
  it("passes a script that defines its function", () => rt.check(`function InterpretHealth(o) return true end`, "InterpretHealth"));
  it("refuses a syntax error with the Lua message and line", () =>
    assert.throws(() => rt.check(`function InterpretHealth(o)\n  return o.status.\nend`, "InterpretHealth"), (e: unknown) => e instanceof LuaScriptError && /^luaScript:3: <name> expected near 'end'$/.test(e.message)));
  it("refuses a missing function", () => assert.throws(() => rt.check(`function Other() end`, "InterpretHealth"), /not found function InterpretHealth/));
  it("refuses a script whose top level fails", () => assert.throws(() => rt.check(`local x = nil + 1\nfunction InterpretHealth() end`, "InterpretHealth"), /luaScript:1: attempt to perform arithmetic on a nil value/));
  it("refuses a script whose top level loops", () => {
    // A generous memory limit, so that the time limit is what stops it: the memory limit reads the
    // whole process's heap, and on a loaded full test run it fired first (2026-11-28).
    const roomy = new LuaInterpreterRuntime({ timeoutMs: 200, memoryBytes: 2 ** 30 });
    assert.throws(() => roomy.check(`while true do end`, "InterpretHealth"), /time limit/);
  });
  it("refuses bytecode", () => assert.throws(() => rt.check("\x1bLua", "InterpretHealth"), /binary|attempt to load/));
});

describe("dependencies Karmada refuses", () => {
  const deps = (expr: string) => rt.interpreter({ dependencyInterpretation: { luaScript: `function GetDependencies(o) return ${expr} end` } }).getDependencies?.(workload);
  it("without kind", () => failsWith(() => deps(`{ { apiVersion = "v1", namespace = "a", name = "b" } }`), "InterpretDependency", /missing required kind/));
  it("without name or labelSelector", () => failsWith(() => deps(`{ { apiVersion = "v1", kind = "Secret", namespace = "a" } }`), "InterpretDependency", /name and labelSelector all empty/));
  it("none is an empty list", () => assert.deepEqual(deps(`{}`), []));
});

describe("a global named like a builtin", () => {
  it("set to nil is nil, as in gopher-lua's one global table (Karmada's FlinkDeployment script does this)", () => {
    const script = `function ReflectStatus(o) error = "" error = o.missing return { e = error } end`;
    assert.deepEqual(rt.interpreter({ statusReflection: { luaScript: script } }).reflectStatus?.(workload), {});
  });
});

describe("compiled scripts", () => {
  it("beyond maxScripts the least recently used is dropped and compiled again when needed", () => {
    const small = new LuaInterpreterRuntime({ maxScripts: 2 });
    const run = (n: number) => small.interpreter({ healthInterpretation: { luaScript: `function InterpretHealth(o) return ${n} == ${n} end` } }).interpretHealth?.(workload);
    for (const n of [1, 2, 3, 1, 2, 3]) assert.equal(run(n), true);
  });
});
