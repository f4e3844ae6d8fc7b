// The native interpreters, one per Kubernetes kind, keyed by kindKey: what Flotilla knows of a
// kind without a ResourceInterpreterCustomization (Karmada's default interpreter). An operation a
// kind's interpreter lacks is not interpreted natively (Karmada's HookEnabled is false for it);
// InterpretStatus alone has a default for every kind, reflectWholeStatus.
import type { HealthWord, KubeObject } from "../../api/types.ts";
import { assessHealth, type HealthAssessment } from "./health-words.ts";
import { type KindInterpreter, kindKey } from "../interpreter.ts";
import { daemonSet, deployment, replicaSet, statefulSet } from "./apps.ts";
import { cronJob, job } from "./batch.ts";
import { persistentVolume, persistentVolumeClaim, pod, secret, service, serviceAccount } from "./core.ts";
import { ingress } from "./networking.ts";
import { isRecord, int, rec } from "./object.ts";
import { horizontalPodAutoscaler, podDisruptionBudget } from "./policy.ts";

export { divideJobCompletions, reviseJobCompletions, type JobTarget } from "./batch.ts";
export { podDependencies, podReplicaRequirements, podResourceRequest } from "./pod-template.ts";
export { RETAIN_REPLICAS_LABEL, TEMPLATE_GENERATION_ANNOTATION } from "./workload.ts";

/** Every native interpreter, keyed `<apiVersion>/<kind>`. */
export const nativeInterpreters: ReadonlyMap<string, KindInterpreter> = new Map([
  [kindKey("apps/v1", "Deployment"), deployment],
  [kindKey("apps/v1", "StatefulSet"), statefulSet],
  [kindKey("apps/v1", "ReplicaSet"), replicaSet],
  [kindKey("apps/v1", "DaemonSet"), daemonSet],
  [kindKey("batch/v1", "Job"), job],
  [kindKey("batch/v1", "CronJob"), cronJob],
  [kindKey("v1", "Pod"), pod],
  [kindKey("v1", "Service"), service],
  [kindKey("v1", "PersistentVolume"), persistentVolume],
  [kindKey("v1", "PersistentVolumeClaim"), persistentVolumeClaim],
  [kindKey("v1", "ServiceAccount"), serviceAccount],
  [kindKey("v1", "Secret"), secret],
  [kindKey("networking.k8s.io/v1", "Ingress"), ingress],
  [kindKey("policy/v1", "PodDisruptionBudget"), podDisruptionBudget],
  [kindKey("autoscaling/v2", "HorizontalPodAutoscaler"), horizontalPodAutoscaler],
]);

/** The native interpreter of an object's kind, if Flotilla has one. */
export function nativeInterpreterFor(obj: Pick<KubeObject, "apiVersion" | "kind">): KindInterpreter | undefined {
  return nativeInterpreters.get(kindKey(obj.apiVersion, obj.kind));
}

/** InterpretStatus for a kind without its own: the member object's whole `.status`, when it has one. */
export function reflectWholeStatus(observed: KubeObject): Record<string, unknown> | undefined {
  return isRecord(observed.status) ? structuredClone(observed.status) : undefined;
}

/**
 * Flotilla's health word for a member object (Healthy, Progressing, Unhealthy, Unknown), where
 * Karmada's InterpretHealth gives only a boolean: today's per-kind reading (shared/health.ts), so
 * that its callers keep their meaning. Ingress and PodDisruptionBudget, which that reading does not
 * know, take Karmada's boolean: Healthy, or Progressing while it is false.
 */
export function healthWord(observed: KubeObject): HealthAssessment {
  const key = kindKey(observed.apiVersion, observed.kind);
  if (key === kindKey("networking.k8s.io/v1", "Ingress")) {
    return ingress.interpretHealth?.(observed) === true ? healthy() : progressing("waiting for a load balancer address");
  }
  if (key === kindKey("policy/v1", "PodDisruptionBudget")) {
    const s = rec(observed.status);
    return podDisruptionBudget.interpretHealth?.(observed) === true
      ? healthy()
      : progressing(`${int(s.currentHealthy)}/${int(s.desiredHealthy)} pods healthy`);
  }
  return assessHealth(observed);
}

const healthy = (): HealthAssessment => ({ health: "Healthy" satisfies HealthWord, message: "" });
const progressing = (message: string): HealthAssessment => ({ health: "Progressing", message });
