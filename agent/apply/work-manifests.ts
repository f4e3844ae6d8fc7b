// Small pure helpers on a Work's manifests and records, shared by the runner and the applier.
import { WORK_KEY_ANNOTATION } from "../../shared/work-key.ts";
import { OWNER_ANNOTATION } from "../judge/owner.ts";
import { type KubeObject, LABELS } from "../../shared/api/types.ts";
import type { AppliedResource } from "../judge/applied-record.ts";
import type { ManifestOutcome } from "../status/work-status.ts";
import { deleteOrder } from "./apply-order.ts";

/** The manifest with Flotilla's ownership label and annotation, in its namespace. */
export function withOwnership(m: KubeObject, key: string, label: string, namespace: string | undefined, owner?: string): KubeObject {
  return {
    ...m,
    metadata: {
      ...m.metadata,
      ...(namespace !== undefined ? { namespace } : {}),
      labels: { ...m.metadata.labels, [LABELS.work]: label },
      annotations: { ...m.metadata.annotations, [WORK_KEY_ANNOTATION]: key, ...(owner !== undefined ? { [OWNER_ANNOTATION]: owner } : {}) },
    },
  };
}

export function resourceOf(m: KubeObject): AppliedResource {
  return { apiVersion: m.apiVersion, kind: m.kind, ...(m.metadata.namespace ? { namespace: m.metadata.namespace } : {}), name: m.metadata.name ?? "" };
}

/** The record's entry for a manifest's outcome: with the uid of the object, when it was applied. */
export function appliedResource(o: ManifestOutcome): AppliedResource {
  const uid = o.applied ? o.live?.metadata.uid : undefined;
  return { ...resourceOf(o.manifest), ...(uid !== undefined ? { uid } : {}) };
}

/** Recorded objects in the order they are deleted (apply-order.ts), each entry as recorded (its uid kept). */
export function inDeleteOrder(resources: readonly AppliedResource[]): AppliedResource[] {
  const byObject = new Map<KubeObject, AppliedResource>(resources.map((r) => [asObject(r), r]));
  return deleteOrder([...byObject.keys()]).map((o) => byObject.get(o) as AppliedResource);
}

export function asObject(r: AppliedResource): KubeObject {
  return { apiVersion: r.apiVersion, kind: r.kind, metadata: { name: r.name, ...(r.namespace ? { namespace: r.namespace } : {}) } };
}

/** A manifest deliberately not applied: the member's object belongs to someone else. */
export function isLeftAlone(o: ManifestOutcome): boolean {
  return !o.applied && (o.reason === "AlreadyExists" || o.reason === "ManagedLabelFalse");
}

/**
 * Why a WorkUpsert's manifests cannot be a Work, or undefined: none at all (a Work without
 * manifests would prune everything the agent applied for it: issue 37), or one that is not a
 * Kubernetes object with an apiVersion, a kind and a name. The agent then applies and prunes
 * nothing, keeps what it applied, and says why (CreationFailed).
 */
export function manifestsProblem(manifests: readonly unknown[]): string | undefined {
  if (manifests.length === 0) return "the hub sent a Work without manifests; nothing is applied or removed";
  for (const [i, m] of manifests.entries()) {
    const o = m as Partial<KubeObject> | null;
    const named = typeof o === "object" && o !== null && typeof o.metadata === "object" && o.metadata !== null && typeof o.metadata.name === "string" && o.metadata.name !== "";
    if (!named || typeof o.apiVersion !== "string" || o.apiVersion === "" || typeof o.kind !== "string" || o.kind === "") return `the hub sent manifest ${i + 1} of ${manifests.length} without an apiVersion, a kind and a name; nothing is applied or removed`;
  }
  return undefined;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
