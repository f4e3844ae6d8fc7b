import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../shared/api/types.ts";
import { LuaInterpreterRuntime } from "../../shared/interpreter/lua/runtime.ts";
import { InterpreterError, type InterpreterOperation, type KindInterpreter } from "../../shared/interpreter/interpreter.ts";
import { type ManifestOutcome, ownBytes, readMember, statusDigest, workStatus } from "./work-status.ts";

const service: KubeObject = { apiVersion: "v1", kind: "Service", metadata: { name: "web", namespace: "shop" } };
const live = { ...service, metadata: { ...service.metadata, generation: 1 }, status: { loadBalancer: { ingress: [{ ip: "192.0.2.1" }] } } } as KubeObject;

describe("workStatus", () => {
  const cases: { name: string; outcome: ManifestOutcome; want: number | undefined }[] = [
    { name: "a Service with ready endpoints", outcome: { manifest: service, applied: true, reason: "", message: "", live, readyEndpoints: 3 }, want: 3 },
    { name: "a Service with none", outcome: { manifest: service, applied: true, reason: "", message: "", live, readyEndpoints: 0 }, want: 0 },
    { name: "a Service not counted (slices not listed)", outcome: { manifest: service, applied: true, reason: "", message: "", live }, want: undefined },
  ];
  for (const c of cases) {
    it(`carries readyEndpoints: ${c.name}`, () => {
      const [m] = workStatus("core/v1/Service/shop/web", "h", [c.outcome]).manifests;
      assert.equal(m?.readyEndpoints, c.want);
      assert.equal(m !== undefined && "readyEndpoints" in m, c.want !== undefined, "unset, not 0, when not known");
      assert.deepEqual(JSON.parse(Buffer.from(m?.status ?? []).toString("utf8")), { loadBalancer: { ingress: [{ ip: "192.0.2.1" }] }, generation: 1 });
      assert.equal(m?.status.buffer.byteLength, m?.status.byteLength, "the status holds its own memory, not a slice of a shared pool");
    });
  }

  it("statusDigest: one for equal statuses, another when a manifest's status changes; small whatever the status", () => {
    const outcome = (ip: string): ManifestOutcome => ({ manifest: service, applied: true, reason: "", message: "", live: { ...live, status: { loadBalancer: { ingress: [{ ip }] }, big: "x".repeat(10_000) } } as KubeObject });
    const a = statusDigest(workStatus("k", "h", [outcome("192.0.2.1")]));
    assert.equal(statusDigest(workStatus("k", "h", [outcome("192.0.2.1")])), a);
    assert.notEqual(statusDigest(workStatus("k", "h", [outcome("192.0.2.2")])), a);
    assert.ok(a.length <= 44, a);
  });

  it("ownBytes: UTF-8 in a memory exactly its size (Buffer.from of short text is a slice of a 64 KiB pool)", () => {
    assert.ok(Buffer.from("{}").buffer.byteLength > 2, "Node pools small buffers (what ownBytes avoids)");
    const bytes = ownBytes('{"é":1}');
    assert.equal(Buffer.from(bytes).toString("utf8"), '{"é":1}');
    assert.equal(bytes.buffer.byteLength, bytes.byteLength);
  });
});

describe("readMember and workStatus with a kind's customization", () => {
  const gizmo = { apiVersion: "example.com/v1", kind: "Gizmo", metadata: { name: "g", namespace: "shop", generation: 3 }, status: { phase: "Running", ready: 2, noise: "x" } } as KubeObject;
  const fails = (op: InterpreterOperation) => () => {
    throw new InterpreterError(op, "<string>:2: attempt to index a nil value");
  };
  const cases: { name: string; customized: KindInterpreter | undefined; health: string; status: unknown; failures: string[] }[] = [
    { name: "no customization: the native reading, the whole status", customized: undefined, health: "Unknown", status: { phase: "Running", ready: 2, noise: "x", generation: 3 }, failures: [] },
    { name: "InterpretHealth true", customized: { interpretHealth: () => true }, health: "Healthy", status: { phase: "Running", ready: 2, noise: "x", generation: 3 }, failures: [] },
    { name: "InterpretHealth false is Unhealthy (Karmada's boolean)", customized: { interpretHealth: () => false }, health: "Unhealthy", status: { phase: "Running", ready: 2, noise: "x", generation: 3 }, failures: [] },
    {
      name: "InterpretHealth failing is Unknown, and said",
      customized: { interpretHealth: fails("InterpretHealth") },
      health: "Unknown",
      status: { phase: "Running", ready: 2, noise: "x", generation: 3 },
      failures: ["InterpretHealth: <string>:2: attempt to index a nil value"],
    },
    { name: "ReflectStatus picks fields", customized: { reflectStatus: (o) => ({ ready: (o.status as { ready: number }).ready }) }, health: "Unknown", status: { ready: 2, generation: 3 }, failures: [] },
    { name: "ReflectStatus failing reports no status, and says so", customized: { reflectStatus: fails("InterpretStatus") }, health: "Unknown", status: undefined, failures: ["InterpretStatus: <string>:2: attempt to index a nil value"] },
    {
      name: "a thrown non-interpreter error is named by its operation",
      customized: {
        interpretHealth: () => {
          throw new Error("boom");
        },
      },
      health: "Unknown",
      status: { phase: "Running", ready: 2, noise: "x", generation: 3 },
      failures: ["InterpretHealth: boom"],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = readMember(gizmo, c.customized);
      assert.equal(r.health.health, c.health);
      assert.deepEqual(r.status, c.status);
      assert.deepEqual(r.failures, c.failures);
      const s = workStatus("example.com/v1/Gizmo/shop/g", "h", [{ manifest: gizmo, applied: true, reason: "", message: "", live: gizmo }], () => c.customized);
      const failed = c.failures.length > 0;
      assert.equal(s.applied, true, "a failed interpretation never counts as a failed apply");
      assert.equal(s.reason, failed ? "InterpreterFailed" : "");
      assert.equal(s.manifests[0]?.reason, failed ? "InterpreterFailed" : "");
      if (failed) assert.match(s.message, new RegExp(`^Gizmo/g: ${c.failures[0]?.split(":")[0]}`));
      assert.equal(s.available, c.health === "Healthy");
    });
  }

  it("a failed apply keeps its own reason first", () => {
    const s = workStatus(
      "k",
      "h",
      [
        { manifest: gizmo, applied: false, reason: "UpdateFailed", message: "refused" },
        { manifest: { ...gizmo, metadata: { ...gizmo.metadata, name: "h" } }, applied: true, reason: "", message: "", live: gizmo },
      ],
      () => ({ interpretHealth: fails("InterpretHealth") }),
    );
    assert.equal(s.reason, "UpdateFailed");
    assert.match(s.message, /^Gizmo\/g: refused; Gizmo\/h: InterpretHealth: /);
  });
});

describe("readMember with runaway scripts in the agent's Lua runtime", () => {
  // The loop meets a short time limit; the allocation a generous one, so that on a loaded machine
  // it meets the memory limit first (with 200 ms it once met the time limit under CI's load).
  const quick = new LuaInterpreterRuntime({ timeoutMs: 200, memoryBytes: 8 * 2 ** 20 });
  const patient = new LuaInterpreterRuntime({ timeoutMs: 20_000, memoryBytes: 8 * 2 ** 20 });
  const live = { apiVersion: "example.com/v1", kind: "Gizmo", metadata: { name: "g", namespace: "shop", generation: 1 }, status: { phase: "Running" } } as KubeObject;
  const health = (script: string, runtime = quick) => runtime.interpreter({ healthInterpretation: { luaScript: script } });
  const cases: [string, string, RegExp, LuaInterpreterRuntime][] = [
    ["an infinite loop", "function InterpretHealth(o)\n  while true do end\nend", /^InterpretHealth: .*time limit/, quick],
    ["a huge allocation", "function InterpretHealth(o)\n  local t = {}\n  for i = 1, 1e8 do t[i] = {i} end\n  return true\nend", /^InterpretHealth: .*memory/, patient],
    ["os.exit", "function InterpretHealth(o) os.exit(1) return true end", /^InterpretHealth: .*exit/, quick],
    ["io.open", `function InterpretHealth(o) local f = io.open("/etc/passwd") return true end`, /^InterpretHealth: .*'io'/, quick],
  ];
  for (const [name, script, want, runtime] of cases) {
    it(`${name}: Unknown, said, and the next object is judged as usual`, () => {
      const r = readMember(live, health(script, runtime));
      assert.equal(r.health.health, "Unknown");
      assert.match(r.failures[0] ?? "", want);
      assert.equal(readMember(live, health("function InterpretHealth(o) return o.status.phase == 'Running' end")).health.health, "Healthy");
    });
  }
});
