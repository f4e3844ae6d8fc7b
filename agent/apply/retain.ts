// Fields a member-side owner keeps (DESIGN §11, Karmada's retain): pure. An HPA in the member that
// scales a workload owns its spec.replicas; the agent applies the member's current value there,
// so it neither fights the autoscaler nor counts its changes as drift.
import type { KubeObject } from "../../shared/api/types.ts";
import { anotherObject, InterpreterError, type KindInterpreter } from "../../shared/interpreter/interpreter.ts";

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
 * in the member scales it, or may (scaledByHpa undefined: the member's HPAs are not listed yet, as
 * right after an agent's start; issue 37, item 4). A workload not yet created keeps the rendered
 * replicas.
 */
export function retainMemberOwned(desired: KubeObject, live: KubeObject | undefined, scaledByHpa: boolean | undefined): KubeObject {
  if (scaledByHpa === false || live === undefined || !isScalable(desired.apiVersion, desired.kind)) return desired;
  const liveReplicas = (live.spec as { replicas?: unknown } | undefined)?.replicas;
  const spec = desired.spec as Record<string, unknown> | undefined;
  if (typeof liveReplicas !== "number" || spec === undefined || spec.replicas === liveReplicas) return desired;
  return { ...desired, spec: { ...spec, replicas: liveReplicas } };
}

function groupOf(apiVersion: string): string {
  return apiVersion.includes("/") ? (apiVersion.split("/")[0] ?? "") : "";
}

/**
 * A ResourceInterpreterCustomization's Retain (issue 21): the manifest with what the member owns
 * kept from the live object, as the fleet's script says. Without a live object, or without a
 * customized Retain, the manifest as rendered. A script that fails, or that returns another object
 * (another apiVersion, kind, name or namespace), is a failure: nothing is applied, and the member's
 * object stays as it is.
 */
export function retainByCustomization(manifest: KubeObject, live: KubeObject | undefined, customized: Pick<KindInterpreter, "retain"> | undefined): { desired: KubeObject } | { failure: string } {
  if (live === undefined || customized?.retain === undefined) return { desired: manifest };
  let out: KubeObject;
  try {
    out = customized.retain(manifest, live);
  } catch (err) {
    return { failure: err instanceof InterpreterError ? err.message : `Retain: ${err instanceof Error ? err.message : String(err)}` };
  }
  const problem = anotherObject(manifest, out);
  if (problem !== undefined) return { failure: `Retain: ${problem}` };
  return { desired: out };
}
