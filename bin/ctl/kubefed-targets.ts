// Which kind a KubeFed Federated type wraps, and objects whose kind has moved on since KubeFed wrote
// them (an Ingress's extensions/v1beta1 backend, apps/v1beta2, batch/v1beta1 ...) brought to the
// version current Kubernetes serves, as the apiserver's own conversion would (issue 39). Pure.
import type { KubeObject } from "../../shared/api/types.ts";

/** A Federated type's target: what its FederatedTypeConfig names (`spec.targetType`), or what KubeFed's defaults were. */
export interface TargetType {
  apiVersion: string;
  kind: string;
  namespaced: boolean;
}

/** The kinds `kubefedctl enable` federated by default and the ones users enabled most, at the version current Kubernetes serves. */
const KNOWN: readonly TargetType[] = [
  { apiVersion: "v1", kind: "ConfigMap", namespaced: true },
  { apiVersion: "v1", kind: "Secret", namespaced: true },
  { apiVersion: "v1", kind: "Service", namespaced: true },
  { apiVersion: "v1", kind: "ServiceAccount", namespaced: true },
  { apiVersion: "v1", kind: "Namespace", namespaced: false },
  { apiVersion: "v1", kind: "PersistentVolumeClaim", namespaced: true },
  { apiVersion: "v1", kind: "LimitRange", namespaced: true },
  { apiVersion: "v1", kind: "ResourceQuota", namespaced: true },
  { apiVersion: "apps/v1", kind: "Deployment", namespaced: true },
  { apiVersion: "apps/v1", kind: "ReplicaSet", namespaced: true },
  { apiVersion: "apps/v1", kind: "StatefulSet", namespaced: true },
  { apiVersion: "apps/v1", kind: "DaemonSet", namespaced: true },
  { apiVersion: "batch/v1", kind: "Job", namespaced: true },
  { apiVersion: "batch/v1", kind: "CronJob", namespaced: true },
  { apiVersion: "networking.k8s.io/v1", kind: "Ingress", namespaced: true },
  { apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", namespaced: true },
  { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", namespaced: false },
  { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRoleBinding", namespaced: false },
  { apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", namespaced: true },
  { apiVersion: "rbac.authorization.k8s.io/v1", kind: "RoleBinding", namespaced: true },
  { apiVersion: "autoscaling/v2", kind: "HorizontalPodAutoscaler", namespaced: true },
  { apiVersion: "policy/v1", kind: "PodDisruptionBudget", namespaced: true },
  { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", namespaced: false },
  { apiVersion: "storage.k8s.io/v1", kind: "StorageClass", namespaced: false },
  { apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass", namespaced: false },
];

/** The FederatedTypeConfigs' targets by Federated kind (`spec.federatedType.kind` → `spec.targetType`). */
export function targetsOfTypeConfigs(configs: readonly KubeObject[]): Map<string, TargetType> {
  const out = new Map<string, TargetType>();
  for (const c of configs) {
    const spec = c.spec as { federatedType?: { kind?: string }; targetType?: { group?: string; version?: string; kind?: string; scope?: string } } | undefined;
    const t = spec?.targetType;
    if (t?.kind === undefined || t.version === undefined) continue;
    const federated = spec?.federatedType?.kind ?? `Federated${t.kind}`;
    out.set(federated, { apiVersion: t.group ? `${t.group}/${t.version}` : t.version, kind: t.kind, namespaced: t.scope !== "Cluster" });
  }
  return out;
}

/**
 * The target of a Federated kind: its FederatedTypeConfig's, else the template's own apiVersion
 * (with the known scope), else the known kinds'; undefined when none says.
 */
export function targetOf(federatedKind: string, template: { apiVersion?: unknown } | undefined, configs: ReadonlyMap<string, TargetType>): TargetType | undefined {
  const fromConfig = configs.get(federatedKind);
  if (fromConfig !== undefined) return fromConfig;
  if (!federatedKind.startsWith("Federated") || federatedKind.length === "Federated".length) return undefined;
  const kind = federatedKind.slice("Federated".length);
  const known = KNOWN.find((k) => k.kind === kind);
  if (typeof template?.apiVersion === "string" && template.apiVersion !== "") return { apiVersion: template.apiVersion, kind, namespaced: known?.namespaced ?? true };
  return known;
}

/** apiVersions current Kubernetes no longer serves, and what serves each kind now (the same shape unless converted below). */
const MOVED: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  "extensions/v1beta1": { Ingress: "networking.k8s.io/v1", Deployment: "apps/v1", DaemonSet: "apps/v1", ReplicaSet: "apps/v1", NetworkPolicy: "networking.k8s.io/v1" },
  "networking.k8s.io/v1beta1": { Ingress: "networking.k8s.io/v1", IngressClass: "networking.k8s.io/v1" },
  "apps/v1beta1": { Deployment: "apps/v1", StatefulSet: "apps/v1" },
  "apps/v1beta2": { Deployment: "apps/v1", StatefulSet: "apps/v1", DaemonSet: "apps/v1", ReplicaSet: "apps/v1" },
  "batch/v1beta1": { CronJob: "batch/v1" },
  "batch/v2alpha1": { CronJob: "batch/v1" },
  "policy/v1beta1": { PodDisruptionBudget: "policy/v1" },
  "autoscaling/v2beta2": { HorizontalPodAutoscaler: "autoscaling/v2" },
  "rbac.authorization.k8s.io/v1beta1": { ClusterRole: "rbac.authorization.k8s.io/v1", ClusterRoleBinding: "rbac.authorization.k8s.io/v1", Role: "rbac.authorization.k8s.io/v1", RoleBinding: "rbac.authorization.k8s.io/v1" },
  "scheduling.k8s.io/v1beta1": { PriorityClass: "scheduling.k8s.io/v1" },
  "storage.k8s.io/v1beta1": { StorageClass: "storage.k8s.io/v1" },
};

/** apiVersions removed from Kubernetes whose objects need more than a new apiVersion, which this converter does not do. */
const REMOVED = ["extensions/v1beta1", "networking.k8s.io/v1beta1", "apps/v1beta1", "apps/v1beta2", "batch/v1beta1", "batch/v2alpha1", "policy/v1beta1", "autoscaling/v2beta1", "autoscaling/v2beta2", "rbac.authorization.k8s.io/v1beta1", "scheduling.k8s.io/v1beta1", "storage.k8s.io/v1beta1", "apiextensions.k8s.io/v1beta1", "admissionregistration.k8s.io/v1beta1"];

/**
 * The object at the version current Kubernetes serves: its apiVersion, and for an Ingress the v1
 * backend (`service: {name, port}`), `defaultBackend` and a `pathType` where none was given; a
 * Deployment, DaemonSet, ReplicaSet or StatefulSet of a beta group gets the selector the beta
 * defaulted from its pod labels. A problem when it is at a removed version this does not convert.
 */
export function currentVersion(o: KubeObject): { object: KubeObject; problem?: string } {
  const to = MOVED[o.apiVersion]?.[o.kind];
  if (to === undefined && REMOVED.includes(o.apiVersion)) return { object: o, problem: `${o.kind} in ${o.apiVersion} is no longer served by Kubernetes and not converted here: convert it by hand` };
  let object: KubeObject = to === undefined ? o : { ...o, apiVersion: to };
  // A template KubeFed's own examples wrote for the beta Ingress, sent to networking.k8s.io/v1 by its type config: converted too.
  if (object.kind === "Ingress" && object.apiVersion === "networking.k8s.io/v1") object = ingressV1(object);
  if (to !== undefined && ["Deployment", "DaemonSet", "ReplicaSet", "StatefulSet"].includes(o.kind)) object = withDefaultSelector(object);
  return { object };
}

type Backend = { serviceName?: unknown; servicePort?: unknown; resource?: unknown; service?: unknown };

function backendV1(b: Backend | undefined): unknown {
  if (b === undefined || b === null || typeof b !== "object") return b;
  if (b.serviceName === undefined) return b;
  const { serviceName, servicePort, ...rest } = b;
  const port = typeof servicePort === "number" || (typeof servicePort === "string" && /^[0-9]+$/.test(servicePort)) ? { number: Number(servicePort) } : { name: String(servicePort) };
  return { ...rest, service: { name: serviceName, port } };
}

function ingressV1(o: KubeObject): KubeObject {
  const spec = (o.spec ?? {}) as { backend?: Backend; defaultBackend?: unknown; rules?: { http?: { paths?: { backend?: Backend; pathType?: string }[] } }[] };
  const { backend, ...rest } = spec;
  const rules = Array.isArray(spec.rules)
    ? spec.rules.map((r) =>
        !Array.isArray(r?.http?.paths) ? r : { ...r, http: { ...r.http, paths: r.http.paths.map((p) => (typeof p !== "object" || p === null ? p : { ...p, pathType: p.pathType ?? "ImplementationSpecific", backend: backendV1(p.backend) })) } },
      )
    : spec.rules;
  return { ...o, spec: { ...rest, ...(backend !== undefined && spec.defaultBackend === undefined ? { defaultBackend: backendV1(backend) } : {}), ...(rules === undefined ? {} : { rules }) } };
}

function withDefaultSelector(o: KubeObject): KubeObject {
  const spec = (o.spec ?? {}) as { selector?: unknown; template?: { metadata?: { labels?: Record<string, string> } } };
  const labels = spec.template?.metadata?.labels;
  if (spec.selector !== undefined || labels === undefined) return o;
  return { ...o, spec: { ...spec, selector: { matchLabels: { ...labels } } } };
}
