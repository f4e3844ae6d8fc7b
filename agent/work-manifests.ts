// Small pure helpers on a Work's manifests and records, shared by the runner and the applier.
import { OWNER_ANNOTATION } from "./owner.ts";
import { type KubeObject, LABELS } from "../shared/api/types.ts";
import type { AppliedResource } from "./applied-store.ts";
import { WORK_KEY_ANNOTATION } from "./object-watch.ts";
import type { ManifestOutcome } from "./work-status.ts";

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

export function asObject(r: AppliedResource): KubeObject {
  return { apiVersion: r.apiVersion, kind: r.kind, metadata: { name: r.name, ...(r.namespace ? { namespace: r.namespace } : {}) } };
}

/** A manifest deliberately not applied: the member's object belongs to someone else. */
export function isLeftAlone(o: ManifestOutcome): boolean {
  return !o.applied && (o.reason === "AlreadyExists" || o.reason === "ManagedLabelFalse");
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
