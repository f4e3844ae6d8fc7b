import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CustomizationRules, ResourceInterpreterCustomization } from "../../shared/api/customization.ts";
import type { KubeObject } from "../../shared/api/types.ts";
import { FlagError } from "../../shared/flags.ts";
import { InterpreterError, type KindInterpreter, type StatusItem } from "../../shared/interpreter/interpreter.ts";
import {
  checkCustomizations,
  checkFailed,
  checkReport,
  customizationInterpreters,
  customizationsOf,
  executeRule,
  operationRule,
  resultBlocks,
  resultObject,
  ruleByOperation,
  type RuleInputs,
  singleObject,
  statusItems,
} from "./interpret.ts";

const widget = (extra: Record<string, unknown> = {}): KubeObject => ({ apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w", namespace: "ns" }, ...extra });
const ric = (name: string, customizations: CustomizationRules, target = { apiVersion: "example.com/v1", kind: "Widget" }): ResourceInterpreterCustomization => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "ResourceInterpreterCustomization",
  metadata: { name },
  spec: { target, customizations },
});
const rule = (op: string) => operationRule(op);
const inputs = (i: Partial<RuleInputs>): RuleInputs => ({ status: null, replica: 0, ...i });

describe("--operation", () => {
  it("names an operation in any case (karmadactl's GetByOperation)", () => {
    for (const op of ["interpretHealth", "InterpretHealth", "INTERPRETHEALTH"]) assert.equal(ruleByOperation(op)?.operation, "InterpretHealth");
    assert.equal(ruleByOperation("retain")?.field, "retention");
    assert.equal(ruleByOperation(""), undefined);
  });

  it("an unknown operation, or none, is bad usage naming the operations", () => {
    assert.throws(() => operationRule("interpretFoo"), (e: Error) => e instanceof FlagError && /operation interpretFoo is not supported. Use one of: Retain, InterpretReplica, InterpretComponent/.test(e.message));
    assert.throws(() => operationRule(undefined), (e: Error) => e instanceof FlagError && /operation is not set for executing/.test(e.message));
  });
});

describe("--check", () => {
  const checker = (script: string, fn: string) => (script.includes("bad") ? `luaScript:2: syntax error near 'bad'` : script.includes(`function ${fn}`) ? undefined : `not found function ${fn}`);

  it("gives each operation PASS, UNSET or the Lua error, in Karmada's order, and fails on an error", () => {
    const checked = checkCustomizations(
      [{ source: "f.yaml", value: ric("widget", { retention: { luaScript: "function Retain(d, o) return d end" }, healthInterpretation: { luaScript: "x = 1\nbad" }, replicaResource: { luaScript: "x = 1" } }) }],
      checker,
    );
    assert.deepEqual(checked[0]?.rules, {
      Retain: "PASS",
      InterpretReplica: "ERROR: not found function GetReplicas",
      InterpretComponent: "UNSET",
      ReviseReplica: "UNSET",
      InterpretStatus: "UNSET",
      AggregateStatus: "UNSET",
      InterpretHealth: "ERROR: luaScript:2: syntax error near 'bad'",
      InterpretDependency: "UNSET",
    });
    assert.equal(checkFailed(checked), true);
    assert.equal(
      checkReport(checked),
      [
        "-----------------------------------",
        "SOURCE: widget",
        "TARGET: example.com/v1 Widget",
        "RULERS:",
        "    Retain:                     PASS",
        "    InterpretReplica:           ERROR: not found function GetReplicas",
        "    InterpretComponent:         UNSET",
        "    ReviseReplica:              UNSET",
        "    InterpretStatus:            UNSET",
        "    AggregateStatus:            UNSET",
        "    InterpretHealth:            ERROR: luaScript:2: syntax error near 'bad'",
        "    InterpretDependency:        UNSET",
      ].join("\n"),
    );
  });

  it("a good customization passes", () => {
    const checked = checkCustomizations([{ source: "f.yaml", value: ric("widget", { healthInterpretation: { luaScript: "function InterpretHealth(o) return true end" } }) }], checker);
    assert.equal(checkFailed(checked), false);
    assert.equal(checked[0]?.rules?.InterpretHealth, "PASS");
  });

  it("says what is not a customization (by name, Go's kind), and that a target is missing, without rulers", () => {
    const checked = checkCustomizations(
      [
        { source: "f.yaml", value: { apiVersion: "v1", kind: "Pod", metadata: { name: "not-customization" } } },
        { source: "f.yaml", value: { ...ric("no-kind", {}), spec: { target: { apiVersion: "apps/v1" }, customizations: {} } } },
      ],
      checker,
    );
    assert.equal(
      checkReport(checked),
      ["-----------------------------------", "SOURCE: not-customization", "not a ResourceInterpreterCustomization, got /v1, Kind=Pod", "-----------------------------------", "SOURCE: no-kind", "spec.target.kind is required"].join("\n"),
    );
    assert.equal(checkFailed(checked), true);
  });

  it("two customizations of a target giving one operation both fail, as applying them would; dependencies may repeat", () => {
    const health = { healthInterpretation: { luaScript: "function InterpretHealth(o) return true end" } };
    const deps = { dependencyInterpretation: { luaScript: "function GetDependencies(o) return {} end" } };
    const checked = checkCustomizations([{ source: "a", value: ric("a", { ...health, ...deps }) }, { source: "b", value: ric("b", { ...health, ...deps }) }, { source: "c", value: ric("c", health, { apiVersion: "v1", kind: "Other" }) }], checker);
    assert.deepEqual(checked.map((c) => c.problems), [
      ["conflicting with InterpreterOperation(InterpretHealth) of existing ResourceInterpreterCustomization(b)"],
      ["conflicting with InterpreterOperation(InterpretHealth) of existing ResourceInterpreterCustomization(a)"],
      [],
    ]);
  });

  it("the verdicts line up past the widest TARGET printed so far (kubectl's tab writer remembers widths)", () => {
    const long = ric("long", {}, { apiVersion: "example.com/v1alpha1", kind: "AVeryLongKindName" });
    const short = (name: string) => ric(name, {}, { apiVersion: "v1", kind: "Foo" });
    const lines = checkReport(checkCustomizations([{ source: "s", value: short("short") }, { source: "l", value: long }, { source: "s2", value: short("short2") }], checker)).split("\n");
    const column = (from: number) => lines.slice(from).find((l) => l.includes("Retain:"))?.indexOf("UNSET");
    assert.equal(column(0), "    InterpretDependency:".length + 3);
    assert.equal(column(lines.indexOf("SOURCE: long")), "TARGET: example.com/v1alpha1 AVeryLongKindName".length + 3);
    assert.equal(column(lines.indexOf("SOURCE: short2")), "TARGET: example.com/v1alpha1 AVeryLongKindName".length + 3);
  });
});

describe("executeRule", () => {
  const desired = widget({ spec: { size: 3 } });
  const observed = widget({ status: { ready: 2 } });
  const full: KindInterpreter = {
    retain: (d, o) => ({ ...d, status: o.status }),
    getReplicas: () => ({ replicas: 3, requires: { resourceRequest: { cpu: "100m" } } }),
    getComponents: () => [{ name: "main", replicas: 3 }],
    reviseReplica: (o, n) => ({ ...o, spec: { size: n } }),
    reflectStatus: (o) => o.status as Record<string, unknown>,
    aggregateStatus: (o) => ({ ...o, status: { ready: 5 } }),
    interpretHealth: () => true,
    getDependencies: () => [{ apiVersion: "v1", kind: "ConfigMap", namespace: "ns", name: "cfg" }],
  };
  const byKind = () => full;

  it("names the results as karmadactl: one object keyed by them with -o json", () => {
    const cases: [string, Partial<RuleInputs>, Record<string, unknown>][] = [
      ["retain", { desired, observed }, { retained: { ...desired, status: { ready: 2 } } }],
      ["interpretReplica", { desired }, { replica: 3, requires: { resourceRequest: { cpu: "100m" } } }],
      ["interpretComponent", { desired }, { components: [{ name: "main", replicas: 3 }] }],
      ["reviseReplica", { desired, replica: 2 }, { revised: { ...desired, spec: { size: 2 } } }],
      ["interpretStatus", { observed }, { status: { ready: 2 } }],
      ["aggregateStatus", { desired }, { aggregatedStatus: { ...desired, status: { ready: 5 } } }],
      ["interpretHealth", { observed }, { healthy: true }],
      ["interpretDependency", { desired }, { dependencies: [{ apiVersion: "v1", kind: "ConfigMap", namespace: "ns", name: "cfg" }] }],
    ];
    for (const [op, given, want] of cases) assert.deepEqual(resultObject(executeRule(rule(op), byKind, inputs(given))), want, op);
  });

  it("requires is null when the script gives none", () => {
    assert.deepEqual(resultObject(executeRule(rule("InterpretReplica"), () => ({ getReplicas: () => ({ replicas: 1 }) }), inputs({ desired }))), { replica: 1, requires: null });
  });

  it("Retain needs both objects, every other operation exactly one: bad usage in karmadactl's words", () => {
    assert.throws(() => executeRule(rule("Retain"), byKind, inputs({ observed })), (e: Error) => e instanceof FlagError && e.message === "desired, desired-file options are not set");
    assert.throws(() => executeRule(rule("Retain"), byKind, inputs({ desired })), (e: Error) => e instanceof FlagError && e.message === "observed, observed-file options are not set");
    assert.throws(() => executeRule(rule("InterpretHealth"), byKind, inputs({})), (e: Error) => e instanceof FlagError && e.message === "desired-file, observed-file options are not set");
    assert.throws(() => executeRule(rule("InterpretHealth"), byKind, inputs({ desired, observed })), (e: Error) => e instanceof FlagError && e.message === "you can not specify both desired-file and observed-file options");
  });

  it("an operation the customizations leave out is not enabled (never the native interpreter); a failing script is an Execute error", () => {
    assert.throws(() => executeRule(rule("InterpretHealth"), () => undefined, inputs({ observed })), (e: Error) => !(e instanceof FlagError) && /^Execute InterpretHealth error: rule is not enabled/.test(e.message));
    const failing: KindInterpreter = {
      interpretHealth: () => {
        throw new InterpreterError("InterpretHealth", "luaScript:1: attempt to index a nil value");
      },
    };
    assert.throws(() => executeRule(rule("InterpretHealth"), () => failing, inputs({ observed })), { message: "Execute InterpretHealth error: luaScript:1: attempt to index a nil value" });
  });
});

describe("output", () => {
  it("without -o: karmadactl's numbered blocks, YAML with sorted keys and lists not indented", () => {
    const text = resultBlocks([
      { name: "replica", value: 3 },
      { name: "requires", value: { resourceRequest: { memory: "1Gi", cpu: "1" }, nodeClaim: { tolerations: [{ key: "a", operator: "Exists" }] } } },
    ]);
    assert.equal(
      text,
      ["---", "# [1/2] replica:", "3", "---", "# [2/2] requires:", "nodeClaim:", "  tolerations:", "  - key: a", "    operator: Exists", "resourceRequest:", "  cpu: \"1\"", "  memory: 1Gi"].join("\n"),
    );
    assert.equal(resultBlocks([{ name: "requires", value: null }]), "---\n# [1/1] requires:\nnull");
  });
});

describe("inputs", () => {
  it("customizations: Flotilla's or Karmada's apiVersion; anything else is an error", () => {
    const karmada = { ...ric("k", {}), apiVersion: "config.karmada.io/v1alpha1" };
    assert.equal(customizationsOf([{ source: "f", value: ric("a", {}) }, { source: "f", value: karmada }]).length, 2);
    assert.throws(() => customizationsOf([{ source: "f.yaml", value: widget() }]), { message: "fail to get customization object: f.yaml: not a ResourceInterpreterCustomization, got example.com/v1, Kind=Widget" });
  });

  it("--desired-file and --observed-file hold exactly one object", () => {
    assert.deepEqual(singleObject([{ source: "o", value: widget() }], "observed-file"), widget());
    assert.throws(() => singleObject([], "observed-file"), FlagError);
    assert.throws(() => singleObject([{ source: "o", value: widget() }, { source: "o", value: widget() }], "desired-file"), /got 2 objects, expect one/);
    assert.throws(() => singleObject([{ source: "o", value: "text" }], "desired-file"), /holds no Kubernetes object/);
  });

  it("--status-file: Karmada's item fields, others dropped; a non-mapping is bad usage", () => {
    assert.deepEqual(statusItems([{ source: "s", value: { clusterName: "m1", status: { ready: 1 }, applied: true, health: "Healthy", extra: 1 } }, { source: "s", value: { clusterName: "m2", applied: false } }]), [
      { clusterName: "m1", status: { ready: 1 }, applied: true, health: "Healthy" },
      { clusterName: "m2" },
    ]);
    assert.throws(() => statusItems([{ source: "s", value: [1] }]), FlagError);
  });

  it("AggregateStatus gets --status-file's items as given: null without the flag, [] for a file of none", () => {
    const seen: (readonly StatusItem[] | null)[] = [];
    const runtime = {
      interpreter: (rules: CustomizationRules): KindInterpreter => (rules.statusAggregation ? { aggregateStatus: (o) => o } : {}),
      aggregateStatus: (_script: string, obj: KubeObject, items: readonly StatusItem[] | null) => {
        seen.push(items);
        return obj;
      },
    };
    const customizations = [ric("a", { statusAggregation: { luaScript: "function AggregateStatus(o, items) return o end" } })];
    for (const status of [null, []]) {
      const interpreterFor = customizationInterpreters(customizations, runtime, status);
      executeRule(rule("AggregateStatus"), interpreterFor, inputs({ desired: widget(), status }));
    }
    assert.deepEqual(seen, [null, []]);
    assert.equal(customizationInterpreters(customizations, runtime, null)({ apiVersion: "apps/v1", kind: "Deployment", metadata: {} }), undefined);
  });
});
