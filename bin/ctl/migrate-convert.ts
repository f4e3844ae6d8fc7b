// `flotillactl migrate karmada`, the conversion (issue 26): Karmada's policies, customizations and
// resource templates as Flotilla's objects, and per object what could not be carried over and why.
// Pure: the CLI shell (migrate-karmada.ts) reads Karmada's apiserver and writes the control cluster.
import { ADOPT_ANNOTATION, ADOPT_KARMADA } from "../../agent/apply/adoption.ts";
import { UNACTED_FIELDS, type UnactedField, unactedFields } from "../../control-plane/scheduling/unacted-fields.ts";
import { cleanTemplate } from "../../control-plane/rendering/clean-template.ts";
import type { KubeObject, PropagationPolicy, ResourceSelector } from "../../shared/api/types.ts";
import { matchesLabelSelector } from "../../shared/label-selector.ts";

export const FLOTILLA_API_VERSION = "flotilla.dev/v1alpha1";

/** The Karmada kinds the migration converts: where Karmada serves them, their plural (the same in Flotilla's group). */
export const KARMADA_KINDS = [
  { apiVersion: "config.karmada.io/v1alpha1", kind: "ResourceInterpreterCustomization", plural: "resourceinterpretercustomizations", namespaced: false },
  { apiVersion: "policy.karmada.io/v1alpha1", kind: "ClusterOverridePolicy", plural: "clusteroverridepolicies", namespaced: false },
  { apiVersion: "policy.karmada.io/v1alpha1", kind: "OverridePolicy", plural: "overridepolicies", namespaced: true },
  { apiVersion: "policy.karmada.io/v1alpha1", kind: "ClusterPropagationPolicy", plural: "clusterpropagationpolicies", namespaced: false },
  { apiVersion: "policy.karmada.io/v1alpha1", kind: "PropagationPolicy", plural: "propagationpolicies", namespaced: true },
] as const;

/** One object of the migration: what it comes from, what it becomes (absent: nothing is written), and its problems. */
export interface MigrationItem {
  source: { apiVersion: string; kind: string; namespace?: string; name: string };
  object?: KubeObject;
  problems: string[];
  /**
   * A placing policy that selects no cluster: written only where none exists yet, never over one
   * (an input missing a file must not empty a placement that runs; migration-run.ts).
   */
  placesNowhere?: true;
}

/** The part of an OpenAPI v3 schema the pruning reads. */
export interface Schema {
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
}

const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";
const DEFAULT_SCHEDULER = "default-scheduler";

/** Why Flotilla lacks a field, for the ones Karmada users meet most; others get the general reason. */
const MISSING_REASONS: readonly [prefix: string, reason: string][] = [
  ["spec.suspension.scheduling", "suspending scheduling is not in Flotilla"],
];

/** Whether a label or annotation key is one Karmada sets (its domain is karmada.io or a subdomain). */
export function isKarmadaKey(key: string): boolean {
  const slash = key.indexOf("/");
  if (slash < 0) return false;
  const domain = key.slice(0, slash);
  return domain === "karmada.io" || domain.endsWith(".karmada.io");
}

/**
 * name, namespace, and the user's labels and annotations: what the apiserver, kubectl or the system
 * migrated from (`systemKey`: Karmada's by default) set is dropped.
 */
export function cleanMetadata(meta: KubeObject["metadata"], namespaced: boolean, systemKey: (key: string) => boolean = isKarmadaKey): KubeObject["metadata"] {
  const keep = (m: Record<string, string> | undefined) => {
    const entries = Object.entries(m ?? {}).filter(([k]) => !systemKey(k) && k !== LAST_APPLIED);
    return entries.length === 0 ? undefined : Object.fromEntries(entries);
  };
  const labels = keep(meta.labels);
  const annotations = keep(meta.annotations);
  return {
    name: meta.name ?? "",
    ...(namespaced && meta.namespace !== undefined ? { namespace: meta.namespace } : {}),
    ...(labels === undefined ? {} : { labels }),
    ...(annotations === undefined ? {} : { annotations }),
  };
}

/**
 * `value` with what `schema` does not hold removed, as the apiserver's pruning would; each removed
 * field's path (Karmada's field-table form: `spec.a.b`, `[]` for list items) is pushed to `dropped`.
 */
export function pruneToSchema(value: unknown, schema: Schema | undefined, path: string, dropped: string[]): unknown {
  if (schema === undefined || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => pruneToSchema(v, schema.items, `${path}[]`, dropped));
  const props = schema.properties;
  const extra = typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined;
  if (props === undefined && extra === undefined) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const sub = props?.[k] ?? extra;
    if (sub !== undefined) out[k] = pruneToSchema(v, sub, `${path}.${k}`, dropped);
    else if (schema["x-kubernetes-preserve-unknown-fields"] === true || schema.additionalProperties === true) out[k] = v;
    else dropped.push(`${path}.${k}`);
  }
  return out;
}

function missingReason(path: string): string {
  return MISSING_REASONS.find(([prefix]) => path === prefix || path.startsWith(`${prefix}.`))?.[1] ?? "Flotilla's CRD has no such field";
}

/** The source reference of a Karmada object. */
export function sourceOf(o: KubeObject): MigrationItem["source"] {
  return { apiVersion: o.apiVersion, kind: o.kind, ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}), name: o.metadata.name ?? "" };
}

/**
 * A Karmada policy or customization as Flotilla's: the same kind and spec in flotilla.dev/v1alpha1,
 * with what Flotilla's schema (`specSchema`, its CRD's spec) lacks dropped and reported, and what it
 * stores without acting on, or reads otherwise, reported beside it.
 */
export function convertPolicy(o: KubeObject, specSchema: Schema | undefined, namespaced: boolean, unacted: readonly UnactedField[] = UNACTED_FIELDS): MigrationItem {
  const problems: string[] = [];
  const dropped: string[] = [];
  const spec = pruneToSchema(o.spec ?? {}, specSchema, "spec", dropped);
  for (const path of dropped) problems.push(`${path}: not carried over: ${missingReason(path)}`);
  const object: KubeObject = { apiVersion: FLOTILLA_API_VERSION, kind: o.kind, metadata: cleanMetadata(o.metadata, namespaced), spec };
  if (o.kind === "PropagationPolicy" || o.kind === "ClusterPropagationPolicy") problems.push(...propagationProblems(object as PropagationPolicy, unacted));
  return { source: sourceOf(o), object, problems };
}

function propagationProblems(p: PropagationPolicy, unacted: readonly UnactedField[]): string[] {
  const problems: string[] = [];
  const scheduler = (p.spec as { schedulerName?: string }).schedulerName;
  if (scheduler !== undefined && scheduler !== "" && scheduler !== DEFAULT_SCHEDULER) {
    problems.push(`spec.schedulerName: ${JSON.stringify(scheduler)}: Flotilla has one scheduler (${DEFAULT_SCHEDULER}); its templates stay unscheduled (SchedulerNameNotServed) until the policy names ${DEFAULT_SCHEDULER}`);
  }
  for (const path of unactedFields(p, unacted)) problems.push(`${path}: carried over, but Flotilla does not act on it yet (PolicyFieldsSupported=False on its bindings)`);
  return problems;
}

/**
 * A resource template as Flotilla's control cluster should hold it: cleaned as kubectl's export and
 * the control plane's dispatch would clean it, without Karmada's labels and annotations, and marked
 * so that each member's agent adopts the object Karmada's agent applied there (agent/apply/adoption.ts).
 */
export function convertTemplate(o: KubeObject, namespaced: boolean): MigrationItem {
  const cleaned = cleanTemplate(o);
  const metadata = cleanMetadata({ ...cleaned.metadata, namespace: o.metadata.namespace }, namespaced);
  const object: KubeObject = { ...cleaned, metadata: { ...metadata, annotations: { ...metadata.annotations, [ADOPT_ANNOTATION]: ADOPT_KARMADA } } };
  return { source: sourceOf(o), object, problems: [] };
}

/** Whether a policy's resource selector picks the template (a namespaced policy selects in its own namespace only). */
export function selects(selector: ResourceSelector, template: KubeObject, policyNamespace: string | undefined): boolean {
  if (selector.apiVersion !== template.apiVersion || selector.kind !== template.kind) return false;
  const namespace = policyNamespace ?? selector.namespace;
  if (namespace !== undefined && namespace !== "" && (template.metadata.namespace ?? "") !== namespace) return false;
  if (selector.name !== undefined && selector.name !== "" && selector.name !== template.metadata.name) return false;
  return matchesLabelSelector(selector.labelSelector, template.metadata.labels);
}

/** The problem item for a Karmada Cluster that Flotilla cannot take over as it is (push mode), or undefined. */
export function clusterProblem(c: KubeObject): MigrationItem | undefined {
  const mode = (c.spec as { syncMode?: string } | undefined)?.syncMode;
  if (mode !== "Push") return undefined;
  return { source: sourceOf(c), problems: [`push-mode cluster: Flotilla has no push mode; install a Flotilla agent in ${c.metadata.name ?? ""} (a pull-mode member registering as ${c.metadata.name ?? ""}) before its workloads can be adopted`] };
}

/** The problem item for a ResourceInterpreterWebhookConfiguration: Flotilla has no webhook interpreters. */
export function webhookProblem(w: KubeObject): MigrationItem {
  return { source: sourceOf(w), problems: ["webhook interpreters are not in Flotilla: write the operations as a ResourceInterpreterCustomization (Lua) instead"] };
}

/** The order objects are written in: namespaces, customizations and overrides before the templates, the placing policies last. */
export function applyRank(kind: string): number {
  const ranks: Record<string, number> = { Namespace: 0, CustomResourceDefinition: 1, ResourceInterpreterCustomization: 2, ClusterOverridePolicy: 3, OverridePolicy: 3, ClusterPropagationPolicy: 5, PropagationPolicy: 5 };
  return ranks[kind] ?? 4;
}

/** The namespaces the converted objects need in the control cluster, as objects to create first. */
export function namespacesFor(items: readonly MigrationItem[]): KubeObject[] {
  const have = new Set(items.filter((i) => i.object?.kind === "Namespace" && i.object.apiVersion === "v1").map((i) => i.object?.metadata.name));
  const names = new Set(items.flatMap((i) => (i.object?.metadata.namespace ? [i.object.metadata.namespace] : [])));
  return [...names].filter((n) => !have.has(n)).sort().map((name) => ({ apiVersion: "v1", kind: "Namespace", metadata: { name } }));
}

/** The migration's items in the order they are written: the namespaces they need first, the placing policies last. */
export function inWriteOrder(items: readonly MigrationItem[]): MigrationItem[] {
  const namespaces = namespacesFor(items).map((object) => ({ source: sourceOf(object), object, problems: [] }));
  return [...namespaces, ...items].sort((a, b) => applyRank(a.object?.kind ?? "") - applyRank(b.object?.kind ?? ""));
}
