// `flotillactl migrate kubefed`, the conversion (issue 39): KubeFed's Federated objects,
// FederatedNamespaces, ReplicaSchedulingPreferences and DNS records, and Federation v1's annotated
// objects, as Flotilla's templates and policies with KubeFed's semantics kept, and per object what
// could not be carried over and why. Pure: the CLI shell (migrate-kubefed.ts) reads the files or
// KubeFed's host cluster and writes the control cluster.
import { ADOPT_ANNOTATION, ADOPT_KUBEFED } from "../../agent/apply/adoption.ts";
import type { KubeObject, PlaintextOverrider, ReplicaSchedulingStrategy } from "../../shared/api/types.ts";
import { isFederationV1, V1_CLUSTER_SELECTOR, V1_REPLICA_PREFERENCES, v1Placement, v1ReplicaPreferences } from "./federation-v1.ts";
import { affinityOf, intersect, kubefedPlacement, NO_CLUSTERS, type Placement, replicaPlacement, type ReplicaPreferences } from "./kubefed-placement.ts";
import { currentVersion, targetOf, targetsOfTypeConfigs, type TargetType } from "./kubefed-targets.ts";
import { cleanMetadata, FLOTILLA_API_VERSION, type MigrationItem, sourceOf } from "./migrate-convert.ts";

export const KUBEFED_TYPES = "types.kubefed.io/v1beta1";
export const KUBEFED_SCHEDULING = "scheduling.kubefed.io/v1alpha1";
const KUBEFED_CORE_GROUP = "core.kubefed.io";
const KUBEFED_DNS = "multiclusterdns.kubefed.io/v1alpha1";
const FLOTILLA_DNS = "multiclusterdns.flotilla.dev/v1alpha1";
const REPLICA_KINDS = ["Deployment", "ReplicaSet"];

/** Whether a label or annotation key is one KubeFed sets (its domain is kubefed.io or a subdomain). */
export function isKubefedKey(key: string): boolean {
  const domain = key.includes("/") ? key.slice(0, key.indexOf("/")) : "";
  return domain === "kubefed.io" || domain.endsWith(".kubefed.io");
}

const groupOf = (apiVersion: string) => (apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "");
const nsName = (o: KubeObject) => `${o.metadata.namespace ?? ""}/${o.metadata.name ?? ""}`;

/** What the conversion reads besides the objects it converts. */
interface Context {
  targets: Map<string, TargetType>;
  /** Each FederatedNamespace's placement, by namespace. */
  namespaces: Map<string, Placement>;
  /** Each ReplicaSchedulingPreference, by `targetKind|namespace/name`. */
  preferences: Map<string, KubeObject>;
  /** The preferences some converted object used. */
  used: Set<KubeObject>;
}

/** Every object of the input as the migration's items: templates, policies, and what is not carried over and why. */
export function convertKubefed(objects: readonly KubeObject[]): MigrationItem[] {
  const ctx: Context = {
    targets: targetsOfTypeConfigs(objects.filter((o) => o.kind === "FederatedTypeConfig" && groupOf(o.apiVersion) === KUBEFED_CORE_GROUP)),
    namespaces: new Map(objects.filter((o) => o.apiVersion === KUBEFED_TYPES && o.kind === "FederatedNamespace").map((o) => [o.metadata.namespace ?? o.metadata.name ?? "", kubefedPlacement((o.spec as { placement?: unknown } | undefined)?.placement)])),
    preferences: new Map(objects.filter((o) => o.apiVersion === KUBEFED_SCHEDULING && o.kind === "ReplicaSchedulingPreference").map((o) => [`${(o.spec as { targetKind?: string } | undefined)?.targetKind ?? ""}|${nsName(o)}`, o])),
    used: new Set(),
  };
  const federatedNamespaces = new Set(ctx.namespaces.keys());
  const items: MigrationItem[] = [];
  for (const o of objects) {
    if (o.apiVersion === KUBEFED_TYPES && o.kind === "FederatedNamespace") items.push(...federatedNamespace(o));
    else if (o.apiVersion === KUBEFED_TYPES) items.push(...federated(o, ctx));
    else if (o.apiVersion === KUBEFED_SCHEDULING && o.kind === "ReplicaSchedulingPreference") continue;
    else if (groupOf(o.apiVersion) === KUBEFED_CORE_GROUP) items.push(notCarried(o, coreReason(o.kind)));
    else if (o.apiVersion === KUBEFED_DNS) items.push(dnsRecord(o));
    else if (isFederationV1(o.metadata.annotations)) items.push(...federationV1(o));
    else if (o.apiVersion === "v1" && o.kind === "Namespace") items.push(federatedNamespaces.has(o.metadata.name ?? "") ? notCarried(o, "its FederatedNamespace carries it") : { source: sourceOf(o), object: { apiVersion: "v1", kind: "Namespace", metadata: cleanMetadata(o.metadata, false, isKubefedKey) }, problems: [] });
    else items.push(notCarried(o, "neither KubeFed's nor Federation v1's: apply it yourself if the control cluster should hold it"));
  }
  for (const [key, rsp] of ctx.preferences) {
    if (!ctx.used.has(rsp)) items.push(notCarried(rsp, `its target (${key.split("|")[0] || "no targetKind"} ${nsName(rsp)}) is not in the input: its replicas are not carried over`));
  }
  return items;
}

function notCarried(o: KubeObject, why: string): MigrationItem {
  return { source: sourceOf(o), problems: [`not carried over: ${why}`] };
}

function coreReason(kind: string): string {
  if (kind === "KubeFedCluster") return "push mode: Flotilla members run an agent and register with a token instead (docs/operations/registration.md)";
  if (kind === "FederatedTypeConfig") return "not needed: any kind propagates (its target type was read)";
  if (kind === "KubeFedConfig") return "the control plane's flags take its place";
  return `${kind} is KubeFed's status or bookkeeping`;
}

/** The template marked so that each member's agent adopts the object KubeFed applied there (agent/apply/adoption.ts). */
function adopting(o: KubeObject): KubeObject {
  return { ...o, metadata: { ...o.metadata, annotations: { ...o.metadata.annotations, [ADOPT_ANNOTATION]: ADOPT_KUBEFED } } };
}

/** The policy's and override's name: Karmada's promote names them `<name>-<kind>`, so two kinds of one name never meet. */
const policyName = (name: string, kind: string) => `${name}-${kind.toLowerCase()}`;

function propagation(target: KubeObject, namespaced: boolean, placement: Placement, replicaScheduling: ReplicaSchedulingStrategy): KubeObject {
  const name = target.metadata.name ?? "";
  const affinity = affinityOf(placement);
  return {
    apiVersion: FLOTILLA_API_VERSION,
    kind: namespaced ? "PropagationPolicy" : "ClusterPropagationPolicy",
    metadata: { name: policyName(name, target.kind), ...(namespaced ? { namespace: target.metadata.namespace ?? "default" } : {}) },
    spec: {
      resourceSelectors: [{ apiVersion: target.apiVersion, kind: target.kind, name }],
      placement: { ...(affinity === undefined ? {} : { clusterAffinity: affinity }), replicaScheduling },
    },
  };
}

const DUPLICATED: ReplicaSchedulingStrategy = { replicaSchedulingType: "Duplicated" };

/** A Federated object: its template, a policy with its placement, and an override policy for its overrides. */
function federated(o: KubeObject, ctx: Context): MigrationItem[] {
  const spec = (o.spec ?? {}) as { template?: Record<string, unknown>; placement?: unknown; overrides?: unknown };
  const source = sourceOf(o);
  const target = targetOf(o.kind, spec.template, ctx.targets);
  if (target === undefined) return [{ source, problems: [`not carried over: which kind ${o.kind} wraps is unknown: include its FederatedTypeConfig in the input`] }];
  const problems: string[] = [];
  const { apiVersion: _a, kind: _k, metadata: templateMeta, ...body } = spec.template ?? {};
  const meta = cleanMetadata({ ...(templateMeta as KubeObject["metadata"] | undefined), name: o.metadata.name ?? "", namespace: o.metadata.namespace }, target.namespaced, isKubefedKey);
  const converted = currentVersion({ apiVersion: target.apiVersion, kind: target.kind, metadata: meta, ...body });
  if (converted.problem !== undefined) problems.push(converted.problem);
  let object = adopting(converted.object);
  let placement = kubefedPlacement(spec.placement);
  let scheduling = DUPLICATED;
  const rsp = ctx.preferences.get(`${o.kind}|${nsName(o)}`);
  if (rsp !== undefined && REPLICA_KINDS.includes(target.kind)) {
    ctx.used.add(rsp);
    const prefs = (rsp.spec ?? {}) as ReplicaPreferences;
    ({ placement, replicaScheduling: scheduling } = replicaPlacement(prefs, placement));
    if (typeof prefs.totalReplicas === "number") object = { ...object, spec: { ...(object.spec as object), replicas: prefs.totalReplicas } };
  }
  if (target.namespaced) placement = intersect(placement, namespacePlacement(o, ctx, problems));
  const items: MigrationItem[] = [{ source, object, problems }, { source, object: propagation(object, target.namespaced, placement, scheduling), problems: [] }];
  const overrides = overridePolicy(o, object, target.namespaced, rsp !== undefined && scheduling !== DUPLICATED);
  if (overrides !== undefined) items.push({ source, ...overrides });
  return items;
}

/** Where a namespaced object's namespace is placed: nowhere (a problem) without its FederatedNamespace, as in KubeFed. */
function namespacePlacement(o: KubeObject, ctx: Context, problems: string[]): Placement {
  const namespace = o.metadata.namespace ?? "default";
  const p = ctx.namespaces.get(namespace);
  if (p !== undefined) return p;
  problems.push(`placed in no cluster: KubeFed places a namespaced object only where its namespace's FederatedNamespace is, and the input has none for ${namespace}`);
  return NO_CLUSTERS;
}

/** The OverridePolicy of a Federated object's `overrides`; replicas overrides are the preference's under an RSP, as in KubeFed. */
function overridePolicy(o: KubeObject, target: KubeObject, namespaced: boolean, replicasByPreference: boolean): { object?: KubeObject; problems: string[] } | undefined {
  const overrides = (o.spec as { overrides?: unknown } | undefined)?.overrides;
  if (!Array.isArray(overrides) || overrides.length === 0) return undefined;
  const problems: string[] = [];
  const rules = [];
  for (const entry of overrides as { clusterName?: unknown; clusterOverrides?: unknown }[]) {
    const cluster = typeof entry?.clusterName === "string" ? entry.clusterName : "";
    if (cluster === "" || !Array.isArray(entry.clusterOverrides)) {
      problems.push(`overrides: ${JSON.stringify(entry)} names no cluster or no clusterOverrides: not carried over`);
      continue;
    }
    const plaintext: PlaintextOverrider[] = [];
    for (const co of entry.clusterOverrides as { op?: unknown; path?: unknown; value?: unknown }[]) {
      const operator = co?.op === undefined || co.op === "" ? "replace" : co.op;
      if (typeof co?.path !== "string" || !co.path.startsWith("/") || (operator !== "add" && operator !== "remove" && operator !== "replace")) {
        problems.push(`overrides for ${cluster}: ${JSON.stringify(co)}: not an add, remove or replace of a /path: not carried over`);
        continue;
      }
      if (replicasByPreference && co.path === "/spec/replicas") {
        problems.push(`overrides for ${cluster}: /spec/replicas not carried over: the ReplicaSchedulingPreference decides the replicas, as in KubeFed`);
        continue;
      }
      plaintext.push(keepingTheMark({ path: co.path, operator, ...(operator === "remove" ? {} : { value: co.value }) }));
    }
    plaintext.push(...pullPolicies(target, plaintext));
    if (plaintext.length > 0) rules.push({ targetCluster: { clusterNames: [cluster] }, overriders: { plaintext } });
  }
  if (rules.length === 0) return { problems };
  const name = target.metadata.name ?? "";
  const object: KubeObject = {
    apiVersion: FLOTILLA_API_VERSION,
    kind: namespaced ? "OverridePolicy" : "ClusterOverridePolicy",
    metadata: { name: policyName(name, target.kind), ...(namespaced ? { namespace: target.metadata.namespace ?? "default" } : {}) },
    spec: { resourceSelectors: [{ apiVersion: target.apiVersion, kind: target.kind, name }], overrideRules: rules },
  };
  return { object, problems };
}

/**
 * The member defaults a container's imagePullPolicy from its image (Always for :latest or no tag),
 * but the control cluster defaulted the template's already, from the template's image. An override
 * of a container's image therefore also sets the policy the member would have defaulted for the new
 * image, as KubeFed's members got it; else adopting would change the pod template and restart it.
 */
function pullPolicies(template: KubeObject, plaintext: readonly PlaintextOverrider[]): PlaintextOverrider[] {
  const out: PlaintextOverrider[] = [];
  for (const o of plaintext) {
    const container = /^(.*\/(?:containers|initContainers)\/\d+)\/image$/.exec(o.path)?.[1];
    if (container === undefined || o.operator === "remove" || typeof o.value !== "string") continue;
    const policyPath = `${container}/imagePullPolicy`;
    const given = pointer(template, container) as { imagePullPolicy?: unknown } | undefined;
    if (given === undefined || given.imagePullPolicy !== undefined || plaintext.some((p) => p.path === policyPath)) continue;
    out.push({ path: policyPath, operator: "add", value: defaultPullPolicy(o.value) });
  }
  return out;
}

/** Kubernetes' default imagePullPolicy for an image: Always for the latest tag (or none), else IfNotPresent. */
export function defaultPullPolicy(image: string): "Always" | "IfNotPresent" {
  if (image.includes("@")) return "IfNotPresent";
  const last = image.slice(image.lastIndexOf("/") + 1);
  const tag = last.includes(":") ? last.slice(last.indexOf(":") + 1) : "latest";
  return tag === "latest" ? "Always" : "IfNotPresent";
}

/** The value at a JSON pointer, or undefined. */
function pointer(value: unknown, path: string): unknown {
  let at = value;
  for (const part of path.split("/").slice(1)) {
    if (typeof at !== "object" || at === null) return undefined;
    at = (at as Record<string, unknown>)[part.replaceAll("~1", "/").replaceAll("~0", "~")];
  }
  return at;
}

/**
 * An override that sets or removes the whole annotations map (KubeFed's own sample does) would take
 * the adoption mark with it: the map it sets keeps the mark, and a removal leaves only the mark.
 */
function keepingTheMark(o: PlaintextOverrider): PlaintextOverrider {
  const mark = { [ADOPT_ANNOTATION]: ADOPT_KUBEFED };
  const isMap = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  if (o.path === "/metadata/annotations") return o.operator === "remove" || !isMap(o.value) ? { path: o.path, operator: "replace", value: mark } : { ...o, value: { ...o.value, ...mark } };
  if (o.path === "/metadata" && o.operator !== "remove" && isMap(o.value)) return { ...o, value: { ...o.value, annotations: { ...(isMap(o.value.annotations) ? o.value.annotations : {}), ...mark } } };
  return o;
}

/** A FederatedNamespace: the Namespace, and a ClusterPropagationPolicy with its placement (which also bounds what is in it). */
function federatedNamespace(o: KubeObject): MigrationItem[] {
  const spec = (o.spec ?? {}) as { template?: { metadata?: KubeObject["metadata"] }; placement?: unknown };
  const name = o.metadata.namespace ?? o.metadata.name ?? "";
  const namespace = adopting({ apiVersion: "v1", kind: "Namespace", metadata: cleanMetadata({ ...spec.template?.metadata, name }, false, isKubefedKey) });
  const source = sourceOf(o);
  return [
    { source, object: namespace, problems: [] },
    { source, object: propagation(namespace, false, kubefedPlacement(spec.placement), DUPLICATED), problems: [] },
  ];
}

/** KubeFed's DNS records: the same kinds and fields in Flotilla's group; a Domain is cluster-scoped there. */
function dnsRecord(o: KubeObject): MigrationItem {
  const domain = o.kind === "Domain";
  const { status: _status, ...rest } = o as KubeObject & { status?: unknown };
  return { source: sourceOf(o), object: { ...rest, apiVersion: FLOTILLA_DNS, metadata: cleanMetadata(o.metadata, !domain, isKubefedKey) }, problems: [] };
}

/** A plain object with Federation v1's annotations: the object, and a policy with its placement and replica preferences. */
function federationV1(o: KubeObject): MigrationItem[] {
  const problems: string[] = [];
  const annotations = o.metadata.annotations ?? {};
  const { [V1_CLUSTER_SELECTOR]: selectorAnnotation, [V1_REPLICA_PREFERENCES]: preferencesAnnotation, ...kept } = annotations;
  const namespaced = o.metadata.namespace !== undefined && o.metadata.namespace !== "";
  const converted = currentVersion({ ...o, metadata: cleanMetadata({ ...o.metadata, annotations: kept }, namespaced) });
  if (converted.problem !== undefined) problems.push(converted.problem);
  const selected = v1Placement(selectorAnnotation);
  if (selected.problem !== undefined) problems.push(selected.problem);
  let placement = selected.placement;
  let scheduling = DUPLICATED;
  if (REPLICA_KINDS.includes(converted.object.kind)) {
    const prefs = v1ReplicaPreferences(preferencesAnnotation);
    if (prefs.problem !== undefined) problems.push(prefs.problem);
    ({ placement, replicaScheduling: scheduling } = replicaPlacement({ ...prefs.prefs, intersectWithClusterSelector: true }, placement));
  }
  problems.push("Federation v1 marked no member object as its own: a member's existing object stays AlreadyExists until its policy's conflictResolution is Overwrite");
  const source = sourceOf(o);
  return [
    { source, object: converted.object, problems },
    { source, object: propagation(converted.object, namespaced, placement, scheduling), problems: [] },
  ];
}
