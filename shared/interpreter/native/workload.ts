// Pieces every pod-template workload's interpreter shares: replicas, revising a count field,
// dependencies of the pod template, and the counted status sums with Karmada's generation
// bookkeeping. Pure.
import type { KubeObject } from "../../api/types.ts";
import type { DependentObjectReference, ReplicaRequirements, StatusItem } from "../interpreter.ts";
import { InterpreterError } from "../interpreter.ts";
import { podDependencies, podReplicaRequirements } from "./pod-template.ts";
import { at, copy, int, isRecord, type Json, rec, str } from "./object.ts";

/**
 * The annotation Karmada stamps on every member object with the template generation it was
 * rendered from; the status sums count a member as current only when it carries the template's.
 */
export const TEMPLATE_GENERATION_ANNOTATION = "resourcetemplate.karmada.io/generation";

/** The namespace of an object ("" when cluster-scoped or unset). */
export function namespaceOf(obj: KubeObject): string {
  return obj.metadata.namespace ?? "";
}

/** A pod-template kind's replicas (`spec.<field>`, 0 when unset) and what each needs. */
export function templateReplicas(obj: KubeObject, field = "replicas"): { replicas: number; requires?: ReplicaRequirements } {
  const replicas = int(at(obj, "spec", field));
  const requires = podReplicaRequirements(rec(at(obj, "spec", "template", "spec")), namespaceOf(obj));
  return requires === undefined ? { replicas } : { replicas, requires };
}

/** The object with `spec.<field>` set to n, when the template has the field at all (Karmada's ApplyReplica). */
export function reviseSpecField(obj: KubeObject, field: string, n: number): KubeObject {
  const out = copy(obj);
  const spec = out.spec;
  if (!isRecord(spec) || spec[field] === undefined) return out;
  if (typeof spec[field] !== "number") throw new InterpreterError("ReviseReplica", `spec.${field} is not a number`);
  spec[field] = n;
  return out;
}

/** The dependencies of the pod template at `path`, in the object's namespace. */
export function templateDependencies(obj: KubeObject, ...path: string[]): DependentObjectReference[] {
  return podDependencies(rec(at(obj, ...path)), namespaceOf(obj));
}

/**
 * The chosen status counters of a member object, wrapped with its generation and the template
 * generation it was rendered from (Karmada's Wrapped<Kind>Status); absent counters are left out,
 * as Go's omitempty does. A malformed generation annotation is an error, as in Karmada; a missing
 * one reads as 0 (Karmada refuses it, but Flotilla's members may not carry it).
 */
export function wrappedStatus(observed: KubeObject, fields: readonly string[]): Json | undefined {
  if (!isRecord(observed.status)) return undefined;
  const status = observed.status;
  const out: Json = {};
  const generation = int(observed.metadata.generation);
  if (generation !== 0) out.generation = generation;
  const templateGeneration = templateGenerationOf(observed);
  if (templateGeneration !== 0) out.resourceTemplateGeneration = templateGeneration;
  for (const f of fields) if (int(status[f]) !== 0) out[f] = int(status[f]);
  return out;
}

function templateGenerationOf(observed: KubeObject): number {
  const raw = observed.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
  if (raw === undefined || raw === "") return 0;
  if (!/^[+-]?\d+$/.test(raw)) throw new InterpreterError("InterpretStatus", `annotation ${TEMPLATE_GENERATION_ANNOTATION} is not an integer: ${JSON.stringify(raw)}`);
  return Number(raw);
}

/** Which generation a member must have seen to count as current, per kind (Karmada's checks). */
export type CurrentCheck = (member: Json, template: KubeObject) => boolean;

/** The member observed its own generation and was rendered from the template's current one. */
export const observedTemplateGeneration: CurrentCheck = (member, template) =>
  int(member.observedGeneration) >= int(member.generation) &&
  int(member.resourceTemplateGeneration) >= int(template.metadata.generation);

/**
 * The template with each counter summed over the members' statuses and observedGeneration raised
 * to the template's generation once every member counts as current; the template's other status
 * fields are kept. Every counter is written, 0 included, so a merge patch also lowers it.
 */
export function sumCounters(obj: KubeObject, items: readonly StatusItem[], fields: readonly string[], current: CurrentCheck): KubeObject {
  const out = copy(obj);
  const old = rec(out.status);
  const sums: Json = Object.fromEntries(fields.map((f) => [f, 0]));
  let currentCount = 0;
  for (const item of items) {
    if (item.status === undefined) continue;
    if (current(item.status, obj)) currentCount++;
    for (const f of fields) sums[f] = int(sums[f]) + int(item.status[f]);
  }
  let observedGeneration = int(old.observedGeneration);
  if (currentCount === items.length) observedGeneration = int(obj.metadata.generation);
  const status: Json = { ...old, ...sums };
  if (observedGeneration !== 0 || "observedGeneration" in old) status.observedGeneration = observedGeneration;
  out.status = status;
  return out;
}

/** The retain-replicas label value that makes the member keep its own spec.replicas (Karmada's). */
export const RETAIN_REPLICAS_LABEL = "resourcetemplate.karmada.io/retain-replicas";

/** Desired with the member's spec.replicas kept, when the template carries the retain-replicas label. */
export function retainLabelledReplicas(desired: KubeObject, observed: KubeObject): KubeObject {
  const out = copy(desired);
  if (out.metadata.labels?.[RETAIN_REPLICAS_LABEL] !== "true") return out;
  const replicas = at(observed, "spec", "replicas");
  if (typeof replicas !== "number") {
    throw new InterpreterError("Retain", `failed to get spec.replicas from ${observed.kind} ${namespaceOf(observed)}/${str(observed.metadata.name)}`);
  }
  out.spec = { ...rec(out.spec), replicas };
  return out;
}
