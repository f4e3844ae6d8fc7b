import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CustomizationRules, ResourceInterpreterCustomization } from "../api/customization.ts";
import { API_VERSION } from "../api/types.ts";
import { CUSTOMIZATION_RULES, type ScriptChecker, validateCustomization } from "./customization-check.ts";
import { OPERATIONS } from "./interpreter.ts";

const ric = (name: string, customizations: CustomizationRules, target = { apiVersion: "apps/v1", kind: "Deployment" }): ResourceInterpreterCustomization => ({
  apiVersion: API_VERSION,
  kind: "ResourceInterpreterCustomization",
  metadata: { name },
  spec: { target, customizations },
});
const lua = (luaScript: string) => ({ luaScript });

/** A fake Lua: "SYNTAX" anywhere is a syntax error on line 2; a script must mention `function <name>`. */
const fakeChecker: ScriptChecker = (script, fn) => {
  if (script.includes("SYNTAX")) return `[string "script"]:2: unexpected symbol near 'SYNTAX'`;
  return script.includes(`function ${fn}`) ? undefined : `function ${fn} is not defined`;
};
const health = lua("function InterpretHealth(o) return true end");
const replicas = lua("function GetReplicas(o) return 1 end");
const deps = lua("function GetDependencies(o) return {} end");

describe("validateCustomization: scripts", () => {
  const cases: { name: string; obj: ResourceInterpreterCustomization; want: string[] }[] = [
    { name: "a valid script is accepted", obj: ric("a", { healthInterpretation: health }), want: [] },
    { name: "no rules at all is accepted (every operation stays native)", obj: ric("a", {}), want: [] },
    { name: "an empty luaScript is no rule (Karmada's GetScript), so never checked", obj: ric("a", { retention: lua("") }), want: [] },
    {
      name: "a syntax error is refused with the operation and the Lua message and line",
      obj: ric("a", { statusAggregation: lua("function AggregateStatus(d, i)\n SYNTAX\nend") }),
      want: [`InterpreterOperation(AggregateStatus) Lua script error: [string "script"]:2: unexpected symbol near 'SYNTAX'`],
    },
    {
      name: "a missing function is refused, named as the operation expects it",
      obj: ric("a", { replicaResource: lua("function GetReplica(o) return 1 end") }),
      want: ["InterpreterOperation(InterpretReplica) Lua script error: function GetReplicas is not defined"],
    },
    {
      name: "every bad script is reported, in Karmada's rule order",
      obj: ric("a", { healthInterpretation: lua("x"), retention: lua("y") }),
      want: ["InterpreterOperation(Retain) Lua script error: function Retain is not defined", "InterpreterOperation(InterpretHealth) Lua script error: function InterpretHealth is not defined"],
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(validateCustomization(c.obj, fakeChecker), c.want));

  it("asks for each field's function by Karmada's name, and knows every operation of the contract", () => {
    const asked: string[] = [];
    const all = Object.fromEntries(CUSTOMIZATION_RULES.map((r) => [r.field, lua(`-- ${r.field}`)]));
    validateCustomization(ric("a", all), (_s, fn) => void asked.push(fn));
    assert.deepEqual(asked, ["Retain", "GetReplicas", "GetComponents", "ReviseReplica", "ReflectStatus", "AggregateStatus", "InterpretHealth", "GetDependencies"]);
    assert.deepEqual(CUSTOMIZATION_RULES.map((r) => r.operation).sort(), [...OPERATIONS].sort());
  });
});

describe("validateCustomization: other customizations of the same target", () => {
  const cases: { name: string; obj: ResourceInterpreterCustomization; others: ResourceInterpreterCustomization[]; want: string[] }[] = [
    { name: "different operations on one target are accepted (Karmada merges them)", obj: ric("b", { healthInterpretation: health }), others: [ric("a", { replicaResource: replicas })], want: [] },
    {
      name: "the same operation on one target is refused, naming the operation and the existing customization",
      obj: ric("b", { healthInterpretation: health, replicaResource: replicas }),
      others: [ric("a", { healthInterpretation: health })],
      want: ["conflicting with InterpreterOperation(InterpretHealth) of existing ResourceInterpreterCustomization(a)"],
    },
    { name: "dependencyInterpretation may be defined by several (their dependencies are merged)", obj: ric("b", { dependencyInterpretation: deps }), others: [ric("a", { dependencyInterpretation: deps })], want: [] },
    { name: "the same operation on another kind is accepted", obj: ric("b", { healthInterpretation: health }), others: [ric("a", { healthInterpretation: health }, { apiVersion: "apps/v1", kind: "StatefulSet" })], want: [] },
    { name: "the same operation on another apiVersion of the kind is accepted", obj: ric("b", { healthInterpretation: health }), others: [ric("a", { healthInterpretation: health }, { apiVersion: "apps/v1beta2", kind: "Deployment" })], want: [] },
    { name: "its own stored version (an update) is no conflict", obj: ric("a", { healthInterpretation: health }), others: [ric("a", { healthInterpretation: health })], want: [] },
    { name: "an empty script on either side is no conflict", obj: ric("b", { healthInterpretation: health }), others: [ric("a", { healthInterpretation: lua("") })], want: [] },
    {
      name: "conflicts come before script errors, and each conflicting customization is named",
      obj: ric("c", { healthInterpretation: lua("SYNTAX") }),
      others: [ric("a", { healthInterpretation: health }), ric("b", { healthInterpretation: health })],
      want: [
        "conflicting with InterpreterOperation(InterpretHealth) of existing ResourceInterpreterCustomization(a)",
        "conflicting with InterpreterOperation(InterpretHealth) of existing ResourceInterpreterCustomization(b)",
        `InterpreterOperation(InterpretHealth) Lua script error: [string "script"]:2: unexpected symbol near 'SYNTAX'`,
      ],
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(validateCustomization(c.obj, fakeChecker, c.others), c.want));
});

describe("validateCustomization: shapes the schema refuses (the function stands alone for files)", () => {
  const bad = (spec: unknown) => ({ apiVersion: API_VERSION, kind: "ResourceInterpreterCustomization", metadata: { name: "x" }, spec }) as ResourceInterpreterCustomization;
  const cases: { name: string; obj: ResourceInterpreterCustomization; want: string[] }[] = [
    { name: "no spec", obj: bad(undefined), want: ["spec is required"] },
    { name: "no target, no customizations", obj: bad({}), want: ["spec.target.apiVersion is required", "spec.target.kind is required", "spec.customizations is required"] },
    { name: "an empty kind", obj: bad({ target: { apiVersion: "v1", kind: "" }, customizations: {} }), want: ["spec.target.kind is required"] },
    { name: "a luaScript that is not a string", obj: bad({ target: { apiVersion: "v1", kind: "Pod" }, customizations: { retention: { luaScript: 3 } } }), want: ["spec.customizations.retention.luaScript must be a string"] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(validateCustomization(c.obj, fakeChecker), c.want));
});
