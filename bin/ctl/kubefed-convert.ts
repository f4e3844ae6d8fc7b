// `flotillactl migrate kubefed`, the conversion (issue 39): KubeFed's Federated objects,
// FederatedNamespaces, ReplicaSchedulingPreferences and DNS records, and Federation v1's annotated
// objects, as Flotilla's templates and policies with KubeFed's semantics kept, and per object what
// could not be carried over and why. Pure: the CLI shell (migrate-kubefed.ts) reads the files or
// KubeFed's host cluster and writes the control cluster.
import jsonpatch from "fast-json-patch";
import { ADOPT_ANNOTATION, ADOPT_KUBEFED } from "../../agent/apply/adoption.ts";
import { parseImage } from "../../control-plane/rendering/image-reference.ts";
import type { KubeObject, PlaintextOverrider, ReplicaSchedulingStrategy } from "../../shared/api/types.ts";
import { isFederationV1, V1_CLUSTER_SELECTOR, V1_REPLICA_PREFERENCES, v1Placement, v1ReplicaPreferences } from "./federation-v1.ts";
import { affinityOf, intersect, kubefedPlacement, NO_CLUSTERS, type Placement, replicaPlacement, type ReplicaPreferences } from "./kubefed-placement.ts";
import { preferredReplicas } from "./kubefed-replicas.ts";
import { currentVersion, targetOf, targetsOfTypeConfigs, type TargetType } from "./kubefed-targets.ts";
import { cleanMetadata, FLOTILLA_API_VERSION, type MigrationItem, sourceOf } from "./migrate-convert.ts";

export const KUBEFED_TYPES = "types.kubefed.io/v1beta1";
export const KUBEFED_SCHEDULING = "scheduling.kubefed.io/v1alpha1";
const KUBEFED_CORE_GROUP = "core.kubefed.io";
const KUBEFED_DNS = "multiclusterdns.kubefed.io/v1alpha1";
const FLOTILLA_DNS = "multiclusterdns.flotilla.dev/v1alpha1";
const REPLICA_KINDS = ["Deployment", "ReplicaSet"];
/** Paths KubeFed refuses to override: what names the object. */
const FIXED_PATHS = ["/apiVersion", "/kind", "/metadata/name", "/metadata/namespace", "/metadata/generateName"];

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
    namespaces: new Map(objects.filter(validFederatedNamespace).flatMap((o) => placementOrNothing(o).map((p) => [o.metadata.name ?? "", p] as const))),
    preferences: new Map(objects.filter((o) => o.apiVersion === KUBEFED_SCHEDULING && o.kind === "ReplicaSchedulingPreference").map((o) => [`${(o.spec as { targetKind?: string } | undefined)?.targetKind ?? ""}|${nsName(o)}`, o])),
    used: new Set(),
  };
  const federatedNamespaces = new Set(ctx.namespaces.keys());
  const items: MigrationItem[] = [];
  for (const o of objects) {
    try {
      items.push(...convertOne(o, ctx, federatedNamespaces));
    } catch (err) {
      items.push(notCarried(o, err instanceof Error ? err.message : String(err)));
    }
  }
  for (const [key, rsp] of ctx.preferences) {
    if (!ctx.used.has(rsp)) items.push(notCarried(rsp, `its target (${key.split("|")[0] || "no targetKind"} ${nsName(rsp)}) is not in the input: its replicas are not carried over`));
  }
  return items;
}

/** A FederatedNamespace KubeFed acts on: named as its namespace (else KubeFed ignores it: InvalidName). */
function validFederatedNamespace(o: KubeObject): boolean {
  return o.apiVersion === KUBEFED_TYPES && o.kind === "FederatedNamespace" && o.metadata.name !== undefined && o.metadata.name === o.metadata.namespace;
}

function placementOrNothing(o: KubeObject): Placement[] {
  try {
    return [kubefedPlacement((o.spec as { placement?: unknown } | undefined)?.placement)];
  } catch {
    return [NO_CLUSTERS];
  }
}

/** Namespaces KubeFed never propagates (the member's own, and KubeFed's), though a FederatedNamespace still bounds what is in them. */
const UNPROPAGATED_NAMESPACES = ["default", "kube-system", "kube-public", "kube-federation-system"];

/** One object of the input as the migration's items (a preference is its target's, so none of its own). */
function convertOne(o: KubeObject, ctx: Context, federatedNamespaces: ReadonlySet<string>): MigrationItem[] {
  if (o.apiVersion === KUBEFED_TYPES && o.kind === "FederatedNamespace") return federatedNamespace(o);
  if (o.apiVersion === KUBEFED_TYPES) return federated(o, ctx);
  if (o.apiVersion === KUBEFED_SCHEDULING && o.kind === "ReplicaSchedulingPreference") return [];
  if (groupOf(o.apiVersion) === KUBEFED_CORE_GROUP) return [notCarried(o, coreReason(o.kind))];
  if (o.apiVersion === KUBEFED_DNS) return [dnsRecord(o)];
  if (isFederationV1(o.metadata.annotations)) return federationV1(o);
  if (o.apiVersion === "v1" && o.kind === "Namespace") {
    if (federatedNamespaces.has(o.metadata.name ?? "")) return [notCarried(o, "its FederatedNamespace carries it")];
    return [{ source: sourceOf(o), object: { apiVersion: "v1", kind: "Namespace", metadata: cleanMetadata(o.metadata, false, isKubefedKey) }, problems: [] }];
  }
  return [notCarried(o, "neither KubeFed's nor Federation v1's: apply it yourself if the control cluster should hold it")];
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

/** A placing policy's item; one that selects no cluster is written only where no such policy exists yet. */
function placing(source: MigrationItem["source"], policy: KubeObject, placement: Placement): MigrationItem {
  return { source, object: policy, problems: [], ...(placement.none === true ? { placesNowhere: true as const } : {}) };
}

/** A Federated object: its template, a policy with its placement, and an override policy for its overrides. */
function federated(o: KubeObject, ctx: Context): MigrationItem[] {
  const spec = (o.spec ?? {}) as { template?: Record<string, unknown>; placement?: unknown; overrides?: unknown };
  const source = sourceOf(o);
  const target = targetOf(o.kind, spec.template, ctx.targets);
  if (target === undefined) return [{ source, problems: [`not carried over: which kind ${o.kind} wraps is unknown: include its FederatedTypeConfig in the input`] }];
  const problems: string[] = [];
  if (typeof spec.template !== "object" || spec.template === null || Array.isArray(spec.template)) throw new Error("spec.template is not an object");
  const { apiVersion: _a, kind: _k, metadata: templateMeta, ...body } = spec.template;
  const { annotations: dropped, ...kept } = (templateMeta ?? {}) as KubeObject["metadata"];
  // KubeFed never propagated a template's annotations (its AnnotationsNotSupported event).
  if (dropped !== undefined && dropped !== null && Object.keys(dropped).length > 0) problems.push("template.metadata.annotations not carried over: KubeFed never propagated a template's annotations");
  if ((spec as { retainReplicas?: unknown }).retainReplicas === true) problems.push("spec.retainReplicas not carried over: Flotilla keeps a member's replicas only where a member HPA scales the workload; elsewhere the template's replicas are applied");
  const meta = cleanMetadata({ ...kept, name: o.metadata.name ?? "", namespace: o.metadata.namespace }, target.namespaced, isKubefedKey);
  const converted = currentVersion({ apiVersion: target.apiVersion, kind: target.kind, metadata: meta, ...body });
  if (converted.problem !== undefined) problems.push(converted.problem);
  let object = adopting(converted.object);
  let placement = kubefedPlacement(spec.placement);
  let scheduling = DUPLICATED;
  const namespace = target.namespaced ? ctx.namespaces.get(o.metadata.namespace ?? "default") : undefined;
  // Missing from the input is not KubeFed placing it nowhere: nothing is written, so a policy an
  // earlier run wrote (and the member objects it placed) stays.
  if (target.namespaced && namespace === undefined) {
    return [notCarried(o, `the input has no FederatedNamespace for ${o.metadata.namespace ?? "default"}: KubeFed places a namespaced object only where its namespace's FederatedNamespace is; include it (or read the live host) to carry this object over`)];
  }
  const rsp = ctx.preferences.get(`${o.kind}|${nsName(o)}`);
  let byPreference = false;
  if (rsp !== undefined && REPLICA_KINDS.includes(target.kind)) {
    ctx.used.add(rsp);
    const preferred = preferredReplicas((rsp.spec ?? {}) as ReplicaPreferences, spec, namespace, problems);
    if (preferred !== undefined) {
      byPreference = true;
      ({ placement, replicaScheduling: scheduling } = preferred);
      problems.push(...preferred.problems);
      if (preferred.replicas !== undefined) object = { ...object, spec: { ...(object.spec as object), replicas: preferred.replicas } };
    }
  }
  if (namespace !== undefined) placement = intersect(placement, namespace);
  const items: MigrationItem[] = [{ source, object, problems }, placing(source, propagation(object, target.namespaced, placement, scheduling), placement)];
  const overrides = overridePolicy(o, object, target.namespaced, byPreference);
  if (overrides !== undefined) {
    if (converted.object.apiVersion !== target.apiVersion) overrides.problems.push(`the overrides were written for ${target.apiVersion} and are carried over as they are: check their paths against ${converted.object.apiVersion}`);
    items.push({ source, ...overrides });
  }
  return items;
}

/** The OverridePolicy of a Federated object's `overrides`; replicas overrides are the preference's under an RSP, as in KubeFed. */
function overridePolicy(o: KubeObject, target: KubeObject, namespaced: boolean, replicasByPreference: boolean): { object?: KubeObject; problems: string[] } | undefined {
  const overrides = (o.spec as { overrides?: unknown } | undefined)?.overrides;
  if (!Array.isArray(overrides) || overrides.length === 0) return undefined;
  const problems: string[] = [];
  const rules = [];
  const clustersSeen = new Set<string>();
  for (const entry of overrides as { clusterName?: unknown; clusterOverrides?: unknown }[]) {
    const cluster = typeof entry?.clusterName === "string" ? entry.clusterName : "";
    if (cluster === "" || !Array.isArray(entry.clusterOverrides)) {
      problems.push(`overrides: ${JSON.stringify(entry)} names no cluster or no clusterOverrides: not carried over`);
      continue;
    }
    // KubeFed refuses an object whose overrides name a cluster twice, or a path twice for one cluster.
    if (clustersSeen.has(cluster)) {
      problems.push(`overrides: ${cluster} named again: not carried over (KubeFed refused such overrides)`);
      continue;
    }
    clustersSeen.add(cluster);
    const plaintext: PlaintextOverrider[] = [];
    const pathsSeen = new Set<string>();
    for (const co of entry.clusterOverrides as { op?: unknown; path?: unknown; value?: unknown }[]) {
      const operator = co?.op === undefined || co.op === "" ? "replace" : co.op;
      if (typeof co?.path !== "string" || !co.path.startsWith("/") || (operator !== "add" && operator !== "remove" && operator !== "replace")) {
        problems.push(`overrides for ${cluster}: ${JSON.stringify(co)}: not an add, remove or replace of a /path: not carried over`);
        continue;
      }
      if (FIXED_PATHS.includes(co.path) || pathsSeen.has(co.path)) {
        problems.push(`overrides for ${cluster}: ${co.path}: ${pathsSeen.has(co.path) ? "overridden twice" : "an object's identity"}: not carried over (KubeFed refused it)`);
        continue;
      }
      pathsSeen.add(co.path);
      if (replicasByPreference && co.path === "/spec/replicas") {
        problems.push(`overrides for ${cluster}: /spec/replicas not carried over: the ReplicaSchedulingPreference decides the replicas, as in KubeFed`);
        continue;
      }
      // A replace or add without a value writes null, as KubeFed's patch did.
      const one = keepingTheMark({ path: co.path, operator, ...(operator === "remove" ? {} : { value: co.value ?? null }) });
      plaintext.push(one, ...pullPolicy(target, one, entry.clusterOverrides as { path?: unknown }[]));
    }
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
 * of a container's image therefore also sets, right after it (before a later override moves the
 * containers), the policy the member would have defaulted for the new image, as KubeFed's members
 * got it; else adopting would change the pod template and restart it.
 */
function pullPolicy(template: KubeObject, o: PlaintextOverrider, all: readonly { path?: unknown }[]): PlaintextOverrider[] {
  const container = /^(.*\/(?:containers|initContainers)\/\d+)\/image$/.exec(o.path)?.[1];
  if (container === undefined || o.operator === "remove" || typeof o.value !== "string") return [];
  const policyPath = `${container}/imagePullPolicy`;
  const given = valueAt(template, container) as { imagePullPolicy?: unknown } | undefined;
  if (typeof given !== "object" || given === null || given.imagePullPolicy !== undefined || all.some((p) => p?.path === policyPath)) return [];
  return [{ path: policyPath, operator: "add", value: defaultPullPolicy(o.value) }];
}

/** Kubernetes' default imagePullPolicy for an image: Always for the latest tag (or none), else IfNotPresent. */
export function defaultPullPolicy(image: string): "Always" | "IfNotPresent" {
  // No tag means latest, unless a digest pins the image; an image that does not parse defaults as one with no tag the kubelet's parser found.
  const ref = parseImage(image);
  if (ref === undefined) return "IfNotPresent";
  const tag = ref.tag !== "" ? ref.tag : ref.digest === "" ? "latest" : "";
  return tag === "latest" ? "Always" : "IfNotPresent";
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
  if (!validFederatedNamespace(o)) return [notCarried(o, "its name is not its namespace's: KubeFed ignores it (InvalidName), so the namespace bounds its objects to no cluster")];
  const name = o.metadata.name ?? "";
  if (UNPROPAGATED_NAMESPACES.includes(name)) return [notCarried(o, `KubeFed never propagates ${name}; its placement still bounds what is in it`)];
  const namespace = adopting({ apiVersion: "v1", kind: "Namespace", metadata: cleanMetadata({ ...spec.template?.metadata, name }, false, isKubefedKey) });
  const placement = kubefedPlacement(spec.placement);
  const source = sourceOf(o);
  return [
    { source, object: namespace, problems: [] },
    placing(source, propagation(namespace, false, placement, DUPLICATED), placement),
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
    const planned = replicaPlacement({ ...prefs.prefs, intersectWithClusterSelector: true }, placement);
    if (planned !== undefined) {
      ({ placement, replicaScheduling: scheduling } = planned);
      problems.push(...planned.problems.map((p) => `${V1_REPLICA_PREFERENCES} ${p}`));
    }
  }
  problems.push("Federation v1 marked no member object as its own: a member's existing object stays AlreadyExists until its policy's conflictResolution is Overwrite");
  const source = sourceOf(o);
  return [
    { source, object: converted.object, problems },
    placing(source, propagation(converted.object, namespaced, placement, scheduling), placement),
  ];
}

/** The value at a JSON pointer, or undefined where the path does not lead anywhere. */
function valueAt(document: unknown, path: string): unknown {
  try {
    return jsonpatch.getValueByPointer(document, path) as unknown;
  } catch {
    return undefined;
  }
}
