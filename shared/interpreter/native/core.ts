// Core kinds (v1): Pod, Service, PersistentVolume, PersistentVolumeClaim, and the member-owned
// fields of ServiceAccounts and Secrets, as Karmada's default interpreter reads them. Pure.
import type { KubeObject } from "../../api/types.ts";
import type { KindInterpreter } from "../interpreter.ts";
import { hasAddress, mergeIngress } from "./load-balancer.ts";
import { at, condition, copy, int, isRecord, type Json, rec, records, statuses, str } from "./object.ts";
import { podDependencies, podReplicaRequirements } from "./pod-template.ts";
import { namespaceOf } from "./workload.ts";

/** The phase a set of member phases sums to: the first of `order` that any member is in ("" when none). */
function worstPhase(phases: ReadonlySet<string>, order: readonly string[]): string {
  return order.find((p) => phases.has(p)) ?? "";
}

export const pod: KindInterpreter = {
  getReplicas: (obj) => {
    const requires = podReplicaRequirements(rec(obj.spec), namespaceOf(obj));
    return requires === undefined ? { replicas: 1 } : { replicas: 1, requires };
  },
  // The member's scheduler and admission own the node, the service account and the volumes
  // they injected (a projected token volume and its mounts).
  retain: (desired, observed) => {
    const out = copy(desired);
    const spec = rec(out.spec);
    const live = rec(observed.spec);
    setOrDrop(spec, "nodeName", str(live.nodeName) === "" ? undefined : live.nodeName);
    setOrDrop(spec, "serviceAccountName", str(live.serviceAccountName) === "" ? undefined : live.serviceAccountName);
    setOrDrop(spec, "volumes", Array.isArray(live.volumes) && live.volumes.length > 0 ? structuredClone(live.volumes) : undefined);
    for (const list of ["containers", "initContainers"]) {
      const liveMounts = new Map(records(live[list]).map((c) => [str(c.name), c.volumeMounts]));
      for (const c of records(spec[list])) {
        if (!liveMounts.has(str(c.name))) continue;
        const mounts = liveMounts.get(str(c.name));
        setOrDrop(c, "volumeMounts", Array.isArray(mounts) && mounts.length > 0 ? structuredClone(mounts) : undefined);
      }
    }
    out.spec = spec;
    return out;
  },
  // The worst phase of any member (Failed, then Pending, then Running, then Succeeded); a member
  // not yet reporting counts as Pending. Container statuses keep only ready and state.
  aggregateStatus: (obj, items) => {
    if (items.length === 0) return copy(obj);
    const phases = new Set<string>();
    const containerStatuses: Json[] = [];
    const initContainerStatuses: Json[] = [];
    for (const item of items) {
      if (item.status === undefined) {
        phases.add("Pending");
        continue;
      }
      phases.add(str(item.status.phase));
      for (const c of records(item.status.containerStatuses)) containerStatuses.push(readyAndState(c));
      for (const c of records(item.status.initContainerStatuses)) initContainerStatuses.push(readyAndState(c));
    }
    const status: Json = {};
    const phase = worstPhase(phases, ["Failed", "Pending", "Running", "Succeeded"]);
    if (phase !== "") status.phase = phase;
    if (containerStatuses.length > 0) status.containerStatuses = containerStatuses;
    if (initContainerStatuses.length > 0) status.initContainerStatuses = initContainerStatuses;
    const out = copy(obj);
    out.status = status;
    return out;
  },
  interpretHealth: (obj) => {
    const status = rec(obj.status);
    if (status.phase === "Succeeded") return true;
    return status.phase === "Running" && condition(status, "Ready")?.status === "True";
  },
  getDependencies: (obj) => podDependencies(rec(obj.spec), namespaceOf(obj)),
};

function readyAndState(c: Json): Json {
  const out: Json = { ready: c.ready === true };
  if (isRecord(c.state)) out.state = structuredClone(c.state);
  return out;
}

function setOrDrop(target: Json, key: string, value: unknown): void {
  if (value === undefined) delete target[key];
  else target[key] = value;
}

const isLoadBalancer = (obj: KubeObject) => at(obj, "spec", "type") === "LoadBalancer";

export const service: KindInterpreter = {
  // The member's apiserver allocated the cluster IP and the health check node port; neither can change.
  retain: (desired, observed) => {
    const out = copy(desired);
    const spec = rec(out.spec);
    const port = int(at(observed, "spec", "healthCheckNodePort"));
    if (port > 0) spec.healthCheckNodePort = port;
    const clusterIP = str(at(observed, "spec", "clusterIP"));
    if (clusterIP !== "") spec.clusterIP = clusterIP;
    out.spec = spec;
    return out;
  },
  reflectStatus: (observed) => {
    if (!isLoadBalancer(observed) || !isRecord(observed.status)) return undefined;
    return { loadBalancer: structuredClone(rec(observed.status.loadBalancer)) };
  },
  aggregateStatus: (obj, items) => {
    if (!isLoadBalancer(obj)) return copy(obj);
    const ingress = mergeIngress(statuses(items), true);
    const out = copy(obj);
    out.status = { loadBalancer: ingress.length > 0 ? { ingress } : {} };
    return out;
  },
  interpretHealth: (obj) => !isLoadBalancer(obj) || hasAddress(rec(obj.status)),
};

export const persistentVolume: KindInterpreter = {
  // The member's controller manager binds the volume to a claim.
  retain: (desired, observed) => {
    const out = copy(desired);
    const claimRef = at(observed, "spec", "claimRef");
    if (claimRef !== undefined) out.spec = { ...rec(out.spec), claimRef: structuredClone(claimRef) };
    return out;
  },
  // The worst phase: Failed, Pending (also a member not yet reporting), Available, Bound, Released.
  aggregateStatus: (obj, items) => {
    const phases = new Set(items.map((i) => (i.status === undefined ? "Pending" : str(i.status.phase))));
    const phase = worstPhase(phases, ["Failed", "Pending", "Available", "Bound", "Released"]);
    const out = copy(obj);
    out.status = phase === "" ? {} : { phase };
    return out;
  },
};

export const persistentVolumeClaim: KindInterpreter = {
  // The member bound the claim to a volume of its own; the binding cannot change.
  retain: (desired, observed) => {
    const out = copy(desired);
    const volumeName = str(at(observed, "spec", "volumeName"));
    if (volumeName !== "") out.spec = { ...rec(out.spec), volumeName };
    return out;
  },
  // Bound when every member is; Lost when any is; otherwise the last other phase reported.
  aggregateStatus: (obj, items) => {
    let phase = "Bound";
    for (const s of statuses(items)) {
      if (s.phase === "Lost") {
        phase = "Lost";
        break;
      }
      if (s.phase !== "Bound") phase = str(s.phase);
    }
    const out = copy(obj);
    out.status = phase === "" ? {} : { phase };
    return out;
  },
  interpretHealth: (obj) => rec(obj.status).phase === "Bound",
};

export const serviceAccount: KindInterpreter = {
  // The member's token controller adds secrets; keep them next to the desired ones.
  retain: (desired, observed) => {
    const out = copy(desired);
    for (const field of ["secrets", "imagePullSecrets"]) {
      const merged = new Map<string, unknown>();
      for (const s of [...records(desired[field]), ...records(observed[field])]) {
        if (!merged.has(str(s.name))) merged.set(str(s.name), structuredClone(s));
      }
      setOrDrop(out as Json, field, merged.size > 0 ? [...merged.values()] : undefined);
    }
    return out;
  },
};

export const secret: KindInterpreter = {
  // A service account token's data is generated by the member's token controller.
  retain: (desired, observed) => {
    const out = copy(desired);
    if (desired.type === "kubernetes.io/service-account-token" && isRecord(observed.data)) out.data = structuredClone(observed.data);
    return out;
  },
};
