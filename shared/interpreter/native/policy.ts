// PodDisruptionBudget (policy/v1) and HorizontalPodAutoscaler (autoscaling/v2), as Karmada's
// default interpreter reads them. Pure.
import type { KindInterpreter } from "../interpreter.ts";
import { copy, int, isRecord, type Json, rec } from "./object.ts";

const PDB_COUNTS = ["disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"];

export const podDisruptionBudget: KindInterpreter = {
  reflectStatus: (observed) => {
    if (!isRecord(observed.status)) return undefined;
    const s = observed.status;
    const out: Json = Object.fromEntries(PDB_COUNTS.map((f) => [f, int(s[f])]));
    if (isRecord(s.disruptedPods) && Object.keys(s.disruptedPods).length > 0) out.disruptedPods = { ...s.disruptedPods };
    return out;
  },
  // Counts summed; disrupted pods named `<cluster>/<pod>` so members' pods stay apart.
  aggregateStatus: (obj, items) => {
    const sums: Json = Object.fromEntries(PDB_COUNTS.map((f) => [f, 0]));
    const disrupted: Json = {};
    for (const item of items) {
      if (item.status === undefined) continue;
      for (const f of PDB_COUNTS) sums[f] = int(sums[f]) + int(item.status[f]);
      for (const [pod, time] of Object.entries(rec(item.status.disruptedPods))) disrupted[`${item.clusterName}/${pod}`] = time;
    }
    const out = copy(obj);
    out.status = Object.keys(disrupted).length > 0 ? { disruptedPods: disrupted, ...sums } : sums;
    return out;
  },
  interpretHealth: (obj) => int(rec(obj.status).currentHealthy) >= int(rec(obj.status).desiredHealthy),
};

export const horizontalPodAutoscaler: KindInterpreter = {
  reflectStatus: (observed) => {
    if (!isRecord(observed.status)) return undefined;
    return { currentReplicas: int(observed.status.currentReplicas), desiredReplicas: int(observed.status.desiredReplicas) };
  },
  // Each member's HPA scales its own share: the fleet's current and desired replicas are the sums.
  aggregateStatus: (obj, items) => {
    let currentReplicas = 0;
    let desiredReplicas = 0;
    for (const item of items) {
      if (item.status === undefined) continue;
      currentReplicas += int(item.status.currentReplicas);
      desiredReplicas += int(item.status.desiredReplicas);
    }
    const out = copy(obj);
    out.status = { currentReplicas, desiredReplicas };
    return out;
  },
};
