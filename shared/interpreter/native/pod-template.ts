// What one pod of a pod template needs and refers to, as Karmada computes it for every pod-template
// kind (helper.GenerateReplicaRequirements and helper.GetDependenciesFromPodTemplate): pure. The
// Lua `kube` library's accuratePodRequirements and getPodDependencies give the same answers.
import { canonicalQuantity, scaledQuantity } from "../../quantity.ts";
import type { DependentObjectReference, InterpreterOperation, ReplicaRequirements } from "../interpreter.ts";
import { InterpreterError } from "../interpreter.ts";
import { compareStrings, isRecord, type Json, rec, records, str } from "./object.ts";

/** How Kubernetes counts and prints each resource (cpu in milli-units, the rest whole). */
function unitOf(name: string): { pow10: number; format: "DecimalSI" | "BinarySI" } | undefined {
  switch (name) {
    case "cpu":
      return { pow10: -3, format: "DecimalSI" };
    case "memory":
    case "ephemeral-storage":
      return { pow10: 0, format: "BinarySI" };
    case "pods":
      return { pow10: 0, format: "DecimalSI" };
  }
  if (name.startsWith("hugepages-")) return { pow10: 0, format: "BinarySI" };
  // Scalar resources: extended ("nvidia.com/gpu"), prefixed native ("kubernetes.io/…") and
  // attachable volumes. Karmada drops any other name.
  if ((name.includes("/") && !name.startsWith("requests.")) || name.startsWith("attachable-volumes-")) {
    return { pow10: 0, format: "DecimalSI" };
  }
  return undefined;
}

type Amounts = Map<string, bigint>;

function amountsOf(list: unknown, op: InterpreterOperation): Amounts {
  const out: Amounts = new Map();
  for (const [name, q] of Object.entries(rec(list))) {
    const unit = unitOf(name);
    if (unit === undefined) continue;
    try {
      out.set(name, scaledQuantity(String(q), -unit.pow10));
    } catch (err) {
      throw new InterpreterError(op, `resource ${name}: ${(err as Error).message}`);
    }
  }
  return out;
}

/** A container's requests, with a limit standing in for a request it lacks (as the apiserver defaults it). */
function containerRequests(container: Json, op: InterpreterOperation): Amounts {
  const resources = rec(container.resources);
  const requests = amountsOf(resources.requests, op);
  for (const [name, limit] of amountsOf(resources.limits, op)) if (!requests.has(name)) requests.set(name, limit);
  return requests;
}

/**
 * One pod's effective requests: the larger of the containers' sum and each init container's,
 * plus the pod overhead. Resource name → canonical quantity; undefined when nothing is requested.
 */
export function podResourceRequest(podSpec: Json, op: InterpreterOperation = "InterpretReplica"): Record<string, string> | undefined {
  const total: Amounts = new Map();
  for (const c of records(podSpec.containers)) {
    for (const [name, v] of containerRequests(c, op)) total.set(name, (total.get(name) ?? 0n) + v);
  }
  for (const c of records(podSpec.initContainers)) {
    for (const [name, v] of containerRequests(c, op)) if (v > (total.get(name) ?? 0n)) total.set(name, v);
  }
  for (const [name, v] of amountsOf(podSpec.overhead, op)) total.set(name, (total.get(name) ?? 0n) + v);
  const out: Record<string, string> = {};
  for (const name of [...total.keys()].sort(compareStrings)) {
    const v = total.get(name) ?? 0n;
    const unit = unitOf(name);
    if (v > 0n && unit !== undefined) out[name] = canonicalQuantity(v, unit.pow10, unit.format);
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/**
 * What one replica of a pod template needs (Karmada's GenerateReplicaRequirements, with the
 * namespace and priority class it records when ResourceQuotaEstimate is on). Undefined when the
 * template asks for neither resources nor particular nodes, as Karmada's nil.
 */
export function podReplicaRequirements(podSpec: Json, namespace: string, op: InterpreterOperation = "InterpretReplica"): ReplicaRequirements | undefined {
  const nodeClaim: NonNullable<ReplicaRequirements["nodeClaim"]> = {};
  if (isRecord(podSpec.nodeSelector)) nodeClaim.nodeSelector = podSpec.nodeSelector as Record<string, string>;
  const tolerations = records(podSpec.tolerations);
  if (tolerations.length > 0) nodeClaim.tolerations = tolerations as NonNullable<typeof nodeClaim.tolerations>;
  const hard = rec(rec(rec(podSpec.affinity).nodeAffinity)).requiredDuringSchedulingIgnoredDuringExecution;
  if (isRecord(hard)) nodeClaim.hardNodeAffinity = hard;
  const hasClaim = Object.keys(nodeClaim).length > 0;
  const resourceRequest = podResourceRequest(podSpec, op);
  if (!hasClaim && resourceRequest === undefined) return undefined;
  const out: ReplicaRequirements = {};
  if (hasClaim) out.nodeClaim = nodeClaim;
  if (resourceRequest !== undefined) out.resourceRequest = resourceRequest;
  if (namespace !== "") out.namespace = namespace;
  const priorityClassName = str(podSpec.priorityClassName);
  if (priorityClassName !== "") out.priorityClassName = priorityClassName;
  return out;
}

const secretRef = (source: Json): unknown[] => [rec(source.secretRef).name];

/**
 * Each volume source that names Secrets, in the order Kubernetes' VisitPodSecretNames tries them:
 * a volume has one source, and only the first present one is read.
 */
const SECRET_SOURCES: readonly [string, (source: Json) => unknown[]][] = [
  ["azureFile", (s) => [s.secretName]],
  ["cephfs", secretRef],
  ["cinder", secretRef],
  ["flexVolume", secretRef],
  ["projected", (s) => records(s.sources).map((p) => rec(p.secret).name)],
  ["rbd", secretRef],
  ["secret", (s) => [s.secretName]],
  ["scaleIO", secretRef],
  ["iscsi", secretRef],
  ["storageos", secretRef],
  ["csi", (s) => [rec(s.nodePublishSecretRef).name]],
];

const CONTAINER_LISTS = ["initContainers", "containers", "ephemeralContainers"] as const;

function volumeSecrets(volume: Json): unknown[] {
  for (const [key, names] of SECRET_SOURCES) if (isRecord(volume[key])) return names(volume[key]);
  return [];
}

function volumeConfigMaps(volume: Json): unknown[] {
  if (isRecord(volume.projected)) return records(volume.projected.sources).map((s) => rec(s.configMap).name);
  if (isRecord(volume.configMap)) return [volume.configMap.name];
  return [];
}

/**
 * The ConfigMaps, Secrets, ServiceAccount and PersistentVolumeClaims a pod spec refers to, in the
 * pod's namespace: sorted by apiVersion, kind, namespace and name, without duplicates.
 */
export function podDependencies(podSpec: Json, namespace: string): DependentObjectReference[] {
  const found = new Map<string, DependentObjectReference>();
  const add = (kind: string, name: unknown): void => {
    if (typeof name !== "string" || name === "") return;
    found.set(`${kind}/${name}`, { apiVersion: "v1", kind, namespace, name });
  };
  for (const secret of records(podSpec.imagePullSecrets)) add("Secret", secret.name);
  for (const list of CONTAINER_LISTS) {
    for (const c of records(podSpec[list])) {
      for (const from of records(c.envFrom)) {
        add("ConfigMap", rec(from.configMapRef).name);
        add("Secret", rec(from.secretRef).name);
      }
      for (const env of records(c.env)) {
        add("ConfigMap", rec(rec(env.valueFrom).configMapKeyRef).name);
        add("Secret", rec(rec(env.valueFrom).secretKeyRef).name);
      }
    }
  }
  for (const volume of records(podSpec.volumes)) {
    for (const name of volumeSecrets(volume)) add("Secret", name);
    for (const name of volumeConfigMaps(volume)) add("ConfigMap", name);
    add("PersistentVolumeClaim", rec(volume.persistentVolumeClaim).claimName);
  }
  const serviceAccount = str(podSpec.serviceAccountName);
  if (serviceAccount !== "default") add("ServiceAccount", serviceAccount);
  return sortDependencies([...found.values()]);
}

/** Sorted by apiVersion, kind, namespace, name; duplicates dropped. */
export function sortDependencies(refs: readonly DependentObjectReference[]): DependentObjectReference[] {
  const seen = new Map<string, DependentObjectReference>();
  for (const r of refs) seen.set(JSON.stringify([r.apiVersion, r.kind, r.namespace, r.name ?? "", r.labelSelector ?? null]), r);
  return [...seen.values()].sort(
    (a, b) =>
      compareStrings(a.apiVersion, b.apiVersion) ||
      compareStrings(a.kind, b.kind) ||
      compareStrings(a.namespace, b.namespace) ||
      compareStrings(a.name ?? "", b.name ?? ""),
  );
}
