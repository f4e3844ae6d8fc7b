// What `flotillactl promote` writes to the control cluster (pure): the member's object as a
// template, and the policy that places exactly it on exactly that member with conflictResolution
// Overwrite, so the member's agent adopts the running object by server-side apply: same uid, and
// the same spec, so no rollout. Karmada's karmadactl promote is the model (its policy also keeps the
// member's object when the template is deleted: preserveResourcesOnDeletion).
import { createHash } from "node:crypto";
import { cleanTemplate } from "../../control-plane/rendering/clean-template.ts";
import { API_VERSION, type KubeObject, LABELS, type PropagationPolicy } from "../../shared/api/types.ts";

/** An annotation the member's Deployment controller sets on what it runs: its, not the template's. */
const MEMBER_SET_ANNOTATIONS = ["deployment.kubernetes.io/revision"];

/** The member's object as a template: what its apiserver and controllers set removed (uid, resourceVersion, status, managedFields, ownerReferences...). */
export function templateOf(member: KubeObject): KubeObject {
  const t = cleanTemplate(member);
  const annotations = Object.fromEntries(Object.entries(t.metadata.annotations ?? {}).filter(([k]) => !MEMBER_SET_ANNOTATIONS.includes(k)));
  const { annotations: _, ...meta } = t.metadata;
  return { ...t, metadata: { ...meta, ...(Object.keys(annotations).length > 0 ? { annotations } : {}) } };
}

/** Why the member's object cannot be promoted (undefined: it can). */
export function notPromotable(member: KubeObject, cluster: string): string | undefined {
  const labels = member.metadata.labels ?? {};
  if (labels[LABELS.work] !== undefined) return `${cluster}'s ${describe(member)} is already propagated by Flotilla (label ${LABELS.work}): its template is in the control cluster`;
  if (labels[LABELS.managed] === "false") return `${cluster}'s ${describe(member)} is labelled ${LABELS.managed}=false: Flotilla leaves it alone; remove the label to promote it`;
  if ((member.metadata.ownerReferences ?? []).length > 0) return `${cluster}'s ${describe(member)} is owned by another object (ownerReferences): promote its owner instead`;
  return undefined;
}

/** The policy's name when --policy-name is not given: the object's name and a digest of what it is (Karmada's shape). */
export function defaultPolicyName(apiVersion: string, kind: string, namespace: string | undefined, name: string): string {
  const digest = createHash("sha256").update(`${apiVersion}/${kind}/${namespace ?? ""}/${name}`).digest("hex").slice(0, 8);
  return `${name.slice(0, 253 - 9)}-${digest}`;
}

/**
 * A PropagationPolicy (ClusterPropagationPolicy for a cluster-scoped object) placing exactly this
 * object on exactly this cluster: Overwrite adopts the member's object; preserveResourcesOnDeletion
 * keeps it in the member if the template is deleted (it ran before Flotilla knew it).
 */
export function promotionPolicy(template: KubeObject, cluster: string, policyName: string): PropagationPolicy {
  const namespace = template.metadata.namespace;
  return {
    apiVersion: API_VERSION,
    kind: namespace === undefined ? "ClusterPropagationPolicy" : "PropagationPolicy",
    metadata: { name: policyName, ...(namespace === undefined ? {} : { namespace }) },
    spec: {
      resourceSelectors: [{ apiVersion: template.apiVersion, kind: template.kind, name: template.metadata.name ?? "" }],
      placement: { clusterAffinity: { clusterNames: [cluster] } },
      conflictResolution: "Overwrite",
      preserveResourcesOnDeletion: true,
    },
  } as PropagationPolicy;
}

/** kind namespace/name, as messages say it. */
export function describe(o: KubeObject): string {
  return `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata.name ?? ""}`;
}
