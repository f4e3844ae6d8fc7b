// A script's results read as Go's json.Unmarshal reads them into Karmada's types: known fields
// kept, quantities canonical, dependencies sorted without duplicates. And status items going
// in, as Karmada's AggregatedStatusItem marshals.
import type { Component, DependentObjectReference, ReplicaRequirements, StatusItem } from "../interpreter.ts";
import { formatExactQuantity, parseExactQuantity } from "../../quantity.ts";
import type { JsonValue } from "./convert.ts";

/** Karmada's AggregatedStatusItem as JSON: empty and false fields left out. */
export function aggregatedStatusItem(item: StatusItem): Record<string, unknown> {
  const out: Record<string, unknown> = { clusterName: item.clusterName };
  if (item.status !== undefined) out.status = item.status;
  if (item.applied) out.applied = true;
  if (item.appliedMessage) out.appliedMessage = item.appliedMessage;
  if (item.health) out.health = item.health;
  return out;
}

type Json = { [k: string]: JsonValue };
const isObj = (v: JsonValue | undefined): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const strField = (o: Json, k: string, where: string): string | undefined => {
  const v = o[k];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw new Error(`json: cannot unmarshal ${typeof v} into Go struct field ${where}.${k} of type string`);
  return v;
};

/** requires as Go's json.Unmarshal into ReplicaRequirements would keep it: known fields, canonical quantities. */
export function replicaRequirements(v: JsonValue): ReplicaRequirements {
  if (!isObj(v)) throw new Error("json: cannot unmarshal array into Go value of type v1alpha2.ReplicaRequirements");
  const out: ReplicaRequirements = {};
  if (isObj(v.nodeClaim)) {
    const nc = v.nodeClaim;
    out.nodeClaim = {};
    if (isObj(nc.nodeSelector) && Object.keys(nc.nodeSelector).length > 0) out.nodeClaim.nodeSelector = nc.nodeSelector as Record<string, string>;
    if (Array.isArray(nc.tolerations) && nc.tolerations.length > 0) out.nodeClaim.tolerations = nc.tolerations as never;
    if (isObj(nc.hardNodeAffinity)) out.nodeClaim.hardNodeAffinity = nc.hardNodeAffinity;
  }
  if (isObj(v.resourceRequest)) {
    const rr: Record<string, string> = {};
    for (const [name, q] of Object.entries(v.resourceRequest)) {
      if (typeof q !== "string" && typeof q !== "number") throw new Error(`quantities must match the regular expression: ${name}`);
      rr[name] = formatExactQuantity(parseExactQuantity(String(q)));
    }
    if (Object.keys(rr).length > 0) out.resourceRequest = rr;
  }
  const ns = strField(v, "namespace", "ReplicaRequirements");
  if (ns) out.namespace = ns;
  const pc = strField(v, "priorityClassName", "ReplicaRequirements");
  if (pc) out.priorityClassName = pc;
  return out;
}

/** GetDependencies' result: DependentObjectReferences, sorted and without duplicates. */
export function dependencies(v: JsonValue): DependentObjectReference[] {
  if (!Array.isArray(v)) throw new Error("json: cannot unmarshal object into Go value of type []v1alpha1.DependentObjectReference");
  const refs = new Map<string, DependentObjectReference>();
  for (const item of v) {
    if (!isObj(item)) throw new Error("json: cannot unmarshal a non-object into Go value of type v1alpha1.DependentObjectReference");
    const ref: DependentObjectReference = {
      apiVersion: strField(item, "apiVersion", "DependentObjectReference") ?? "",
      kind: strField(item, "kind", "DependentObjectReference") ?? "",
      namespace: strField(item, "namespace", "DependentObjectReference") ?? "",
    };
    const name = strField(item, "name", "DependentObjectReference");
    if (name) ref.name = name;
    if (isObj(item.labelSelector)) ref.labelSelector = item.labelSelector as DependentObjectReference["labelSelector"];
    // Karmada's VerifyDependencies.
    if (ref.apiVersion === "") throw new Error("dependencies: missing required apiVersion");
    if (ref.kind === "") throw new Error("dependencies: missing required kind");
    if (!ref.name && !ref.labelSelector) throw new Error("dependencies: dependency can not leave name and labelSelector all empty");
    refs.set(JSON.stringify([ref.apiVersion, ref.kind, ref.namespace, ref.name ?? "", ref.labelSelector ?? null]), ref);
  }
  return [...refs.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
}

/** GetComponents' result as Karmada's []Component. */
export function componentList(v: JsonValue): Component[] {
  if (!Array.isArray(v)) throw new Error("json: cannot unmarshal object into Go value of type []v1alpha2.Component");
  return v.map((item) => {
    if (!isObj(item)) throw new Error("json: cannot unmarshal a non-object into Go value of type v1alpha2.Component");
    const replicas = item.replicas ?? 0;
    if (typeof replicas !== "number") throw new Error("json: cannot unmarshal into Go struct field Component.replicas of type int32");
    const c: Component = { name: strField(item, "name", "Component") ?? "", replicas: Math.trunc(replicas) };
    if (isObj(item.replicaRequirements)) c.replicaRequirements = replicaRequirements(item.replicaRequirements);
    return c;
  });
}
