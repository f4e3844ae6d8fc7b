// Whether the hub may tell an agent to delete a Work it holds, and why (DESIGN §11): pure.
// Only the user's lasting intent, seen on synced informers, removes a member's objects. A Work
// that is merely missing from the hub's store (its template of a kind not watched yet, a render
// that failed, a suspended cluster, a control plane that just started) is not deleted.
import type { KubeObject, ResourceBinding } from "../../shared/api/types.ts";

/** What the control plane knows of a template: unknown while its kind's informer is not synced. */
export type TemplateKnowledge = { known: false } | { known: true; template: KubeObject | undefined };

export type DeletionReason = "TemplateDeleted" | "NotPropagated" | "PlacementChanged" | "ClusterUnjoined";

export interface DeletionIntent {
  reason: DeletionReason;
  /** Leave the objects in the member without Flotilla's label (preserveResourcesOnDeletion). */
  preserve: boolean;
}

/**
 * The intent behind the absence of a Work for a cluster, or undefined when there is none (the
 * agent keeps the Work). binding: the template's binding from the synced binding informer.
 */
export function deletionIntent(cluster: { name: string; leaving: boolean }, binding: ResourceBinding | undefined, template: TemplateKnowledge): DeletionIntent | undefined {
  const templateGone = template.known && (template.template === undefined || template.template.metadata.deletionTimestamp !== undefined);
  // Unknown counts as gone here: preserving is the protective side.
  const preserve = binding?.spec.preserveResourcesOnDeletion === true && (templateGone || !template.known);
  if (binding === undefined) return { reason: templateGone ? "TemplateDeleted" : "NotPropagated", preserve: false };
  if (binding.metadata.deletionTimestamp !== undefined) return { reason: templateGone || !template.known ? "TemplateDeleted" : "NotPropagated", preserve };
  if (!binding.spec.clusters.some((t) => t.name === cluster.name)) return { reason: cluster.leaving ? "ClusterUnjoined" : "PlacementChanged", preserve: false };
  if (templateGone) return { reason: "TemplateDeleted", preserve };
  return undefined;
}
