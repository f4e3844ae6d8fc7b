// Drops what the control cluster's apiserver set on a template before it is dispatched to members
// (DESIGN §2), as Karmada and KubeFed do: these fields either belong to the control cluster
// (uid, resourceVersion, owner references) or would be refused or misread by a member apiserver
// (a Service's allocated clusterIP, a Job's generated selector, a PVC bound to a PV it lacks).
import type { KubeObject } from "../../shared/api/types.ts";

const SERVER_SET_METADATA = [
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "managedFields",
  "ownerReferences",
  "selfLink",
  "finalizers",
] as const;

const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";
const JOB_CONTROLLER_UID_LABELS = ["controller-uid", "batch.kubernetes.io/controller-uid"];
const PVC_BINDING_ANNOTATIONS = [
  "pv.kubernetes.io/bind-completed",
  "pv.kubernetes.io/bound-by-controller",
  "volume.kubernetes.io/selected-node",
];

type Json = Record<string, unknown>;

/** A deep copy of the template without server-set fields; the input is never mutated. */
export function cleanTemplate(obj: KubeObject): KubeObject {
  const out = structuredClone(obj);
  const meta: unknown = out.metadata;
  if (isRecord(meta)) {
    for (const field of SERVER_SET_METADATA) delete meta[field];
    deleteKeys(meta, "annotations", [LAST_APPLIED]);
  }
  delete out.status;

  const kindKey = `${out.apiVersion}/${out.kind}`;
  const spec = isRecord(out.spec) ? out.spec : undefined;
  switch (kindKey) {
    case "v1/Service":
      if (spec) cleanService(spec);
      break;
    case "batch/v1/Job":
      if (isRecord(meta)) deleteKeys(meta, "labels", JOB_CONTROLLER_UID_LABELS);
      if (spec) cleanJob(spec);
      break;
    case "v1/ServiceAccount":
      delete out.secrets;
      break;
    case "v1/PersistentVolumeClaim":
      if (isRecord(meta)) deleteKeys(meta, "annotations", PVC_BINDING_ANNOTATIONS);
      if (spec) delete spec.volumeName;
      break;
  }
  return out;
}

function cleanService(spec: Json): void {
  // A headless Service's "None" is the user's choice, not an allocation: keep it.
  const headless = spec.clusterIP === "None" || (Array.isArray(spec.clusterIPs) && spec.clusterIPs.includes("None"));
  if (!headless) {
    delete spec.clusterIP;
    delete spec.clusterIPs;
  }
  // A NodePort or LoadBalancer Service may pin its nodePort on purpose; a ClusterIP one has none to
  // keep. An absent type is ClusterIP, the apiserver's default.
  const type = spec.type ?? "ClusterIP";
  if (type === "ClusterIP" && Array.isArray(spec.ports)) {
    for (const port of spec.ports) if (isRecord(port)) delete port.nodePort;
  }
}

function cleanJob(spec: Json): void {
  // The apiserver generates a selector on controller-uid; the member's apiserver generates its own.
  delete spec.selector;
  delete spec.manualSelector;
  const template = spec.template;
  if (isRecord(template) && isRecord(template.metadata)) {
    deleteKeys(template.metadata, "labels", JOB_CONTROLLER_UID_LABELS);
  }
}

// Deletes keys from the string map at parent[field], and the map itself if that empties it, so a
// template that only had server-set labels cleans to the same object as one that had none.
function deleteKeys(parent: Json, field: string, keys: readonly string[]): void {
  const map = parent[field];
  if (!isRecord(map)) return;
  let removed = false;
  for (const key of keys) {
    if (Object.hasOwn(map, key)) {
      delete map[key];
      removed = true;
    }
  }
  if (removed && Object.keys(map).length === 0) delete parent[field];
}

function isRecord(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
