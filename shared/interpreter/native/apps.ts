// Deployment, StatefulSet, ReplicaSet and DaemonSet (apps/v1), as Karmada's default interpreter
// reads them. Pure.
import type { KubeObject } from "../../api/types.ts";
import type { KindInterpreter } from "../interpreter.ts";
import { at, int, rec, records, str } from "./object.ts";
import {
  type CurrentCheck,
  observedTemplateGeneration,
  retainLabelledReplicas,
  reviseSpecField,
  sumCounters,
  templateDependencies,
  templateReplicas,
  wrappedStatus,
} from "./workload.ts";

const status = (obj: KubeObject) => rec(obj.status);
const generationObserved = (obj: KubeObject) => int(status(obj).observedGeneration) === int(obj.metadata.generation);
const specReplicas = (obj: KubeObject): number | undefined => {
  const r = at(obj, "spec", "replicas");
  return typeof r === "number" ? r : undefined;
};

/** Deployment and StatefulSet health: the spec observed, every replica updated, and every updated one available. */
function rolledOut(obj: KubeObject): boolean {
  const s = status(obj);
  const want = specReplicas(obj);
  if (!generationObserved(obj)) return false;
  if (want !== undefined && int(s.updatedReplicas) < want) return false;
  return int(s.availableReplicas) >= int(s.updatedReplicas);
}

const DEPLOYMENT_COUNTERS = ["replicas", "updatedReplicas", "readyReplicas", "availableReplicas", "unavailableReplicas"];

export const deployment: KindInterpreter = {
  getReplicas: (obj) => templateReplicas(obj),
  reviseReplica: (obj, n) => reviseSpecField(obj, "replicas", n),
  retain: retainLabelledReplicas,
  reflectStatus: (observed) => nonEmpty(wrappedStatus(observed, ["observedGeneration", ...DEPLOYMENT_COUNTERS])),
  aggregateStatus: (obj, items) => sumCounters(obj, items, DEPLOYMENT_COUNTERS, observedTemplateGeneration),
  interpretHealth: (obj) => rolledOut(obj),
  getDependencies: (obj) => templateDependencies(obj, "spec", "template", "spec"),
};

const STATEFULSET_COUNTERS = ["availableReplicas", "currentReplicas", "readyReplicas", "replicas", "updatedReplicas"];

// Karmada compares the member's template generation with the member's own generation here (not
// the template's, as for the other kinds), and its reflected StatefulSet status carries no
// observedGeneration: so a StatefulSet of generation > 0 never raises the template's
// observedGeneration. Reproduced as Karmada behaves.
const statefulSetCurrent: CurrentCheck = (member) =>
  int(member.observedGeneration) >= int(member.generation) && int(member.resourceTemplateGeneration) >= int(member.generation);

export const statefulSet: KindInterpreter = {
  getReplicas: (obj) => templateReplicas(obj),
  reviseReplica: (obj, n) => reviseSpecField(obj, "replicas", n),
  reflectStatus: (observed) => wrappedStatus(observed, STATEFULSET_COUNTERS),
  aggregateStatus: (obj, items) => sumCounters(obj, items, STATEFULSET_COUNTERS, statefulSetCurrent),
  interpretHealth: (obj) => rolledOut(obj),
  // Claims the StatefulSet creates from its volumeClaimTemplates are the member's, not dependencies.
  getDependencies: (obj) => {
    const templates = new Set(records(at(obj, "spec", "volumeClaimTemplates")).map((t) => str(rec(t.metadata).name)));
    return templateDependencies(obj, "spec", "template", "spec").filter((d) => d.kind !== "PersistentVolumeClaim" || !templates.has(d.name ?? ""));
  },
};

const REPLICASET_COUNTERS = ["replicas", "readyReplicas", "availableReplicas"];

export const replicaSet: KindInterpreter = {
  getReplicas: (obj) => templateReplicas(obj),
  reviseReplica: (obj, n) => reviseSpecField(obj, "replicas", n),
  reflectStatus: (observed) => nonEmpty(wrappedStatus(observed, ["observedGeneration", ...REPLICASET_COUNTERS])),
  aggregateStatus: (obj, items) => sumCounters(obj, items, REPLICASET_COUNTERS, observedTemplateGeneration),
  interpretHealth: (obj) => {
    const want = specReplicas(obj);
    if (!generationObserved(obj)) return false;
    return want === undefined || int(status(obj).availableReplicas) >= want;
  },
  getDependencies: (obj) => templateDependencies(obj, "spec", "template", "spec"),
};

const DAEMONSET_COUNTERS = [
  "currentNumberScheduled",
  "desiredNumberScheduled",
  "numberAvailable",
  "numberMisscheduled",
  "numberReady",
  "updatedNumberScheduled",
  "numberUnavailable",
];

export const daemonSet: KindInterpreter = {
  reflectStatus: (observed) => wrappedStatus(observed, ["observedGeneration", ...DAEMONSET_COUNTERS]),
  aggregateStatus: (obj, items) => sumCounters(obj, items, DAEMONSET_COUNTERS, observedTemplateGeneration),
  interpretHealth: (obj) => {
    const s = status(obj);
    if (!generationObserved(obj)) return false;
    if (int(s.updatedNumberScheduled) < int(s.desiredNumberScheduled)) return false;
    return int(s.numberAvailable) >= int(s.updatedNumberScheduled);
  },
  getDependencies: (obj) => templateDependencies(obj, "spec", "template", "spec"),
};

/** Karmada reports no status for a Deployment or ReplicaSet whose reflected status is empty. */
function nonEmpty(s: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  return s === undefined || Object.keys(s).length === 0 ? undefined : s;
}
