// What the validating webhook refuses of FederatedHPAs and CronFederatedHPAs (pure), as Karmada's
// karmada-webhook does for its autoscaling kinds. The CRD schemas refuse most of it already; this
// adds what a schema cannot say (a schedule that does not parse, an unknown time zone, a quantity
// that is not positive) and says again what it can, so that a check without the apiserver
// (a test, a future `flotillactl` command) sees the same. Each problem is one Kubernetes field
// error: `<path>: <Invalid value|Duplicate value|Required value>: <detail>`.
import type { CronFederatedHPA, CronFederatedHPARule, FederatedHPA, MetricSpec, MetricTarget } from "../api/autoscaling.ts";
import { FEDERATED_HPA_KIND, targetsFederatedHpa } from "../api/autoscaling.ts";
import { API_VERSION } from "../api/types.ts";
import { parseExactQuantity } from "../quantity.ts";
import { parseSchedule, timeZoneError } from "./cron.ts";

const invalid = (path: string, value: unknown, detail: string): string => `${path}: Invalid value: ${JSON.stringify(value ?? "")}: ${detail}`;
const required = (path: string, detail: string): string => `${path}: Required value: ${detail}`;

/** The metric source field each MetricSpec type names. */
const SOURCE_FIELDS = { Object: "object", Pods: "pods", Resource: "resource", ContainerResource: "containerResource", External: "external" } as const;

function positiveQuantity(path: string, value: string | number | undefined): string[] {
  if (value === undefined) return [];
  try {
    if (parseExactQuantity(String(value)).mantissa > 0n) return [];
  } catch {
    return [invalid(path, value, "not a quantity")];
  }
  return [invalid(path, value, "must be positive")];
}

function targetProblems(path: string, target: MetricTarget | undefined): string[] {
  if (target === undefined) return [required(path, "must specify a metric target")];
  return [...positiveQuantity(`${path}.value`, target.value), ...positiveQuantity(`${path}.averageValue`, target.averageValue)];
}

function metricProblems(path: string, m: MetricSpec): string[] {
  const field = SOURCE_FIELDS[m.type];
  if (field === undefined) return [`${path}.type: Unsupported value: ${JSON.stringify(m.type)}: supported values: ${Object.keys(SOURCE_FIELDS).map((t) => `"${t}"`).join(", ")}`];
  const problems: string[] = [];
  for (const other of Object.values(SOURCE_FIELDS)) {
    if (other !== field && m[other] !== undefined) problems.push(`${path}.${other}: Forbidden: must populate the given metric source only`);
  }
  const source = m[field];
  if (source === undefined) return [...problems, required(`${path}.${field}`, `type ${m.type} needs ${field}`)];
  const target = source.target as MetricTarget | undefined;
  problems.push(...targetProblems(`${path}.${field}.target`, target));
  if (target === undefined) return problems;
  if (field === "resource" || field === "containerResource") {
    if ((target.averageUtilization === undefined) === (target.averageValue === undefined)) {
      problems.push(invalid(`${path}.${field}.target`, "", "set target.averageUtilization or target.averageValue, not both"));
    }
  } else if (field === "pods") {
    if (target.averageValue === undefined) problems.push(required(`${path}.pods.target.averageValue`, "must specify a positive target averageValue"));
  } else if (target.value === undefined && target.averageValue === undefined) {
    problems.push(required(`${path}.${field}.target.averageValue`, "must set either a target value or averageValue"));
  }
  return problems;
}

/** Why a FederatedHPA is refused; empty when it is not. */
export function validateFederatedHPA(fhpa: FederatedHPA): string[] {
  const spec = fhpa.spec;
  if (typeof spec !== "object" || spec === null) return [required("spec", "a FederatedHPA needs a spec")];
  const problems: string[] = [];
  const ref = spec.scaleTargetRef as FederatedHPA["spec"]["scaleTargetRef"] | undefined;
  if (!ref?.kind) problems.push(required("spec.scaleTargetRef.kind", ""));
  if (!ref?.name) problems.push(required("spec.scaleTargetRef.name", ""));
  if (spec.minReplicas !== undefined && spec.minReplicas < 1) problems.push(invalid("spec.minReplicas", spec.minReplicas, "must be greater than or equal to 1"));
  if (!(spec.maxReplicas >= 1)) problems.push(invalid("spec.maxReplicas", spec.maxReplicas, "must be greater than 0"));
  if (spec.minReplicas !== undefined && spec.maxReplicas < spec.minReplicas) problems.push(invalid("spec.maxReplicas", spec.maxReplicas, "must be greater than or equal to `minReplicas`"));
  for (const [i, m] of (spec.metrics ?? []).entries()) problems.push(...metricProblems(`spec.metrics[${i}]`, m));
  return problems;
}

function ruleReplicaProblems(path: string, rule: CronFederatedHPARule, targetKind: string, scalesFederatedHPA: boolean, byKarmadaGroup: boolean): string[] {
  const problems: string[] = [];
  // Before issue 39 a FederatedHPA named by Karmada's group was a workload, its rules took targetReplicas:
  // such a rule is judged as it was then (never refused once accepted; its min and max were unused) and
  // fails at its time (cron-rules.ts unstartableRules).
  const acceptedBefore = byKarmadaGroup && rule.targetReplicas !== undefined;
  if (scalesFederatedHPA && !acceptedBefore) {
    const { targetMinReplicas: min, targetMaxReplicas: max } = rule;
    if (min === undefined && max === undefined) problems.push(invalid(`${path}.targetMaxReplicas`, "", "targetMinReplicas and targetMaxReplicas cannot both be absent when the target is a FederatedHPA"));
    if (min !== undefined && min <= 0) problems.push(invalid(`${path}.targetMinReplicas`, min, "targetMinReplicas should be larger than 0"));
    if (max !== undefined && max <= 0) problems.push(invalid(`${path}.targetMaxReplicas`, max, "targetMaxReplicas should be larger than 0"));
    if (min !== undefined && max !== undefined && min > max) problems.push(invalid(`${path}.targetMinReplicas`, min, "targetMaxReplicas should be larger than or equal to targetMinReplicas"));
    return problems;
  }
  // As Karmada: targetMinReplicas/targetMaxReplicas on a workload's rule are not refused, only unused.
  if (rule.targetReplicas === undefined) problems.push(invalid(`${path}.targetReplicas`, "", `targetReplicas cannot be absent when the target is a ${targetKind}`));
  else if (rule.targetReplicas < 0) problems.push(invalid(`${path}.targetReplicas`, rule.targetReplicas, "targetReplicas should be larger than or equal to 0 (0 scales the workload to nothing)"));
  return problems;
}

/** Why a CronFederatedHPA is refused; empty when it is not. */
export function validateCronFederatedHPA(cron: CronFederatedHPA): string[] {
  const spec = cron.spec;
  if (typeof spec !== "object" || spec === null) return [required("spec", "a CronFederatedHPA needs a spec")];
  const ref = (spec.scaleTargetRef ?? {}) as Partial<CronFederatedHPA["spec"]["scaleTargetRef"]>;
  const scalesFederatedHPA = targetsFederatedHpa(ref);
  if (ref.apiVersion === API_VERSION && ref.kind !== FEDERATED_HPA_KIND) {
    return [invalid("spec.scaleTargetRef.kind", ref.kind, `invalid scaleTargetRef kind: ${ref.kind ?? ""}, only ${FEDERATED_HPA_KIND} is supported in ${API_VERSION}`)];
  }
  const problems: string[] = [];
  if (!ref.kind) problems.push(required("spec.scaleTargetRef.kind", ""));
  if (!ref.name) problems.push(required("spec.scaleTargetRef.name", ""));
  const seen = new Set<string>();
  for (const [i, rule] of (spec.rules ?? []).entries()) {
    const path = `spec.rules[${i}]`;
    if (seen.has(rule.name)) problems.push(`${path}.name: Duplicate value: ${JSON.stringify(rule.name)}`);
    seen.add(rule.name);
    const schedule = parseSchedule(String(rule.schedule ?? ""));
    if (schedule instanceof Error) problems.push(invalid(`${path}.schedule`, rule.schedule, `invalid cron format: ${schedule.message}`));
    const zoneProblem = rule.timeZone === undefined ? undefined : timeZoneError(rule.timeZone);
    if (zoneProblem !== undefined) problems.push(invalid(`${path}.timeZone`, rule.timeZone, zoneProblem));
    problems.push(...ruleReplicaProblems(path, rule, ref.kind ?? "", scalesFederatedHPA, ref.apiVersion !== API_VERSION));
  }
  return problems;
}
