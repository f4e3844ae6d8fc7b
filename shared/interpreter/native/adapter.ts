// Today's callers' questions answered through the native interpreters, for wiring them without
// changing their meaning where Karmada agrees: replicas for scheduling, a member's copy for
// rendering, the template's summed status, dependencies, and the member's health word. Kinds
// without a native interpreter keep today's behaviour (spec.replicas read and set as is). Pure.
import type { AggregatedStatusItem, KubeObject } from "../../api/types.ts";
import { anotherObject, InterpreterError, type KindInterpreter, type ReplicaRequirements, type StatusItem } from "../interpreter.ts";
import { divideJobCompletions, type JobTarget, reviseJobCompletions } from "./batch.ts";
import { nativeInterpreterFor } from "./index.ts";
import { at, copy, isRecord } from "./object.ts";

/**
 * The template's replicas and what each needs, for scheduling and division; undefined when the
 * kind has none to divide. A kind with a native interpreter answers as Karmada (a Job: its
 * parallelism capped by completions; a DaemonSet: none); any other kind keeps today's reading,
 * a numeric spec.replicas. `interpreter`: the kind's (a customization's operations over the
 * native ones; default the native one).
 */
export function replicasOf(template: KubeObject, interpreter = nativeInterpreterFor(template)): { replicas: number; requires?: ReplicaRequirements } | undefined {
  if (interpreter?.getReplicas !== undefined) return interpreter.getReplicas(template);
  if (nativeInterpreterFor(template) !== undefined) return undefined;
  const replicas = at(template, "spec", "replicas");
  return typeof replicas === "number" ? { replicas } : undefined;
}

/**
 * A member's copy of the template with its share of the replicas (and, for a Divided Job with
 * completions, its share of those: see jobCompletionsFor). Kinds without a native interpreter keep
 * today's rendering: spec.replicas set only when the template has it. A ReviseReplica that returns
 * another object (another apiVersion, kind, name or namespace) fails (InterpreterError), as a
 * failing script does: the Work would otherwise apply, and later prune, an object no template names
 * (issue 37).
 */
export function reviseForMember(template: KubeObject, replicas: number, completions?: number, interpreter: KindInterpreter | undefined = nativeInterpreterFor(template)): KubeObject {
  let out: KubeObject;
  if (interpreter?.reviseReplica !== undefined) {
    out = interpreter.reviseReplica(template, replicas);
    const problem = anotherObject(template, out);
    if (problem !== undefined) throw new InterpreterError("ReviseReplica", problem);
  } else if (nativeInterpreterFor(template) !== undefined) out = copy(template);
  else {
    out = copy(template);
    if (isRecord(out.spec) && typeof out.spec.replicas === "number") out.spec.replicas = replicas;
  }
  return completions === undefined ? out : reviseJobCompletions(out, completions);
}

/**
 * Each member's completions for a Job placed Divided (Karmada does this only when the binding's
 * replicas are above 0 and the placement is Divided); undefined for any other kind or a Job
 * without completions.
 */
export function jobCompletionsFor(template: KubeObject, targets: readonly JobTarget[]): Map<string, number> | undefined {
  if (template.apiVersion !== "batch/v1" || template.kind !== "Job") return undefined;
  return divideJobCompletions(template, targets);
}

/** The binding's aggregated status entries as AggregateStatus takes them. */
export function statusItemsOf(entries: readonly AggregatedStatusItem[]): StatusItem[] {
  return entries.map((e) => {
    const out: StatusItem = { clusterName: e.clusterName };
    if (e.status !== undefined) out.status = e.status;
    if (e.applied !== undefined) out.applied = e.applied;
    if (e.message !== undefined && e.message !== "") out.appliedMessage = e.message;
    // Karmada's health is a boolean: a member still progressing is not healthy.
    if (e.health === "Healthy") out.health = "Healthy";
    else if (e.health === "Unhealthy" || e.health === "Progressing") out.health = "Unhealthy";
    else if (e.health !== undefined) out.health = "Unknown";
    return out;
  });
}

/** The template's `.status` summed over its members, or undefined when the kind has no native sum. */
export function aggregatedStatusOf(template: KubeObject, items: readonly StatusItem[], interpreter: KindInterpreter | undefined = nativeInterpreterFor(template)): Record<string, unknown> | undefined {
  const aggregate = interpreter?.aggregateStatus;
  if (aggregate === undefined) return undefined;
  const status = aggregate(template, items).status;
  return isRecord(status) ? status : {};
}

