// The desired ResourceBinding of a template: pure, so every replica computes the same object.
import type { Component, KindInterpreter } from "../../shared/interpreter/interpreter.ts";
import { replicasOf } from "../../shared/interpreter/native/adapter.ts";
import {
  API_VERSION,
  type BindingComponent,
  type BindingSnapshot,
  type Cluster,
  type ConflictResolution,
  type GracefulEvictionTask,
  type ReplicaMove,
  type KubeObject,
  LABELS,
  type OwnerReference,
  type PropagationPolicy,
  type PropagationSpec,
  type ResourceBinding,
  type ResourceBindingSpec,
  type TargetCluster,
} from "../../shared/api/types.ts";
import { canonicalJson, contentHash } from "../../shared/content-hash.ts";
import { apiGroup } from "../../shared/work-key.ts";
import { canonicalFailover } from "./purge-mode.ts";

/** Holds a binding until every agent has confirmed the removal of its objects. */
export const BINDING_FINALIZER = "flotilla.dev/binding-cleanup";

/** The object a binding is named for: a template's group (from apiVersion), kind and name. */
export interface BindingNameRef {
  apiVersion: string;
  kind: string;
  name: string;
}

/** Kubernetes' limit on an object name (a DNS subdomain). */
const MAX_NAME = 253;

/**
 * Deterministic binding name, keyed by group, kind and name (the namespace is the binding's own).
 * Templates of the groups without a dot (core, apps, batch, autoscaling, policy: Kubernetes' own,
 * which no CRD can use and whose served kinds are distinct) keep Karmada's `<name>-<kind>`, so a
 * Deployment's binding is `web-deployment` as in Karmada. Any other group adds a digest of the
 * group: `Widget/web` in alpha.example and in beta.example get two bindings, never one. A name
 * that would pass 253 characters is cut and ends with a digest of the whole key.
 */
export function bindingName(ref: BindingNameRef): string {
  const group = apiGroup(ref.apiVersion);
  const base = `${ref.name}-${ref.kind.toLowerCase()}`;
  const name = group.includes(".") ? `${base}-${digest(group, 8)}` : base;
  if (name.length <= MAX_NAME) return name;
  return `${name.slice(0, MAX_NAME - 17).replace(/[-.]+$/, "")}-${digest(`${group}/${ref.kind}/${ref.name}`, 16)}`;
}

/** The name earlier versions gave every binding, `<name>-<kind>` whatever the group: bindings still so named are moved. */
export function legacyBindingName(ref: { kind: string; name: string }): string {
  return `${ref.name}-${ref.kind.toLowerCase()}`;
}

/**
 * Whether a binding is the one its template's key names today, for the object it says it binds:
 * false for a binding left under a legacy name (it is moved) or one whose name a template of
 * another group or kind would also give (it is not that template's).
 */
export function isCurrentBinding(b: ResourceBinding): boolean {
  return b.metadata.name === bindingName(b.spec.resource);
}

/** A binding as it is, under another name: what moving a legacy binding writes (its status follows from the agents). */
export function movedBinding(b: ResourceBinding, name: string): ResourceBinding {
  const m = b.metadata;
  const served = m.annotations?.[LABELS.rescheduleServed];
  // A placement never decided stays unknown in the copy: its clusters tell no member to remove anything.
  const unknown = m.annotations?.[LABELS.placementUnknown];
  const annotations = { ...(served === undefined ? {} : { [LABELS.rescheduleServed]: served }), ...(unknown === undefined ? {} : { [LABELS.placementUnknown]: unknown }) };
  return {
    apiVersion: b.apiVersion,
    kind: b.kind,
    metadata: {
      name,
      ...(m.namespace ? { namespace: m.namespace } : {}),
      labels: Object.fromEntries(Object.entries(m.labels ?? {}).filter(([k]) => k.startsWith("flotilla.dev/"))),
      // What its fresh reschedules served goes with it, or its trigger (copied in spec) would be served again.
      ...(Object.keys(annotations).length === 0 ? {} : { annotations }),
      finalizers: [BINDING_FINALIZER],
      ownerReferences: m.ownerReferences ?? [],
    },
    spec: b.spec,
  };
}

/** Whether a binding says it binds the object a ref names (same group, kind and name). */
export function bindsRef(b: ResourceBinding, ref: BindingNameRef): boolean {
  const r = b.spec.resource;
  return r.kind === ref.kind && r.name === ref.name && apiGroup(r.apiVersion) === apiGroup(ref.apiVersion);
}

function digest(s: string, hexChars: number): string {
  return contentHash(s).slice(0, hexChars);
}

/**
 * The replicas a workload template asks for, as its interpreter reads them (a Job: its parallelism;
 * a DaemonSet: none; a kind without an interpreter: a numeric spec.replicas), if it has any.
 */
export function templateReplicas(template: KubeObject, interpreter?: KindInterpreter): number | undefined {
  return (interpreter === undefined ? replicasOf(template) : replicasOf(template, interpreter))?.replicas;
}

/**
 * The components of a multi-template workload as its kind's interpreter reads them (Karmada's
 * GetComponents: a customization's componentResource script); none when the interpreter has no
 * such operation. Throws InterpreterError when the script fails.
 */
export function templateComponents(template: KubeObject, interpreter?: KindInterpreter): Component[] {
  return interpreter?.getComponents?.(template) ?? [];
}

/**
 * Whether a workload is placed as whole sets (Karmada's multi-template workload): two or more
 * components, which run together in one cluster and are never divided per replica. A single
 * component is recorded on the binding and the workload is scheduled per replica as before.
 */
export function placedAsSets(components: readonly Component[]): boolean {
  return components.length > 1;
}

/**
 * The binding a template should have under a policy, given its scheduled targets. A dependency
 * (propagateDeps) has `requiredBy`, the bindings that need it: it also goes to all their clusters,
 * and without a policy of its own it is placed whole with their conflict resolution.
 */
export function desiredBinding(
  template: KubeObject,
  policy: PropagationPolicy | undefined,
  scheduled: TargetCluster[],
  requiredBy: RequiredBy[] = [],
  evictions: GracefulEvictionTask[] = [],
  interpreter?: KindInterpreter,
  moves: ReplicaMove[] = [],
): ResourceBinding {
  const namespaced = template.metadata.namespace !== undefined && template.metadata.namespace !== "";
  const replicas = templateReplicas(template, interpreter);
  const components = templateComponents(template, interpreter);
  // A multi-component workload goes whole to each cluster: no replica count to revise.
  const perCluster = placedAsSets(components) ? undefined : replicas;
  const byName = new Map(scheduled.map((t) => [t.name, t]));
  for (const r of requiredBy) for (const c of r.clusters ?? []) if (!byName.has(c)) byName.set(c, perCluster === undefined ? { name: c } : { name: c, replicas: perCluster });
  const targets: TargetCluster[] = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const labels: Record<string, string> = {};
  if (policy !== undefined) labels[LABELS.policyName] = policy.metadata.name ?? "";
  if (policy?.metadata.namespace) labels[LABELS.policyNamespace] = policy.metadata.namespace;
  const spec: PropagationSpec = policy?.spec ?? { resourceSelectors: [], conflictResolution: requiredBy.every((r) => r.conflictResolution === "Overwrite") ? "Overwrite" : "Abort" };
  const needs: BindingSnapshot[] = [...requiredBy]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((r) => ({ name: r.name, clusters: [...(r.clusters ?? [])].sort(), ...(r.resource === undefined ? {} : { resource: templateRef(r.resource) }) }));
  return {
    apiVersion: API_VERSION,
    kind: namespaced ? "ResourceBinding" : "ClusterResourceBinding",
    metadata: {
      name: bindingName({ apiVersion: template.apiVersion, name: template.metadata.name ?? "", kind: template.kind }),
      ...(namespaced ? { namespace: template.metadata.namespace } : {}),
      labels,
      finalizers: [BINDING_FINALIZER],
      ownerReferences: [controllerReference(template)],
    },
    spec: {
      resource: {
        apiVersion: template.apiVersion,
        kind: template.kind,
        ...(namespaced ? { namespace: template.metadata.namespace } : {}),
        name: template.metadata.name ?? "",
        uid: template.metadata.uid ?? "",
      },
      ...(replicas === undefined ? {} : { replicas }),
      ...(components.length > 0 ? { components: components.map(bindingComponent) } : {}),
      clusters: targets,
      ...(spec.placement && Object.keys(withoutEmptyMaps(spec.placement)).length > 0 ? { placement: withoutEmptyMaps(spec.placement) } : {}),
      conflictResolution: spec.conflictResolution ?? "Abort",
      ...(spec.failover !== undefined ? { failover: canonicalFailover(spec.failover) } : {}),
      ...(spec.suspension ? { suspension: spec.suspension } : {}),
      ...(spec.propagateDeps === true ? { propagateDeps: true } : {}),
      ...(spec.preserveResourcesOnDeletion === true ? { preserveResourcesOnDeletion: true } : {}),
      ...(needs.length > 0 ? { requiredBy: needs } : {}),
      ...(evictions.length > 0 ? { gracefulEvictionTasks: evictions } : {}),
      ...(moves.length > 0 ? { replicaMoves: moves } : {}),
      // `rollout: {}` asks for a rollout with every default: the binding names onFailure, so it is never an empty map.
      ...(spec.rollout !== undefined ? { rollout: { onFailure: "Pause", ...withoutEmptyMaps(spec.rollout) } } : {}),
    },
  };
}

// A component as the binding records it: Karmada's ComponentRequirements, empty fields left out.
function bindingComponent(c: Component): BindingComponent {
  const requirements = c.replicaRequirements === undefined ? undefined : withoutEmptyMaps(c.replicaRequirements);
  return { name: c.name, replicas: c.replicas, ...(requirements !== undefined && Object.keys(requirements).length > 0 ? { replicaRequirements: requirements } : {}) };
}

/**
 * The object without map fields that are empty (at any depth, outside lists): `{}` there says
 * what leaving the field out says, and server-side apply turns a map emptied of this manager's
 * fields into null, which the schema refuses (a policy edited from weightPreference.dynamicWeight
 * to weightPreference: {} would leave its binding unwritable). List items are kept as they are:
 * lists are replaced whole, and `targetCluster: {}` in one means every cluster.
 */
export function withoutEmptyMaps<T extends object>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (v !== null && typeof v === "object" && !Array.isArray(v)) {
      const inner = withoutEmptyMaps(v as object);
      if (Object.keys(inner).length > 0) out[k] = inner;
    } else if (v !== undefined) {
      out[k] = v;
    }
  }
  return out as T;
}

/** A binding that needs a dependency: its name, clusters and conflict resolution. */
export interface RequiredBy extends BindingSnapshot {
  conflictResolution?: ConflictResolution;
}

/** Whether dispatching to a cluster is suspended (the policy's suspension, copied to the binding). */
export function dispatchSuspended(spec: ResourceBindingSpec, cluster: string): boolean {
  return spec.suspension?.dispatching === true || (spec.suspension?.dispatchingOnClusters?.clusterNames ?? []).includes(cluster);
}

/**
 * Whether suspension holds a cluster's Work as it is (the cluster keeps what it has and is not
 * told to delete it). A cluster that is leaving (unjoined, or gone) is never held: its agent must
 * remove what Flotilla applied for the unjoin to finish.
 */
export function suspensionHolds(spec: ResourceBindingSpec, cluster: Cluster | undefined): boolean {
  return cluster !== undefined && cluster.metadata.deletionTimestamp === undefined && dispatchSuspended(spec, cluster.metadata.name ?? "");
}

/**
 * Whether an existing binding already says what desired says (then no write is needed). Its
 * spec.rescheduleTriggeredAt is another field manager's (the rebalancer's) and never desired.
 */
export function bindingUpToDate(existing: ResourceBinding, desired: ResourceBinding): boolean {
  const pick = (b: ResourceBinding) => ({
    labels: Object.fromEntries(Object.entries(b.metadata.labels ?? {}).filter(([k]) => k.startsWith("flotilla.dev/"))),
    finalizer: (b.metadata.finalizers ?? []).includes(BINDING_FINALIZER),
    owner: (b.metadata.ownerReferences ?? []).map((o) => o.uid),
    served: b.metadata.annotations?.[LABELS.rescheduleServed] ?? "",
    stamp: b.metadata.annotations?.[LABELS.templateStamp] ?? "",
    requires: b.metadata.annotations?.[LABELS.requires] ?? "",
    unknown: b.metadata.annotations?.[LABELS.placementUnknown] ?? "",
    spec: { ...b.spec, rescheduleTriggeredAt: undefined },
  });
  return canonicalJson(pick(existing)) === canonicalJson(pick(desired));
}

/**
 * The owner reference that makes `owner` the controller of what carries it: the control cluster's
 * garbage collector deletes the object with its owner, and for no other reason.
 */
export function controllerReference(owner: KubeObject): OwnerReference {
  return { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name ?? "", uid: owner.metadata.uid ?? "", controller: true, blockOwnerDeletion: true };
}

/** A template's reference as a dependency's requiredBy entry names it: only its identifying fields, the namespace only when it has one. */
function templateRef(r: { apiVersion: string; kind: string; namespace?: string; name: string }): NonNullable<BindingSnapshot["resource"]> {
  return { apiVersion: r.apiVersion, kind: r.kind, ...(r.namespace ? { namespace: r.namespace } : {}), name: r.name };
}
