import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ResourceInterpreterCustomization } from "../api/customization.ts";
import { agentCustomizationSet, AGENT_SET_BOUNDS, decodeAgentSet, encodeAgentSet } from "./agent-customizations.ts";

const ric = (name: string, customizations: Record<string, { luaScript: string }>, extra: Partial<ResourceInterpreterCustomization["metadata"]> = {}): ResourceInterpreterCustomization => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "ResourceInterpreterCustomization",
  metadata: { name, uid: `uid-${name}`, resourceVersion: "7", ...extra },
  spec: { target: { apiVersion: "example.com/v1", kind: "Gizmo" }, customizations },
});
const health = { luaScript: "function InterpretHealth(o) return true end" };
const replicas = { luaScript: "function GetReplicas(o) return 1, nil end" };
const reflect = { luaScript: "function ReflectStatus(o) return o.status end" };

describe("agentCustomizationSet", () => {
  it("keeps only the rules that run in the agent, in name order, without the stored object's metadata", () => {
    const set = agentCustomizationSet([ric("b", { healthInterpretation: health, replicaResource: replicas }), ric("a", { statusReflection: reflect })]);
    assert.deepEqual(
      set.customizations.map((c) => [c.metadata, Object.keys(c.spec.customizations)]),
      [
        [{ name: "a" }, ["statusReflection"]],
        [{ name: "b" }, ["healthInterpretation"]],
      ],
    );
    assert.match(set.hash, /^[0-9a-f]{32}$/);
  });

  const cases: { name: string; stored: ResourceInterpreterCustomization[] }[] = [
    { name: "no customizations", stored: [] },
    { name: "only control-plane rules", stored: [ric("a", { replicaResource: replicas })] },
    { name: "an empty script", stored: [ric("a", { healthInterpretation: { luaScript: "  " } })] },
    { name: "one being deleted", stored: [ric("a", { healthInterpretation: health }, { deletionTimestamp: "2026-11-24T00:00:00Z" })] },
  ];
  for (const c of cases) {
    it(`is empty, with hash "", for ${c.name}`, () => assert.deepEqual(agentCustomizationSet(c.stored), { hash: "", customizations: [] }));
  }

  it("has one hash for one content: whatever the stored order, resourceVersion or control-plane rules", () => {
    const one = agentCustomizationSet([ric("a", { healthInterpretation: health }), ric("b", { statusReflection: reflect })]);
    const two = agentCustomizationSet([ric("b", { statusReflection: reflect, replicaResource: replicas }, { resourceVersion: "99" }), ric("a", { healthInterpretation: health })]);
    assert.equal(one.hash, two.hash);
    const edited = agentCustomizationSet([ric("a", { healthInterpretation: { luaScript: "function InterpretHealth(o) return false end" } }), ric("b", { statusReflection: reflect })]);
    assert.notEqual(edited.hash, one.hash);
  });
});

describe("decodeAgentSet", () => {
  const set = agentCustomizationSet([ric("a", { healthInterpretation: health, retention: { luaScript: "function Retain(d, o) return d end" } })]);

  it("takes back what encodeAgentSet gives", () => {
    const decoded = decodeAgentSet(encodeAgentSet(set));
    assert.deepEqual(decoded, { ok: true, set });
    assert.deepEqual(decodeAgentSet(encodeAgentSet(agentCustomizationSet([]))), { ok: true, set: { hash: "", customizations: [] } });
  });

  const good = encodeAgentSet(set);
  const refusals: { name: string; msg: { contentHash: string; customizations: Uint8Array[] }; want: RegExp }[] = [
    { name: "an entry that is not JSON", msg: { ...good, customizations: [Buffer.from("{")] }, want: /customization 0 is not JSON/ },
    { name: "an array", msg: { ...good, customizations: [Buffer.from("[]")] }, want: /not an object/ },
    { name: "no name", msg: { ...good, customizations: [Buffer.from(JSON.stringify({ ...set.customizations[0], metadata: {} }))] }, want: /metadata.name/ },
    { name: "no target", msg: { ...good, customizations: [Buffer.from(JSON.stringify({ ...set.customizations[0], spec: { customizations: {} } }))] }, want: /spec.target/ },
    {
      name: "a rule the agent does not run",
      msg: { ...good, customizations: [Buffer.from(JSON.stringify({ ...set.customizations[0], spec: { target: { apiVersion: "v1", kind: "X" }, customizations: { replicaResource: replicas } } }))] },
      want: /replicaResource does not run in the agent/,
    },
    {
      name: "a script that is not a string",
      msg: { ...good, customizations: [Buffer.from(JSON.stringify({ ...set.customizations[0], spec: { target: { apiVersion: "v1", kind: "X" }, customizations: { healthInterpretation: { luaScript: 7 } } } }))] },
      want: /luaScript is not a string/,
    },
    { name: "another hash", msg: { ...good, contentHash: "0".repeat(32) }, want: /hash/ },
    { name: "too many", msg: { contentHash: "", customizations: Array.from({ length: AGENT_SET_BOUNDS.customizations + 1 }, () => Buffer.from("{}")) }, want: /at most 1000/ },
    { name: "too many bytes", msg: { contentHash: "", customizations: [Buffer.alloc(AGENT_SET_BOUNDS.bytes + 1)] }, want: /bytes of customizations/ },
  ];
  for (const r of refusals) {
    it(`refuses ${r.name}`, () => {
      const out = decodeAgentSet(r.msg);
      assert.equal(out.ok, false);
      if (!out.ok) assert.match(out.reason, r.want);
    });
  }
});
