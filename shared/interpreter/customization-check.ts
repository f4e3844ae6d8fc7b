// The apply-time check of a ResourceInterpreterCustomization (issue 21), as Karmada's webhook
// (pkg/webhook/resourceinterpretercustomization) makes it, with its messages: each script must
// compile and define its operation's function, and two customizations of one target may not
// both define the same operation (except InterpretDependency, whose results Karmada merges).
// Pure: the Lua runtime comes in as `checkScript`, the other customizations as a list. The
// control plane's webhook (control-plane/webhook/) and `flotillactl interpret --check` share it.
import type { CustomizationRules, ResourceInterpreterCustomization } from "../api/customization.ts";
import type { InterpreterOperation } from "./interpreter.ts";

/** One field of spec.customizations: Karmada's operation and the function its script must define. */
export interface CustomizationRule {
  field: keyof CustomizationRules;
  operation: InterpreterOperation;
  functionName: string;
}

/** Every rule, in Karmada's order (interpreter.AllResourceInterpreterCustomizationRules). */
export const CUSTOMIZATION_RULES: readonly CustomizationRule[] = [
  { field: "retention", operation: "Retain", functionName: "Retain" },
  { field: "replicaResource", operation: "InterpretReplica", functionName: "GetReplicas" },
  { field: "componentResource", operation: "InterpretComponent", functionName: "GetComponents" },
  { field: "replicaRevision", operation: "ReviseReplica", functionName: "ReviseReplica" },
  { field: "statusReflection", operation: "InterpretStatus", functionName: "ReflectStatus" },
  { field: "statusAggregation", operation: "AggregateStatus", functionName: "AggregateStatus" },
  { field: "healthInterpretation", operation: "InterpretHealth", functionName: "InterpretHealth" },
  { field: "dependencyInterpretation", operation: "InterpretDependency", functionName: "GetDependencies" },
];

/** The one operation several customizations of a target may define: Karmada runs them all and merges the dependencies. */
const MERGED_OPERATION: InterpreterOperation = "InterpretDependency";

/**
 * Compiles a script and looks for a global function: the Lua error with its line ("[string
 * \"...\"]:3: 'end' expected near <eof>", "function InterpretHealth is not defined"), or
 * undefined when the script is fine. Never runs the function.
 */
export type ScriptChecker = (script: string, functionName: string) => string | undefined;

/**
 * The script a customization gives an operation, or "" when it gives none: an absent rule and an
 * empty luaScript alike leave the operation to the native interpreter (Karmada's GetScript).
 */
export function scriptOf(customization: Pick<ResourceInterpreterCustomization, "spec">, field: keyof CustomizationRules): string {
  const script = (customization.spec?.customizations as CustomizationRules | undefined)?.[field]?.luaScript;
  return typeof script === "string" ? script : "";
}

/**
 * Why a customization must be refused, in Karmada's words, or [] when it may be stored. `others`
 * are the stored customizations (one of the same name, the object's own stored version, is
 * skipped). Conflicts come first, then script errors, as Karmada checks them.
 */
export function validateCustomization(obj: ResourceInterpreterCustomization, checkScript: ScriptChecker, others: readonly ResourceInterpreterCustomization[] = []): string[] {
  const shape = shapeProblems(obj);
  if (shape.length > 0) return shape;
  const problems: string[] = [];
  const { apiVersion, kind } = obj.spec.target;
  for (const other of others) {
    if (other.metadata.name === obj.metadata.name) continue;
    if (other.spec?.target?.apiVersion !== apiVersion || other.spec.target.kind !== kind) continue;
    for (const rule of CUSTOMIZATION_RULES) {
      if (rule.operation === MERGED_OPERATION) continue;
      if (scriptOf(obj, rule.field) !== "" && scriptOf(other, rule.field) !== "") {
        problems.push(`conflicting with InterpreterOperation(${rule.operation}) of existing ResourceInterpreterCustomization(${other.metadata.name})`);
      }
    }
  }
  for (const rule of CUSTOMIZATION_RULES) {
    const script = scriptOf(obj, rule.field);
    if (script === "") continue;
    const error = checkScript(script, rule.functionName);
    if (error !== undefined) problems.push(`InterpreterOperation(${rule.operation}) Lua script error: ${error}`);
  }
  return problems;
}

/** What the CRD schema refuses already; checked again so that the function stands alone (flotillactl reads files). */
function shapeProblems(obj: ResourceInterpreterCustomization): string[] {
  const spec = obj.spec as Partial<ResourceInterpreterCustomization["spec"]> | undefined;
  if (typeof spec !== "object" || spec === null) return ["spec is required"];
  const problems: string[] = [];
  for (const f of ["apiVersion", "kind"] as const) {
    const v = (spec.target as Record<string, unknown> | undefined)?.[f];
    if (typeof v !== "string" || v === "") problems.push(`spec.target.${f} is required`);
  }
  if (typeof spec.customizations !== "object" || spec.customizations === null) problems.push("spec.customizations is required");
  for (const rule of CUSTOMIZATION_RULES) {
    const r = spec.customizations?.[rule.field] as { luaScript?: unknown } | undefined;
    if (r !== undefined && typeof r.luaScript !== "string") problems.push(`spec.customizations.${rule.field}.luaScript must be a string`);
  }
  return problems;
}
