// Which ConfigMaps, Secrets, ServiceAccounts and PersistentVolumeClaims a workload's pod template
// refers to, so they can follow it to the member clusters (as Karmada's dependencies distributor
// does). Only the pod spec is read; a StatefulSet's volumeClaimTemplates are not dependencies, as
// the member creates those claims itself. Malformed pieces of a template are ignored, never thrown on.
import type { KubeObject } from "../../shared/api/types.ts";

export type DependencyKind = "ConfigMap" | "Secret" | "ServiceAccount" | "PersistentVolumeClaim";

export interface DependencyRef {
  apiVersion: "v1";
  kind: DependencyKind;
  namespace: string;
  name: string;
}

type Json = Record<string, unknown>;

/** The kinds that follow a workload under propagateDeps. */
export const DEPENDENCY_KINDS: readonly DependencyKind[] = ["ConfigMap", "Secret", "ServiceAccount", "PersistentVolumeClaim"];

/** Where each workload kind keeps its pod spec, keyed by `apiVersion/kind`. */
const POD_SPEC_PATHS: ReadonlyMap<string, readonly string[]> = new Map([
  ["v1/Pod", ["spec"]],
  ["apps/v1/Deployment", ["spec", "template", "spec"]],
  ["apps/v1/ReplicaSet", ["spec", "template", "spec"]],
  ["apps/v1/StatefulSet", ["spec", "template", "spec"]],
  ["apps/v1/DaemonSet", ["spec", "template", "spec"]],
  ["batch/v1/Job", ["spec", "template", "spec"]],
  ["batch/v1/CronJob", ["spec", "jobTemplate", "spec", "template", "spec"]],
]);

/** Volume plugins whose secret reference is `<plugin>.secretRef.name`. */
const SECRET_REF_PLUGINS = ["cephfs", "rbd", "flexVolume", "iscsi", "scaleIO", "storageos"] as const;

const CONTAINER_LISTS = ["containers", "initContainers", "ephemeralContainers"] as const;

/** Whether an object of this apiVersion/kind can be a dependency (core v1 of the four kinds). */
export function isDependencyKind(ref: { apiVersion: string; kind: string }): boolean {
  return ref.apiVersion === "v1" && (DEPENDENCY_KINDS as readonly string[]).includes(ref.kind);
}

/** Whether a template's kind has a pod template we read dependencies from. */
export function hasPodTemplate(ref: { apiVersion: string; kind: string }): boolean {
  return POD_SPEC_PATHS.has(`${ref.apiVersion}/${ref.kind}`);
}

/** The objects a workload's pod template refers to, deduplicated, sorted by kind then name. */
export function dependenciesOf(template: KubeObject): DependencyRef[] {
  const path = POD_SPEC_PATHS.get(`${template.apiVersion}/${template.kind}`);
  if (path === undefined) return [];
  const meta: unknown = template.metadata;
  const namespace = isRecord(meta) ? meta.namespace : undefined;
  if (typeof namespace !== "string" || namespace === "") return [];
  const podSpec = dig(template, path);
  if (podSpec === undefined) return [];

  const found = new Map<string, DependencyRef>();
  const add = (kind: DependencyKind, name: unknown): void => {
    if (typeof name !== "string" || name === "") return;
    found.set(`${kind}/${name}`, { apiVersion: "v1", kind, namespace, name });
  };

  for (const volume of records(podSpec.volumes)) addVolume(volume, add);
  for (const list of CONTAINER_LISTS) {
    for (const container of records(podSpec[list])) addContainer(container, add);
  }
  for (const secret of records(podSpec.imagePullSecrets)) add("Secret", secret.name);
  const serviceAccount = podSpec.serviceAccountName || podSpec.serviceAccount;
  if (serviceAccount !== "default") add("ServiceAccount", serviceAccount);

  return [...found.values()].sort((a, b) => compareStrings(a.kind, b.kind) || compareStrings(a.name, b.name));
}

type Add = (kind: DependencyKind, name: unknown) => void;

function addVolume(volume: Json, add: Add): void {
  add("ConfigMap", dig(volume, ["configMap"])?.name);
  add("Secret", dig(volume, ["secret"])?.secretName);
  add("PersistentVolumeClaim", dig(volume, ["persistentVolumeClaim"])?.claimName);
  for (const source of records(dig(volume, ["projected"])?.sources)) {
    add("ConfigMap", dig(source, ["configMap"])?.name);
    add("Secret", dig(source, ["secret"])?.name);
  }
  add("Secret", dig(volume, ["csi", "nodePublishSecretRef"])?.name);
  for (const plugin of SECRET_REF_PLUGINS) add("Secret", dig(volume, [plugin, "secretRef"])?.name);
  add("Secret", dig(volume, ["azureFile"])?.secretName);
}

function addContainer(container: Json, add: Add): void {
  for (const source of records(container.envFrom)) {
    add("ConfigMap", dig(source, ["configMapRef"])?.name);
    add("Secret", dig(source, ["secretRef"])?.name);
  }
  for (const env of records(container.env)) {
    add("ConfigMap", dig(env, ["valueFrom", "configMapKeyRef"])?.name);
    add("Secret", dig(env, ["valueFrom", "secretKeyRef"])?.name);
  }
}

/** The object at `path` under `root`, or undefined when any step is missing or not an object. */
function dig(root: Json, path: readonly string[]): Json | undefined {
  let at: unknown = root;
  for (const key of path) {
    if (!isRecord(at)) return undefined;
    at = at[key];
  }
  return isRecord(at) ? at : undefined;
}

/** The object entries of a list; anything that is not an array gives none. */
function records(list: unknown): Json[] {
  return Array.isArray(list) ? list.filter(isRecord) : [];
}

function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
