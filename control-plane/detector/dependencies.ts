// What a parent template (under a propagateDeps policy) needs in its members, so it can follow the
// parent there, as Karmada's dependencies distributor does. One source: the kind's interpreter's
// InterpretDependency (a ResourceInterpreterCustomization's GetDependencies first, then the native
// one, which reads pod templates: shared/interpreter/native/pod-template.ts). A reference names one
// object, or every object of its kind in its namespace whose labels match its selector. Pure.
import type { BindingSnapshot, KubeObject, LabelSelector } from "../../shared/api/types.ts";
import { type DependentObjectReference, InterpreterError, type KindInterpreter } from "../../shared/interpreter/interpreter.ts";
import { matchesLabelSelector } from "../../shared/label-selector.ts";
import { templateKey } from "../../shared/work-key.ts";

/** A kind by apiVersion and kind. */
interface KindRef {
  apiVersion: string;
  kind: string;
}

/** A parent's references, or why its interpreter could not give them (the operation and the script's message). */
export type InterpretedDependencies = { refs: DependentObjectReference[] } | { interpreterFailed: string };

/**
 * The parent's dependency references. Only references in the parent's own namespace count (a
 * dependency's binding is found from the bindings of its namespace, as Karmada lists attached
 * bindings in the parent's); a cluster-scoped parent has none. A reference with neither a name
 * nor a selector names nothing. A failing script is an answer (InterpreterError); anything else
 * thrown is a programming error and propagates.
 */
export function interpretDependencies(parent: KubeObject, interpreter: KindInterpreter | undefined): InterpretedDependencies {
  const meta: unknown = parent.metadata;
  const namespace = isRecord(meta) ? meta.namespace : undefined;
  const getDependencies = interpreter?.getDependencies;
  if (typeof namespace !== "string" || namespace === "" || getDependencies === undefined) return { refs: [] };
  let refs: DependentObjectReference[];
  try {
    refs = getDependencies(parent);
  } catch (err) {
    if (err instanceof InterpreterError) return { interpreterFailed: err.message };
    throw err;
  }
  return { refs: refs.filter((r) => r.namespace === namespace && ((r.name ?? "") !== "" || r.labelSelector !== undefined)) };
}

/** Whether a reference names the object: by name, or (without one) by a selector its labels match. */
export function refersTo(ref: DependentObjectReference, obj: KubeObject): boolean {
  if (ref.apiVersion !== obj.apiVersion || ref.kind !== obj.kind || ref.namespace !== (obj.metadata.namespace ?? "")) return false;
  if ((ref.name ?? "") !== "") return ref.name === obj.metadata.name;
  return ref.labelSelector !== undefined && matchesLabelSelector(ref.labelSelector as LabelSelector, obj.metadata.labels);
}

/**
 * Whether a parent requires an object. `settled`: its references are its interpreter's answer for
 * the parent as it is now. When they are not (its script failed, or its kind has not listed), it
 * keeps requiring what its binding was already required by (`requiredBefore`): a fault never
 * releases a dependency (DESIGN §11), and adds none either.
 */
export function parentRequires(parent: { refs: readonly DependentObjectReference[]; settled: boolean }, obj: KubeObject, requiredBefore: boolean): boolean {
  if (parent.refs.some((r) => refersTo(r, obj))) return true;
  return !parent.settled && requiredBefore;
}

/** A parent's binding as a dependency's requirement reads it. */
export interface ParentBinding {
  name: string;
  propagateDeps: boolean;
  /** Where the parent is placed now. */
  clusters: readonly string[];
}

/**
 * Which clusters a parent's binding requires a dependency in, or undefined for none. `requires`:
 * the parent refers to it (parentRequires); `before`: the parent's entry in the dependency's
 * binding, if it had one. Under propagateDeps: wherever the parent is placed. Without it (its
 * policy changed to one that does not propagate dependencies) the parent only holds, issue 37: the
 * dependency stays in the clusters it had it in and is still placed in, because the workload
 * running there may mount it; it goes nowhere new, and goes where the parent goes.
 */
export function requiredClusters(parent: ParentBinding, before: BindingSnapshot | undefined, requires: boolean): string[] | undefined {
  if (!requires) return undefined;
  if (parent.propagateDeps) return [...parent.clusters];
  if (before === undefined) return undefined;
  const held = parent.clusters.filter((c) => before.clusters?.includes(c) === true);
  return held.length > 0 ? held : undefined;
}

/**
 * The template keys of the objects the references name, sorted: a name as it is (it need not
 * exist yet), a selector as the objects of its kind in its namespace that match (`list`, a cache).
 */
export function resolveDependencies(refs: readonly DependentObjectReference[], list: (kind: KindRef, namespace: string) => readonly KubeObject[]): string[] {
  const keys = new Set<string>();
  for (const r of refs) {
    if ((r.name ?? "") !== "") keys.add(templateKey({ apiVersion: r.apiVersion, kind: r.kind, metadata: { name: r.name, namespace: r.namespace } }));
    else for (const o of list(r, r.namespace)) if (refersTo(r, o)) keys.add(templateKey(o));
  }
  return [...keys].sort();
}

/** The kinds the references name, once each. */
export function referencedKinds(refs: readonly DependentObjectReference[]): KindRef[] {
  const kinds = new Map<string, KindRef>();
  for (const r of refs) kinds.set(`${r.apiVersion}|${r.kind}`, { apiVersion: r.apiVersion, kind: r.kind });
  return [...kinds.values()];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
