// Whether the agent may delete a Namespace or a CustomResourceDefinition it manages: pure.
// DESIGN §11: nothing cascades past what the removal means. Deleting a Namespace deletes
// everything in it, and deleting a CRD deletes every custom resource of it, so either goes only
// when it holds nothing but the removed Work's own objects (and what Kubernetes makes anyway):
// not an object Flotilla does not manage, and not an object another Work (or another fleet) still
// places there. Otherwise it is kept and reported, and looked at again (--kept-recheck-interval).
import { type KubeObject, LABELS } from "../../shared/api/types.ts";

/** How many objects, and of which kinds. */
export interface Counts {
  total: number;
  /** Kind → how many, for the message. */
  byKind: Map<string, number>;
}

/** What a Namespace or CRD holds that its removal must not take along. */
export interface HeldContents {
  /** Objects Flotilla does not manage: no work label, or flotilla.dev/managed=false. */
  unmanaged: Counts;
  /** Objects of another Work, or of another fleet: someone still wants them there. */
  otherWorks: Counts;
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

function add(c: Counts, kind: string): void {
  c.total++;
  c.byKind.set(kind, (c.byKind.get(kind) ?? 0) + 1);
}

/**
 * Sorts the listed objects that the removal of one Work's Namespace or CRD would take along but
 * must not: those Flotilla does not manage, and those of another Work or fleet. The removed Work's
 * own objects (isThisWorks) go with it, and so do objects Kubernetes makes in every namespace and
 * dependents of another listed object. Dependents (a Deployment's ReplicaSets and Pods, a
 * Service's EndpointSlices, all named by ownerReferences, and a Service's Endpoints, named as it)
 * go with their owner: an owner of this Work takes them along as Kubernetes' garbage collector
 * would, and any other owner is counted once, by itself.
 */
export function heldContents(objects: readonly KubeObject[], isThisWorks: (o: KubeObject) => boolean): HeldContents {
  const uids = new Set(objects.map((o) => o.metadata.uid).filter((u): u is string => u !== undefined));
  const services = new Set(objects.filter((o) => o.apiVersion === "v1" && o.kind === "Service").map((o) => `${o.metadata.namespace ?? ""}/${o.metadata.name ?? ""}`));
  const held: HeldContents = { unmanaged: { total: 0, byKind: new Map() }, otherWorks: { total: 0, byKind: new Map() } };
  for (const o of objects) {
    if (isThisWorks(o)) continue;
    if (madeByKubernetes(o)) continue;
    if ((o.metadata.ownerReferences ?? []).some((r) => uids.has(r.uid))) continue;
    if (o.apiVersion === "v1" && o.kind === "Endpoints" && services.has(`${o.metadata.namespace ?? ""}/${o.metadata.name ?? ""}`)) continue;
    const managed = o.metadata.labels?.[LABELS.work] !== undefined && o.metadata.labels[LABELS.managed] !== "false";
    add(managed ? held.otherWorks : held.unmanaged, o.kind);
  }
  return held;
}

/** Whether anything is held: the Namespace or CRD must stay. */
export function holdsAny(c: HeldContents): boolean {
  return c.unmanaged.total > 0 || c.otherWorks.total > 0;
}

function counted(c: Counts, what: string): string {
  const kinds = [...c.byKind].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0)).map(([k, n]) => `${n} ${k}`);
  return `${c.total === 1 ? "1 object" : `${c.total} objects`} ${what} (${kinds.join(", ")})`;
}

/**
 * Why a Namespace or CRD stays: "kept Namespace shop: it holds 3 objects Flotilla does not manage
 * (2 ConfigMap, 1 Secret)", "… it holds 1 object another Work or fleet places (1 ConfigMap)", or both,
 * joined by "and".
 */
export function keptMessage(kind: string, name: string, c: HeldContents): string {
  const parts = [...(c.unmanaged.total > 0 ? [counted(c.unmanaged, "Flotilla does not manage")] : []), ...(c.otherWorks.total > 0 ? [counted(c.otherWorks, "another Work or fleet places")] : [])];
  return `kept ${kind} ${name}: it holds ${parts.join(" and ")}`;
}

/** Whether deleting this kind would cascade to objects that are not its own. */
export function cascades(apiVersion: string, kind: string): boolean {
  return (apiVersion === "v1" && kind === "Namespace") || (apiVersion.startsWith("apiextensions.k8s.io/") && kind === "CustomResourceDefinition");
}
