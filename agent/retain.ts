// Fields a member-side owner keeps (DESIGN §11, Karmada's retain): pure. An HPA in the member that
// scales a workload owns its spec.replicas; the agent applies the member's current value there,
// so it neither fights the autoscaler nor counts its changes as drift.
import type { KubeObject } from "../shared/api/types.ts";

/** Kinds an HPA scales through spec.replicas. */
const SCALABLE: Readonly<Record<string, ReadonlySet<string>>> = {
  apps: new Set(["Deployment", "StatefulSet", "ReplicaSet"]),
};

/** A member HPA's target, as "namespace/group/Kind/name". */
export function scaleTargetId(namespace: string, apiVersion: string, kind: string, name: string): string {
  return `${namespace}/${groupOf(apiVersion)}/${kind}/${name}`;
}

/** Whether the kind can be an HPA's target through spec.replicas. */
export function isScalable(apiVersion: string, kind: string): boolean {
  return SCALABLE[groupOf(apiVersion)]?.has(kind) ?? false;
}

/**
 * The manifest to apply: as rendered, except spec.replicas taken from the live object when an HPA
 * in the member scales it. A workload not yet created keeps the rendered replicas.
 */
export function retainMemberOwned(desired: KubeObject, live: KubeObject | undefined, scaledByHpa: boolean): KubeObject {
  if (!scaledByHpa || live === undefined || !isScalable(desired.apiVersion, desired.kind)) return desired;
  const liveReplicas = (live.spec as { replicas?: unknown } | undefined)?.replicas;
  const spec = desired.spec as Record<string, unknown> | undefined;
  if (typeof liveReplicas !== "number" || spec === undefined || spec.replicas === liveReplicas) return desired;
  return { ...desired, spec: { ...spec, replicas: liveReplicas } };
}

function groupOf(apiVersion: string): string {
  return apiVersion.includes("/") ? (apiVersion.split("/")[0] ?? "") : "";
}
