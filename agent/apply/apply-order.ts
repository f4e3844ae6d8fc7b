// The order an agent applies a Work's manifests in (as OCM's work agent and Helm do): what others
// depend on first, so a Deployment finds its Namespace, ServiceAccount and ConfigMap already there
// and a custom resource finds its CRD. Kinds are matched with their API group, so a CRD that
// happens to define a kind named "Service" sorts with the other custom resources.
import type { KubeObject } from "../../shared/api/types.ts";

const ORDER = [
  "core/Namespace",
  "apiextensions.k8s.io/CustomResourceDefinition",
  "scheduling.k8s.io/PriorityClass",
  "core/ResourceQuota",
  "core/LimitRange",
  "core/ServiceAccount",
  "core/Secret",
  "core/ConfigMap",
  "storage.k8s.io/StorageClass",
  "core/PersistentVolume",
  "core/PersistentVolumeClaim",
  "rbac.authorization.k8s.io/ClusterRole",
  "rbac.authorization.k8s.io/ClusterRoleBinding",
  "rbac.authorization.k8s.io/Role",
  "rbac.authorization.k8s.io/RoleBinding",
  "core/Service",
  "apps/DaemonSet",
  "apps/Deployment",
  "apps/ReplicaSet",
  "apps/StatefulSet",
  "batch/Job",
  "batch/CronJob",
];
const RANK = new Map(ORDER.map((groupKind, i) => [groupKind, i]));

function rank(obj: KubeObject): number {
  const slash = obj.apiVersion.indexOf("/");
  const group = slash < 0 ? "core" : obj.apiVersion.slice(0, slash);
  return RANK.get(`${group}/${obj.kind}`) ?? ORDER.length;
}

/** A new array in apply order: Namespaces and CRDs first, workloads late, other kinds last; ties keep input order. */
export function applyOrder(manifests: readonly KubeObject[]): KubeObject[] {
  return manifests.toSorted((a, b) => rank(a) - rank(b));
}

/** A new array in delete order: exactly the reverse of applyOrder. */
export function deleteOrder(manifests: readonly KubeObject[]): KubeObject[] {
  return applyOrder(manifests).reverse();
}
