// Flotilla's health word for one member object, read per kind (DESIGN §6): Healthy, Progressing,
// Unhealthy or Unknown with why, where Karmada's InterpretHealth gives a boolean (the native cases check
// that the two agree). Pure: the agent reports the word (index.ts healthWord); the hub only aggregates.
import type { Condition, HealthWord, KubeObject } from "../../api/types.ts";

/** A health word and, when not Healthy, why. */
export interface HealthAssessment {
  health: HealthWord;
  message: string;
}

const HEALTHY: HealthAssessment = { health: "Healthy", message: "" };

/** Kinds that are healthy by existing, keyed by API group ("" is core). */
const EXIST_KINDS: Record<string, ReadonlySet<string>> = {
  "": new Set(["Namespace", "ConfigMap", "Secret", "ServiceAccount"]),
  "rbac.authorization.k8s.io": new Set(["Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"]),
};

/** Reads an object's health from its kind's status fields; unknown kinds fall back to Ready/Available conditions. */
export function assessHealth(obj: KubeObject): HealthAssessment {
  const group = apiGroup(obj.apiVersion);
  const status = asRecord(obj.status);
  if (group === "apps") {
    switch (obj.kind) {
      case "Deployment":
        return deploymentHealth(obj, status);
      case "StatefulSet":
        return statefulSetHealth(obj, status);
      case "ReplicaSet":
        return replicaSetHealth(obj, status);
      case "DaemonSet":
        return daemonSetHealth(obj, status);
    }
  }
  if (group === "batch" && obj.kind === "Job") return jobHealth(status);
  if (group === "") {
    switch (obj.kind) {
      case "Pod":
        return podHealth(status);
      case "Service":
        return serviceHealth(obj, status);
      case "PersistentVolumeClaim":
        return pvcHealth(status);
    }
  }
  if (EXIST_KINDS[group]?.has(obj.kind)) return HEALTHY;
  return conditionHealth(status);
}

function deploymentHealth(obj: KubeObject, status: Record<string, unknown>): HealthAssessment {
  const stale = generationNotObserved(obj, status, false);
  if (stale) return stale;
  const conditions = conditionsOf(status);
  const progressing = findCondition(conditions, "Progressing");
  if (progressing?.status === "False" && progressing.reason === "ProgressDeadlineExceeded") {
    return { health: "Unhealthy", message: conditionText("progress deadline exceeded", progressing) };
  }
  const failure = findCondition(conditions, "ReplicaFailure");
  if (failure?.status === "True") {
    return { health: "Unhealthy", message: conditionText("replica failure", failure) };
  }
  return replicaCounts(desiredReplicas(obj), status, [
    ["updatedReplicas", "replicas updated"],
    ["readyReplicas", "replicas ready"],
    ["availableReplicas", "replicas available"],
    ["replicas", "replicas exist"],
  ]);
}

function statefulSetHealth(obj: KubeObject, status: Record<string, unknown>): HealthAssessment {
  const stale = generationNotObserved(obj, status, false);
  if (stale) return stale;
  const desired = desiredReplicas(obj);
  const partition = num(asRecord(asRecord(asRecord(obj.spec).updateStrategy).rollingUpdate).partition);
  if (partition > 0) {
    // A partitioned rollout stops at the partition on purpose: pods below it keep the old
    // revision, so currentReplicas never reaches desired and only replicas - partition update.
    const wantUpdated = Math.max(0, desired - partition);
    const updated = num(status.updatedReplicas);
    if (updated < wantUpdated) {
      return { health: "Progressing", message: `${updated}/${wantUpdated} replicas updated (partition ${partition})` };
    }
    return replicaCounts(desired, status, [
      ["readyReplicas", "replicas ready"],
      ["availableReplicas", "replicas available"],
      ["replicas", "replicas exist"],
    ]);
  }
  return replicaCounts(desired, status, [
    ["updatedReplicas", "replicas updated"],
    ["currentReplicas", "replicas current"],
    ["readyReplicas", "replicas ready"],
    ["availableReplicas", "replicas available"],
    ["replicas", "replicas exist"],
  ]);
}

function replicaSetHealth(obj: KubeObject, status: Record<string, unknown>): HealthAssessment {
  // A ReplicaSet's status may lack observedGeneration entirely; that counts as current.
  const stale = generationNotObserved(obj, status, true);
  if (stale) return stale;
  const failure = findCondition(conditionsOf(status), "ReplicaFailure");
  if (failure?.status === "True") {
    return { health: "Unhealthy", message: conditionText("replica failure", failure) };
  }
  // fullyLabeledReplicas is about label drift, not readiness: not part of health.
  return replicaCounts(desiredReplicas(obj), status, [
    ["readyReplicas", "replicas ready"],
    ["availableReplicas", "replicas available"],
    ["replicas", "replicas exist"],
  ]);
}

function daemonSetHealth(obj: KubeObject, status: Record<string, unknown>): HealthAssessment {
  const stale = generationNotObserved(obj, status, false);
  if (stale) return stale;
  const desired = num(status.desiredNumberScheduled);
  return replicaCounts(desired, status, [
    ["updatedNumberScheduled", "pods updated"],
    ["numberReady", "pods ready"],
    ["numberAvailable", "pods available"],
  ]);
}

function jobHealth(status: Record<string, unknown>): HealthAssessment {
  const conditions = conditionsOf(status);
  const complete = findCondition(conditions, "Complete");
  if (complete?.status === "True") return HEALTHY;
  const failed = findCondition(conditions, "Failed");
  if (failed?.status === "True") return { health: "Unhealthy", message: conditionText("job failed", failed) };
  const suspended = findCondition(conditions, "Suspended");
  if (suspended?.status === "True") return { health: "Progressing", message: "job suspended" };
  const counts = `${num(status.active)} active, ${num(status.succeeded)} succeeded, ${num(status.failed)} failed`;
  return { health: "Progressing", message: `job running: ${counts}` };
}

function podHealth(status: Record<string, unknown>): HealthAssessment {
  const phase = str(status.phase);
  if (phase === "Succeeded") return HEALTHY;
  if (phase === "Failed") {
    const why = [str(status.reason), str(status.message)].filter((s) => s !== "").join(": ");
    return { health: "Unhealthy", message: why === "" ? "pod failed" : `pod failed: ${why}` };
  }
  if (phase === "Running") {
    if (findCondition(conditionsOf(status), "Ready")?.status === "True") return HEALTHY;
    return { health: "Progressing", message: withWaiting("pod running but not ready", status) };
  }
  return { health: "Progressing", message: withWaiting(`pod phase ${phase === "" ? "unknown" : phase}`, status) };
}

function serviceHealth(obj: KubeObject, status: Record<string, unknown>): HealthAssessment {
  if (asRecord(obj.spec).type !== "LoadBalancer") return HEALTHY;
  const ingress = asRecord(status.loadBalancer).ingress;
  if (Array.isArray(ingress) && ingress.length > 0) return HEALTHY;
  return { health: "Progressing", message: "waiting for a load balancer address" };
}

function pvcHealth(status: Record<string, unknown>): HealthAssessment {
  const phase = str(status.phase);
  if (phase === "Bound") return HEALTHY;
  if (phase === "Lost") return { health: "Unhealthy", message: "claim lost its volume" };
  return { health: "Progressing", message: `claim phase ${phase === "" ? "unknown" : phase}` };
}

function conditionHealth(status: Record<string, unknown>): HealthAssessment {
  const conditions = conditionsOf(status);
  const found = ["Ready", "Available"]
    .map((t) => findCondition(conditions, t))
    .filter((c): c is Condition => c !== undefined);
  // A stated False is a problem even when the other condition says True.
  const bad = found.find((c) => c.status === "False");
  if (bad) return { health: "Unhealthy", message: conditionText(`${bad.type}=False`, bad) };
  if (found.some((c) => c.status === "True")) return HEALTHY;
  return { health: "Unknown", message: "no Ready or Available condition to read" };
}

// ---- helpers -----------------------------------------------------------------------------------

/** Compares each count with desired, in order; the first that differs is the message. The
 * total "replicas" goes last: above desired it means old pods not yet scaled away. */
function replicaCounts(
  desired: number,
  status: Record<string, unknown>,
  fields: [field: string, words: string][],
): HealthAssessment {
  for (const [field, words] of fields) {
    const have = num(status[field]);
    if (have === desired) continue;
    if (field === "replicas" && have > desired) {
      return { health: "Progressing", message: `${have - desired} old replicas pending termination` };
    }
    return { health: "Progressing", message: `${have}/${desired} ${words}` };
  }
  return HEALTHY;
}

function generationNotObserved(
  obj: KubeObject,
  status: Record<string, unknown>,
  absentIsCurrent: boolean,
): HealthAssessment | undefined {
  const generation = obj.metadata.generation;
  if (generation === undefined) return undefined;
  const observed = status.observedGeneration;
  if (typeof observed !== "number") {
    if (absentIsCurrent) return undefined;
    return { health: "Progressing", message: `waiting for generation ${generation} to be observed` };
  }
  if (observed >= generation) return undefined;
  return { health: "Progressing", message: `waiting for generation ${generation} to be observed (at ${observed})` };
}

function desiredReplicas(obj: KubeObject): number {
  const replicas = asRecord(obj.spec).replicas;
  return typeof replicas === "number" ? replicas : 1;
}

/** Adds the first waiting container's reason (CrashLoopBackOff, ImagePullBackOff, ...). */
function withWaiting(base: string, status: Record<string, unknown>): string {
  const containers = [status.initContainerStatuses, status.containerStatuses].flatMap((l) =>
    Array.isArray(l) ? l : [],
  );
  for (const c of containers) {
    const cs = asRecord(c);
    const reason = str(asRecord(asRecord(cs.state).waiting).reason);
    if (reason !== "") return `${base}: container ${str(cs.name)} waiting: ${reason}`;
  }
  return base;
}

function conditionText(base: string, c: Condition): string {
  const detail = c.message !== "" ? c.message : c.reason;
  return detail === "" ? base : `${base}: ${detail}`;
}

function apiGroup(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

function conditionsOf(status: Record<string, unknown>): Condition[] {
  const list = status.conditions;
  if (!Array.isArray(list)) return [];
  return list.map(asRecord).map((c) => ({
    type: str(c.type),
    status: c.status === "True" || c.status === "False" ? c.status : "Unknown",
    reason: str(c.reason),
    message: str(c.message),
    lastTransitionTime: str(c.lastTransitionTime),
  }));
}

function findCondition(conditions: Condition[], type: string): Condition | undefined {
  return conditions.find((c) => c.type === type);
}

function asRecord(v: unknown): Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function num(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) ? v : 0;
}

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}
