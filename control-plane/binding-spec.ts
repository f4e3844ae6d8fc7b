// The desired ResourceBinding of a template: pure, so every replica computes the same object.
import {
  API_VERSION,
  type KubeObject,
  LABELS,
  type PropagationPolicy,
  type ResourceBinding,
  type ResourceBindingSpec,
  type TargetCluster,
} from "../shared/api/types.ts";
import { canonicalJson } from "../shared/content-hash.ts";

/** Holds a binding until every agent has confirmed the removal of its objects. */
export const BINDING_FINALIZER = "flotilla.dev/binding-cleanup";

/** Deterministic binding name, as Karmada names them: `<name>-<kind>`. */
export function bindingName(ref: { name: string; kind: string }): string {
  return `${ref.name}-${ref.kind.toLowerCase()}`;
}

/** The replica field of a workload template, if it has one. */
export function templateReplicas(template: KubeObject): number | undefined {
  const spec = template.spec as { replicas?: unknown } | undefined;
  return typeof spec?.replicas === "number" ? spec.replicas : undefined;
}

/** The binding a template should have under a policy, given its scheduled targets. */
export function desiredBinding(template: KubeObject, policy: PropagationPolicy, scheduled: TargetCluster[]): ResourceBinding {
  const namespaced = template.metadata.namespace !== undefined && template.metadata.namespace !== "";
  const replicas = templateReplicas(template);
  const targets: TargetCluster[] = [...scheduled].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const labels: Record<string, string> = { [LABELS.policyName]: policy.metadata.name ?? "" };
  if (policy.metadata.namespace) labels[LABELS.policyNamespace] = policy.metadata.namespace;
  return {
    apiVersion: API_VERSION,
    kind: namespaced ? "ResourceBinding" : "ClusterResourceBinding",
    metadata: {
      name: bindingName({ name: template.metadata.name ?? "", kind: template.kind }),
      ...(namespaced ? { namespace: template.metadata.namespace } : {}),
      labels,
      finalizers: [BINDING_FINALIZER],
      ownerReferences: [
        {
          apiVersion: template.apiVersion,
          kind: template.kind,
          name: template.metadata.name ?? "",
          uid: template.metadata.uid ?? "",
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      resource: {
        apiVersion: template.apiVersion,
        kind: template.kind,
        ...(namespaced ? { namespace: template.metadata.namespace } : {}),
        name: template.metadata.name ?? "",
        uid: template.metadata.uid ?? "",
      },
      ...(replicas === undefined ? {} : { replicas }),
      clusters: targets,
      ...(policy.spec.placement ? { placement: policy.spec.placement } : {}),
      conflictResolution: policy.spec.conflictResolution ?? "Abort",
      ...(policy.spec.suspension ? { suspension: policy.spec.suspension } : {}),
    },
  };
}

/** Whether dispatching to a cluster is suspended (the policy's suspension, copied to the binding). */
export function dispatchSuspended(spec: ResourceBindingSpec, cluster: string): boolean {
  return spec.suspension?.dispatching === true || (spec.suspension?.dispatchingOnClusters?.clusterNames ?? []).includes(cluster);
}

/** Whether an existing binding already says what desired says (then no write is needed). */
export function bindingUpToDate(existing: ResourceBinding, desired: ResourceBinding): boolean {
  const pick = (b: ResourceBinding) => ({
    labels: Object.fromEntries(Object.entries(b.metadata.labels ?? {}).filter(([k]) => k.startsWith("flotilla.dev/"))),
    finalizer: (b.metadata.finalizers ?? []).includes(BINDING_FINALIZER),
    owner: (b.metadata.ownerReferences ?? []).map((o) => o.uid),
    spec: b.spec,
  });
  return canonicalJson(pick(existing)) === canonicalJson(pick(desired));
}
