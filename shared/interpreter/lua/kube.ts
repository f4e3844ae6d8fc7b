// The `kube` library Karmada gives interpreter scripts (luavm/kube.go), as pure functions on
// JSON values: the Lua side (runtime.ts) only moves arguments and results. Results match
// Karmada's helpers: GenerateReplicaRequirements, GetDependenciesFromPodTemplate and
// resource.Quantity arithmetic and printing.
import {
  addQuantities,
  formatExactQuantity,
  parseExactQuantity,
  quantityOf,
  quantityToNumber,
  scaledValue,
  zeroQuantity,
  type Quantity,
} from "../../quantity.ts";
import type { DependentObjectReference, ReplicaRequirements } from "../interpreter.ts";

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : undefined);
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.map((e) => obj(e) ?? {}) : []);
const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** kube.resourceAdd(q1, q2, ...): the sum, printed in the format of the first non-zero argument; nil counts as 0. */
export function resourceAdd(quantities: readonly (string | undefined)[]): string {
  let sum: Quantity = zeroQuantity;
  for (const q of quantities) if (q !== undefined) sum = addQuantities(sum, parseExactQuantity(q));
  return formatExactQuantity(sum);
}

/** kube.getResourceQuantity(q): the quantity as a number (AsApproximateFloat64). */
export function getResourceQuantity(q: string | undefined): number {
  const n = q === undefined ? 0 : quantityToNumber(parseExactQuantity(q));
  if (n < 0) throw new Error(`int approximation unexpectedly returned a negative value: ${q}`);
  if (!Number.isFinite(n)) throw new Error(`int approximation unexpectedly returned an infinite value: ${q}`);
  return n;
}

// Karmada's util.Resource: cpu in milli-units, the rest in units, scalar resources by name.
type Sums = Map<string, bigint>;
const isScalar = (name: string) => name.includes("/") || name.startsWith("hugepages-") || name.startsWith("attachable-volumes-");
const known = (name: string) => name === "cpu" || name === "memory" || name === "pods" || name === "ephemeral-storage" || isScalar(name);
const amount = (name: string, q: unknown): bigint => scaledValue(parseExactQuantity(String(q)), name === "cpu" ? -3 : 0);

function addList(r: Sums, rl: Obj): void {
  for (const [name, q] of Object.entries(rl)) if (known(name)) r.set(name, (r.get(name) ?? 0n) + amount(name, q));
}
function maxList(r: Sums, rl: Obj): void {
  for (const [name, q] of Object.entries(rl)) {
    if (!known(name)) continue;
    const v = amount(name, q);
    if (v > (r.get(name) ?? 0n)) r.set(name, v);
  }
}
/** A container's requests, with each limit standing in for a missing request. */
function effectiveRequests(container: Obj): Obj {
  const resources = obj(container.resources) ?? {};
  return { ...(obj(resources.limits) ?? {}), ...(obj(resources.requests) ?? {}) };
}

/** kube.accuratePodRequirements(podTemplate): what one replica needs (GenerateReplicaRequirements), or undefined. */
export function accuratePodRequirements(podTemplate: unknown): ReplicaRequirements | undefined {
  const spec = obj(obj(podTemplate)?.spec) ?? {};
  const sums: Sums = new Map();
  for (const c of list(spec.containers)) addList(sums, effectiveRequests(c));
  for (const c of list(spec.initContainers)) maxList(sums, effectiveRequests(c));
  const overhead = obj(spec.overhead);
  if (overhead) addList(sums, overhead);

  const resourceRequest: Record<string, string> = {};
  for (const name of [...sums.keys()].sort()) {
    const v = sums.get(name) as bigint;
    if (v <= 0n) continue;
    const binary = name === "memory" || name === "ephemeral-storage" || name.startsWith("hugepages-");
    resourceRequest[name] = formatExactQuantity(quantityOf(v, binary ? "BinarySI" : "DecimalSI", name === "cpu"));
  }

  const nodeSelector = obj(spec.nodeSelector) as Record<string, string> | undefined;
  const tolerations = Array.isArray(spec.tolerations) && spec.tolerations.length > 0 ? spec.tolerations : undefined;
  const hardNodeAffinity = obj(obj(obj(spec.affinity)?.nodeAffinity)?.requiredDuringSchedulingIgnoredDuringExecution);
  const hasClaim = nodeSelector !== undefined || tolerations !== undefined || hardNodeAffinity !== undefined;
  const hasRequest = Object.keys(resourceRequest).length > 0;
  if (!hasClaim && !hasRequest) return undefined;
  const out: ReplicaRequirements = {};
  if (hasClaim) {
    out.nodeClaim = {};
    if (hardNodeAffinity) out.nodeClaim.hardNodeAffinity = hardNodeAffinity;
    if (nodeSelector && Object.keys(nodeSelector).length > 0) out.nodeClaim.nodeSelector = nodeSelector;
    if (tolerations) out.nodeClaim.tolerations = tolerations as NonNullable<ReplicaRequirements["nodeClaim"]>["tolerations"];
  }
  if (hasRequest) out.resourceRequest = resourceRequest;
  return out;
}

function containers(spec: Obj): Obj[] {
  return [...list(spec.initContainers), ...list(spec.containers), ...list(spec.ephemeralContainers)];
}
function configMapNames(spec: Obj): Set<string> {
  const names = new Set<string>();
  for (const c of containers(spec)) {
    for (const e of list(c.envFrom)) if (obj(e.configMapRef)) names.add(str(obj(e.configMapRef)?.name));
    for (const e of list(c.env)) names.add(str(obj(obj(e.valueFrom)?.configMapKeyRef)?.name));
  }
  for (const v of list(spec.volumes)) {
    if (obj(v.projected)) for (const s of list(obj(v.projected)?.sources)) names.add(str(obj(s.configMap)?.name));
    else names.add(str(obj(v.configMap)?.name));
  }
  names.delete("");
  return names;
}
const secretVolumeRefs: [string, (src: Obj) => unknown][] = [
  ["azureFile", (s) => s.secretName],
  ["cephfs", (s) => obj(s.secretRef)?.name],
  ["cinder", (s) => obj(s.secretRef)?.name],
  ["flexVolume", (s) => obj(s.secretRef)?.name],
  ["rbd", (s) => obj(s.secretRef)?.name],
  ["secret", (s) => s.secretName],
  ["scaleIO", (s) => obj(s.secretRef)?.name],
  ["iscsi", (s) => obj(s.secretRef)?.name],
  ["storageos", (s) => obj(s.secretRef)?.name],
  ["csi", (s) => obj(s.nodePublishSecretRef)?.name],
];
function secretNames(spec: Obj): Set<string> {
  const names = new Set<string>();
  for (const r of list(spec.imagePullSecrets)) names.add(str(r.name));
  for (const c of containers(spec)) {
    for (const e of list(c.envFrom)) names.add(str(obj(e.secretRef)?.name));
    for (const e of list(c.env)) names.add(str(obj(obj(e.valueFrom)?.secretKeyRef)?.name));
  }
  for (const v of list(spec.volumes)) {
    if (obj(v.projected)) {
      for (const s of list(obj(v.projected)?.sources)) names.add(str(obj(s.secret)?.name));
      continue;
    }
    const ref = secretVolumeRefs.find(([field]) => obj(v[field]) !== undefined);
    if (ref) names.add(str(ref[1](obj(v[ref[0]]) as Obj)));
  }
  names.delete("");
  return names;
}

/** kube.getPodDependencies(podTemplate, namespace): the ConfigMaps, Secrets, ServiceAccount and PVCs the pods use, or undefined when none. */
export function getPodDependencies(podTemplate: unknown, namespace: string): DependentObjectReference[] | undefined {
  const spec = obj(obj(podTemplate)?.spec) ?? {};
  const refs: DependentObjectReference[] = [];
  const add = (kind: string, names: Iterable<string>) => {
    for (const name of [...names].sort()) refs.push({ apiVersion: "v1", kind, namespace, name });
  };
  add("ConfigMap", configMapNames(spec));
  add("Secret", secretNames(spec));
  const sa = str(spec.serviceAccountName);
  add("ServiceAccount", sa !== "" && sa !== "default" ? [sa] : []);
  add("PersistentVolumeClaim", new Set(list(spec.volumes).map((v) => str(obj(v.persistentVolumeClaim)?.claimName)).filter((n) => n !== "")));
  return refs.length > 0 ? refs : undefined;
}
