// `flotillactl interpret`: karmadactl interpret's check and execute of ResourceInterpreterCustomizations,
// locally (no control plane), so that users test their scripts before applying them. As
// karmadactl, it runs the customizations alone: an operation they leave out is "not enabled", never
// answered by the native interpreter. The decisions here are pure; the command's shell reads the
// files and runs the Lua runtime.
import { stringify } from "yaml";
import type { CustomizationRules, ResourceInterpreterCustomization } from "../../shared/api/customization.ts";
import type { KubeObject } from "../../shared/api/types.ts";
import { FlagError, type FlagValues } from "../../shared/flags.ts";
import { CUSTOMIZATION_RULES, type CustomizationRule, type ScriptChecker, scriptOf, validateCustomization } from "../../shared/interpreter/customization-check.ts";
import { interpretersByKind } from "../../shared/interpreter/customization-set.ts";
import { InterpreterError, type KindInterpreter, kindKey, type StatusItem } from "../../shared/interpreter/interpreter.ts";
import { LuaInterpreterRuntime } from "../../shared/interpreter/lua/runtime.ts";
import { structured } from "./format.ts";
import { readSourcedObjects, type SourcedObject } from "./object-files.ts";

/** The apiVersions a customization may carry: Flotilla's, and Karmada's so a Karmada file is tested as it is. */
const CUSTOMIZATION_API_VERSIONS = ["flotilla.dev/v1alpha1", "config.karmada.io/v1alpha1"];

/** The rule --operation names, in any case (karmadactl's GetByOperation); undefined when none does. */
export function ruleByOperation(operation: string): CustomizationRule | undefined {
  const wanted = operation.toLowerCase();
  return operation === "" ? undefined : CUSTOMIZATION_RULES.find((r) => r.operation.toLowerCase() === wanted);
}

/** The rule to execute, or bad usage in karmadactl's words. */
export function operationRule(operation: string | undefined): CustomizationRule {
  if (operation === undefined || operation === "") throw new FlagError("operation is not set for executing (--operation, or --check)");
  const rule = ruleByOperation(operation);
  if (rule === undefined) throw new FlagError(`operation ${operation} is not supported. Use one of: ${CUSTOMIZATION_RULES.map((r) => r.operation).join(", ")}`);
  return rule;
}

/** Why an object read from -f is not a customization, or undefined when it is one. */
function notCustomization(value: unknown): string | undefined {
  const o = (typeof value === "object" && value !== null && !Array.isArray(value) ? value : {}) as { apiVersion?: unknown; kind?: unknown };
  if (o.kind === "ResourceInterpreterCustomization" && CUSTOMIZATION_API_VERSIONS.includes(String(o.apiVersion))) return undefined;
  // Go's GroupVersionKind as karmadactl prints it: the core group is empty ("/v1, Kind=Pod").
  const apiVersion = String(o.apiVersion ?? "");
  return `not a ResourceInterpreterCustomization, got ${apiVersion.includes("/") ? apiVersion : `/${apiVersion}`}, Kind=${String(o.kind ?? "")}`;
}

/** The customizations -f holds; an error (karmadactl's exit 1) when one object is not a customization. */
export function customizationsOf(objects: readonly SourcedObject[]): ResourceInterpreterCustomization[] {
  return objects.map((o) => {
    const why = notCustomization(o.value);
    if (why !== undefined) throw new Error(`fail to get customization object: ${o.source}: ${why}`);
    return o.value as ResourceInterpreterCustomization;
  });
}

/** One rule's verdict in --check: no script, a script that passes, or its Lua error. */
export type RuleVerdict = "UNSET" | "PASS" | `ERROR: ${string}`;

/** What --check says of one object of -f. */
export interface CheckedCustomization {
  /** Its metadata.name, or the file it came from. */
  source: string;
  target?: { apiVersion: string; kind: string };
  /** What refuses it besides its scripts: not a customization, a missing field, a conflict with another in -f. */
  problems: string[];
  /** Per operation, in Karmada's order; absent when the object is not a customization or names no target. */
  rules?: Record<string, RuleVerdict>;
}

/**
 * Checks each customization as applying it would (shared/interpreter/customization-check.ts):
 * every script compiles and defines its function, and two customizations of -f with one target
 * do not give one operation (InterpretDependency excepted). Karmadactl's --check only compiles.
 */
export function checkCustomizations(objects: readonly SourcedObject[], checkScript: ScriptChecker): CheckedCustomization[] {
  const customizations = objects.filter((o) => notCustomization(o.value) === undefined).map((o) => o.value as ResourceInterpreterCustomization);
  return objects.map(({ source, value }) => {
    const named = (value as { metadata?: { name?: unknown } } | null)?.metadata?.name;
    const name = typeof named === "string" && named !== "" ? named : source;
    const why = notCustomization(value);
    if (why !== undefined) return { source: name, problems: [why] };
    const c = value as ResourceInterpreterCustomization;
    const errors = new Map<string, string | undefined>();
    const recording: ScriptChecker = (script, functionName) => {
      const error = checkScript(script, functionName);
      errors.set(functionName, error);
      return error;
    };
    const others = customizations.filter((o) => o !== c);
    const problems = validateCustomization({ ...c, metadata: { ...c.metadata, name } }, recording, others).filter((p) => !/^InterpreterOperation\(\w+\) Lua script error: /.test(p));
    const t = c.spec?.target as Partial<{ apiVersion: string; kind: string }> | undefined;
    const target = typeof t?.apiVersion === "string" && t.apiVersion !== "" && typeof t.kind === "string" && t.kind !== "" ? { apiVersion: t.apiVersion, kind: t.kind } : undefined;
    // Without a target the scripts are not looked at (karmadactl stops there too).
    if (target === undefined) return { source: name, problems };
    const rules: Record<string, RuleVerdict> = {};
    for (const rule of CUSTOMIZATION_RULES) {
      const error = errors.get(rule.functionName);
      rules[rule.operation] = scriptOf(c, rule.field) === "" ? "UNSET" : error !== undefined ? `ERROR: ${error.trim()}` : errors.has(rule.functionName) ? "PASS" : "UNSET";
    }
    return { source: name, target, problems, rules };
  });
}

/** Whether any customization fails the check (the command then exits 1). */
export function checkFailed(checked: readonly CheckedCustomization[]): boolean {
  return checked.some((c) => c.problems.length > 0 || Object.values(c.rules ?? {}).some((v) => v.startsWith("ERROR")));
}

/**
 * --check's report, karmadactl's layout: a ruler, SOURCE, TARGET, then RULERS with a verdict per
 * operation. The verdicts line up 3 past the widest TARGET or operation cell printed so far
 * (kubectl's tab writer remembers widths across blocks).
 */
export function checkReport(checked: readonly CheckedCustomization[]): string {
  let widest = Math.max(...CUSTOMIZATION_RULES.map((r) => `    ${r.operation}:`.length));
  const lines: string[] = [];
  for (const c of checked) {
    lines.push("-----------------------------------", `SOURCE: ${c.source}`);
    if (c.target) {
      const target = `TARGET: ${c.target.apiVersion} ${c.target.kind}`;
      widest = Math.max(widest, target.length);
      lines.push(target);
    }
    lines.push(...c.problems);
    if (c.rules === undefined) continue;
    lines.push("RULERS:", ...Object.entries(c.rules).map(([op, verdict]) => `${`    ${op}:`.padEnd(widest + 3)}${verdict}`));
  }
  return lines.join("\n");
}

/** The objects and values the script is given (karmadactl's RuleArgs). */
export interface RuleInputs {
  desired?: KubeObject;
  observed?: KubeObject;
  /** --status-file's items; null without it (the script gets nil), [] for a file of none. */
  status: StatusItem[] | null;
  replica: number;
}

/** One named result, as karmadactl prints it (`retained`, `replica`, `requires`, ...). */
export interface RuleResult {
  name: string;
  value: unknown;
}

/** The object an operation other than Retain runs on: the desired or the observed one, exactly one. */
function theObject(inputs: RuleInputs): KubeObject {
  if (inputs.desired === undefined && inputs.observed === undefined) throw new FlagError("desired-file, observed-file options are not set");
  if (inputs.desired !== undefined && inputs.observed !== undefined) throw new FlagError("you can not specify both desired-file and observed-file options");
  return (inputs.desired ?? inputs.observed) as KubeObject;
}

/**
 * Runs one rule of the interpreter `interpreterFor` gives the object's kind, and names its results
 * as karmadactl does. Missing inputs are bad usage; a kind the customizations leave the operation
 * out of, and a script that fails, are errors ("Execute <operation> error: ...").
 */
export function executeRule(rule: CustomizationRule, interpreterFor: (obj: KubeObject) => KindInterpreter | undefined, inputs: RuleInputs): RuleResult[] {
  let obj: KubeObject;
  let observed: KubeObject | undefined;
  if (rule.operation === "Retain") {
    if (inputs.desired === undefined) throw new FlagError("desired, desired-file options are not set");
    if (inputs.observed === undefined) throw new FlagError("observed, observed-file options are not set");
    [obj, observed] = [inputs.desired, inputs.observed];
  } else {
    obj = theObject(inputs);
  }
  const i = interpreterFor(obj) ?? {};
  const run = <T>(fn: ((...a: never[]) => unknown) | undefined, call: () => T): T => {
    if (fn === undefined) throw new Error(`Execute ${rule.operation} error: rule is not enabled (no customization gives ${obj.apiVersion} ${obj.kind} a ${rule.field} script)`);
    try {
      return call();
    } catch (err) {
      const message = err instanceof InterpreterError ? err.message.slice(err.operation.length + 2) : err instanceof Error ? err.message : String(err);
      throw new Error(`Execute ${rule.operation} error: ${message}`, { cause: err });
    }
  };
  switch (rule.operation) {
    case "Retain":
      return [{ name: "retained", value: run(i.retain, () => i.retain?.(obj, observed as KubeObject)) }];
    case "InterpretReplica": {
      const r = run(i.getReplicas, () => i.getReplicas?.(obj));
      return [{ name: "replica", value: r?.replicas }, { name: "requires", value: r?.requires ?? null }];
    }
    case "InterpretComponent":
      return [{ name: "components", value: run(i.getComponents, () => i.getComponents?.(obj)) }];
    case "ReviseReplica":
      return [{ name: "revised", value: run(i.reviseReplica, () => i.reviseReplica?.(obj, inputs.replica)) }];
    case "InterpretStatus":
      return [{ name: "status", value: run(i.reflectStatus, () => i.reflectStatus?.(obj)) ?? null }];
    case "AggregateStatus":
      return [{ name: "aggregatedStatus", value: run(i.aggregateStatus, () => i.aggregateStatus?.(obj, inputs.status ?? [])) }];
    case "InterpretHealth":
      return [{ name: "healthy", value: run(i.interpretHealth, () => i.interpretHealth?.(obj)) }];
    case "InterpretDependency":
      return [{ name: "dependencies", value: run(i.getDependencies, () => i.getDependencies?.(obj)) }];
  }
}

/** Builds the Lua side of one customization; `aggregate` runs AggregateStatus with the items as given (null or a list). */
export interface CustomizationRuntime {
  interpreter(rules: CustomizationRules): KindInterpreter;
  aggregateStatus(script: string, obj: KubeObject, items: readonly StatusItem[] | null): KubeObject;
}

/**
 * The interpreter per kind of -f's customizations, read as the control plane reads the stored
 * ones (name order, first script wins, dependencies joined). AggregateStatus gets --status-file's
 * items exactly: nil without the flag, an empty table for a file of none (karmadactl's).
 */
export function customizationInterpreters(customizations: readonly ResourceInterpreterCustomization[], runtime: CustomizationRuntime, status: StatusItem[] | null): (obj: KubeObject) => KindInterpreter | undefined {
  const byKind = interpretersByKind(customizations, (rules) => {
    const i = runtime.interpreter(rules);
    const script = rules.statusAggregation?.luaScript;
    if (script !== undefined && i.aggregateStatus !== undefined) i.aggregateStatus = (obj) => runtime.aggregateStatus(script, obj, status);
    return i;
  });
  return (obj) => byKind.get(kindKey(obj.apiVersion, obj.kind));
}

/** Without -o: karmadactl's blocks, `---` then `# [i/n] name:` and the value as YAML (keys sorted and lists not indented, as Go's YAML prints). */
export function resultBlocks(results: readonly RuleResult[]): string {
  return results.map((r, i) => `---\n# [${i + 1}/${results.length}] ${r.name}:\n${stringify(r.value, { sortMapEntries: true, indentSeq: false }).trimEnd()}`).join("\n");
}

/** -o json: one object keyed by the result names. */
export function resultObject(results: readonly RuleResult[]): Record<string, unknown> {
  return Object.fromEntries(results.map((r) => [r.name, r.value]));
}

/** The one object --desired-file or --observed-file holds (karmadactl: "expect one at most"). */
export function singleObject(objects: readonly SourcedObject[], flag: string): KubeObject {
  if (objects.length !== 1) throw new FlagError(`--${flag}: got ${objects.length} objects, expect one`);
  const v = objects[0]?.value as Partial<KubeObject> | undefined;
  if (typeof v !== "object" || v === null || Array.isArray(v) || typeof v.apiVersion !== "string" || typeof v.kind !== "string") {
    throw new FlagError(`--${flag}: ${objects[0]?.source} holds no Kubernetes object (apiVersion and kind)`);
  }
  return v as KubeObject;
}

/** --status-file's documents as aggregated status items (Karmada's AggregatedStatusItem fields; others dropped). */
export function statusItems(objects: readonly SourcedObject[]): StatusItem[] {
  return objects.map(({ source, value }) => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) throw new FlagError(`--status-file: ${source}: a status item is a mapping (clusterName, status, applied, appliedMessage, health)`);
    const v = value as Record<string, unknown>;
    const item: StatusItem = { clusterName: typeof v.clusterName === "string" ? v.clusterName : "" };
    if (typeof v.status === "object" && v.status !== null && !Array.isArray(v.status)) item.status = v.status as Record<string, unknown>;
    if (v.applied === true) item.applied = true;
    if (typeof v.appliedMessage === "string" && v.appliedMessage !== "") item.appliedMessage = v.appliedMessage;
    if (v.health === "Healthy" || v.health === "Unhealthy" || v.health === "Unknown") item.health = v.health;
    return item;
  });
}

/** The command: --check, or one operation's results (`yaml`: karmadactl's blocks; `json`: one object). */
export async function runInterpret(flags: FlagValues, format: "yaml" | "json"): Promise<string> {
  const runtime = new LuaInterpreterRuntime();
  const objects = await readSourcedObjects(String(flags.filename), { recursive: flags.recursive === true });
  if (objects.length === 0) throw new FlagError(`${String(flags.filename)} holds no object`);
  if (flags.check === true) {
    const checked = checkCustomizations(objects, (script, fn) => runtime.scriptError(script, fn));
    const report = format === "json" ? structured(checked, "json") : checkReport(checked);
    if (!checkFailed(checked)) return report;
    console.log(report);
    throw new Error(`${checked.filter((c) => checkFailed([c])).length} of ${checked.length} customizations failed the check`);
  }
  const rule = operationRule(typeof flags.operation === "string" ? flags.operation : undefined);
  const replica = Number(flags["desired-replica"] ?? 0);
  if (!Number.isSafeInteger(replica) || replica < INT32_MIN || replica > INT32_MAX) throw new FlagError("--desired-replica must be a 32-bit integer");
  const one = async (flag: string): Promise<KubeObject | undefined> => {
    const path = flags[flag];
    return typeof path === "string" ? singleObject(await readSourcedObjects(path), flag) : undefined;
  };
  const statusFile = flags["status-file"];
  const status = typeof statusFile === "string" ? statusItems(await readSourcedObjects(statusFile)) : null;
  const inputs: RuleInputs = { desired: await one("desired-file"), observed: await one("observed-file"), status, replica };
  const results = executeRule(rule, customizationInterpreters(customizationsOf(objects), runtime, status), inputs);
  return format === "json" ? structured(resultObject(results), "json") : resultBlocks(results);
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
