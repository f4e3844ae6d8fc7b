// Whether the agent may delete a Namespace or a CustomResourceDefinition it manages: pure.
// DESIGN §11: nothing cascades past Flotilla's own objects. Deleting a Namespace deletes
// everything in it, and deleting a CRD deletes every custom resource of it, so either goes only
// when it holds nothing Flotilla does not manage; otherwise it is kept and reported.
import { type KubeObject, LABELS } from "../shared/api/types.ts";

/** What the member holds inside a Namespace, or of a CRD, that Flotilla does not manage. */
export interface UnmanagedContents {
  total: number;
  /** Kind → how many, for the message. */
  byKind: Map<string, number>;
}

/**
 * Objects Kubernetes itself puts in every namespace, which nobody would miss and which go with
 * the namespace anyway. Deliberately short: anything else someone made in the namespace counts.
 * - the `default` ServiceAccount (the serviceaccount controller makes one in every namespace), and
 *   on members before 1.24 its token Secret;
 * - the `kube-root-ca.crt` ConfigMap (the root-ca-cert-publisher, in every namespace);
 * - Events (core and events.k8s.io): records of what happened, written by controllers about any
 *   object, Flotilla's included; they expire by themselves.
 */
function madeByKubernetes(o: KubeObject): boolean {
  const group = o.apiVersion.includes("/") ? o.apiVersion.slice(0, o.apiVersion.indexOf("/")) : "";
  const name = o.metadata.name ?? "";
  if (o.kind === "Event" && (group === "" || group === "events.k8s.io")) return true;
  if (group !== "") return false;
  if (o.kind === "ServiceAccount" && name === "default") return true;
  if (o.kind === "ConfigMap" && name === "kube-root-ca.crt") return true;
  const secret = o as KubeObject & { type?: string };
  return o.kind === "Secret" && secret.type === "kubernetes.io/service-account-token" && o.metadata.annotations?.["kubernetes.io/service-account.name"] === "default";
}

/**
 * Counts the listed objects Flotilla does not manage: without its work label, not made by
 * Kubernetes in every namespace, and not a dependent of another listed object. Dependents (a
 * Deployment's ReplicaSets and Pods, a Service's EndpointSlices, all named by ownerReferences, and
 * a Service's Endpoints, named as it) go with their owner: a managed owner takes them along as
 * Kubernetes' garbage collector would, and an unmanaged owner is counted once, by itself.
 */
export function unmanagedContents(objects: readonly KubeObject[]): UnmanagedContents {
  const uids = new Set(objects.map((o) => o.metadata.uid).filter((u): u is string => u !== undefined));
  const services = new Set(objects.filter((o) => o.apiVersion === "v1" && o.kind === "Service").map((o) => `${o.metadata.namespace ?? ""}/${o.metadata.name ?? ""}`));
  const byKind = new Map<string, number>();
  let total = 0;
  for (const o of objects) {
    if (o.metadata.labels?.[LABELS.work] !== undefined) continue;
    if (madeByKubernetes(o)) continue;
    if ((o.metadata.ownerReferences ?? []).some((r) => uids.has(r.uid))) continue;
    if (o.apiVersion === "v1" && o.kind === "Endpoints" && services.has(`${o.metadata.namespace ?? ""}/${o.metadata.name ?? ""}`)) continue;
    total++;
    byKind.set(o.kind, (byKind.get(o.kind) ?? 0) + 1);
  }
  return { total, byKind };
}

/** Why a Namespace or CRD stays: "kept Namespace shop: it holds 3 objects Flotilla does not manage (2 ConfigMap, 1 Secret)". */
export function keptMessage(kind: string, name: string, contents: UnmanagedContents): string {
  const kinds = [...contents.byKind].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0)).map(([k, n]) => `${n} ${k}`);
  const objects = contents.total === 1 ? "1 object" : `${contents.total} objects`;
  return `kept ${kind} ${name}: it holds ${objects} Flotilla does not manage (${kinds.join(", ")})`;
}

/** Whether deleting this kind would cascade to objects that are not its own. */
export function cascades(apiVersion: string, kind: string): boolean {
  return (apiVersion === "v1" && kind === "Namespace") || (apiVersion.startsWith("apiextensions.k8s.io/") && kind === "CustomResourceDefinition");
}
