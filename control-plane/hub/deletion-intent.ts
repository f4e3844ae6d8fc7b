// Whether the hub may tell an agent to delete a Work it holds, and why (DESIGN §11): pure.
// Only the user's lasting intent, seen on synced informers, removes a member's objects. A Work
// that is merely missing from the hub's store (its template of a kind not watched yet, a render
// that failed, a suspended cluster, a control plane that just started, a binding deleted by hand
// or lost in a restore) is not deleted.
import { type KubeObject, LABELS, type ResourceBinding } from "../../shared/api/types.ts";
import { templateKeyOfBinding } from "../../shared/work-key.ts";
import { requiresOf } from "../../shared/workload-requires.ts";

/** What the control plane knows of a template: unknown while its kind's informer is not synced. */
export type TemplateKnowledge = { known: false } | { known: true; template: KubeObject | undefined };

export type DeletionReason = "TemplateDeleted" | "DependencyReleased" | "PlacementChanged" | "ClusterUnjoined";

export interface DeletionIntent {
  reason: DeletionReason;
  /** Leave the objects in the member without Flotilla's label (preserveResourcesOnDeletion). */
  preserve: boolean;
  /** No binding says whether to preserve (it is gone): the agent's own record of the Work decides. */
  preserveUnknown?: true;
  /** The Work key of a workload that requires it there: the removal waits for that one to go first (workloadInTheWay). */
  waitsFor?: string;
}

/**
 * How long a cluster must have been Ready before it is told to remove what its placement dropped:
 * long enough for the scheduler to have placed it again after it returned. The default of
 * --cluster-ready-settle-period.
 */
export const READY_SETTLE_MS = 10_000;

/** The cluster a Work's absence is judged for. */
export interface JudgedCluster {
  name: string;
  /** Unjoining (its Cluster deleted, or gone). */
  leaving: boolean;
  /** How long it has been Ready: 0 when it is not Ready, Infinity when Ready with no known time. */
  readyForMs: number;
  /** False while --require-acceptance waits for an admin to accept it (a member that registered again). */
  accepted?: boolean;
}

/** What the hub knows of the workloads that may need a template in a cluster (its dependents). */
export interface Dependents {
  /**
   * The bindings of the workloads that may need it: those its binding's requiredBy names, and
   * those whose binding says, under propagateDeps, that they require it (shared/workload-requires.ts).
   * Asked only when a placement dropped the cluster.
   */
  needing: () => readonly ResourceBinding[];
  /** Whether the cluster's agent still holds a Work (by key): the workload still runs there. */
  runs: (workKey: string) => boolean;
}

const NO_DEPENDENTS: Dependents = { needing: () => [], runs: () => false };

/** How soon a removal waiting for a workload is judged again, whatever happened meanwhile (a workload's own removal sent judges it at once). */
export const DEPENDENT_RECHECK_MS = 30_000;

/**
 * The Work key of a workload that requires this template in the cluster and is placed there (not
 * being deleted), or still runs there (its own removal not sent yet: held, or judged after this
 * one; also one being deleted), or undefined. For a released template (`released`), one still
 * placed there counts only while its binding says it requires it.
 * Requires: its binding says it refers to it (LABELS.requires, also after its policy stopped
 * propagating dependencies), or it is under propagateDeps, or the template's requiredBy names it
 * (it held it there without propagateDeps). The template's removal waits for that workload to go first, and for the
 * dependency's binding to follow its workloads' (the binding controller writes it a moment later):
 * issue 37, found by the deletion model.
 */
export function workloadInTheWay(binding: ResourceBinding, cluster: string, dependents: Dependents, released = false): string | undefined {
  const self = templateKeyOfBinding(binding);
  for (const w of dependents.needing()) {
    const key = templateKeyOfBinding(w);
    if (key === self) continue; // a script that names its own object
    const placed = w.metadata.deletionTimestamp === undefined && w.spec.clusters.some((t) => t.name === cluster);
    if (!placed && !dependents.runs(key)) continue;
    const refers = requiresOf(w).includes(self);
    // Released, its requiredBy is as it was then: a workload still placed there no longer refers to it
    // (else it would not be released), unless its binding, written since, says it does.
    if (released && placed && !refers) continue;
    if (refers || w.spec.propagateDeps === true || binding.spec.requiredBy?.some((r) => r.name === w.metadata.name) === true) return key;
  }
  return undefined;
}

/**
 * The intent behind the absence of a Work for a cluster, or undefined when there is none (the
 * agent keeps the Work). binding: the template's binding from the synced binding informer;
 * dependents: the workloads that may need it there (Dependents).
 * Intent is one of: the template seen deleted; a binding that no longer places the template on
 * the cluster; a binding the control plane deleted on purpose and said why on
 * (`flotilla.dev/released-because`: a dependency no parent needs). Never intent: a missing
 * binding, or one deleted by hand, while the template lives (it is made again); a binding being
 * deleted while the template's kind has not listed (absence counts only from a synced informer);
 * a placement that dropped the cluster while it is not Ready, or Ready again for less than
 * settleMs (--cluster-ready-settle-period); a binding whose clusters were never decided
 * (LABELS.placementUnknown: made again while its policy is held or a quota exceeded);
 * (a placement that dropped a cluster where a workload that requires the template is placed, or
 * still runs, is intent that waits for that workload to go first: waitsFor); anything a cluster not accepted yet runs that its placement does not name (--require-acceptance:
 * a member that registered again is held as it is, neither given nor told to remove anything,
 * until an admin accepts it; then its absences are judged again), unless it is leaving.
 */
export function deletionIntent(cluster: JudgedCluster, binding: ResourceBinding | undefined, template: TemplateKnowledge, settleMs: number, dependents: Dependents = NO_DEPENDENTS): DeletionIntent | undefined {
  const templateGone = knownGone(template);
  const preserve = binding?.spec.preserveResourcesOnDeletion === true;
  // Not accepted (--require-acceptance): no admin has vouched for this member yet, so the hub acts
  // on nothing it runs, as it sends it nothing (DESIGN §7; OCM's hubAcceptsClient). Only what its
  // placement still names (placed before acceptance was required: it keeps getting those Works)
  // follows its template, and an unjoin still cleans up.
  const placedHere = binding?.spec.clusters.some((t) => t.name === cluster.name) === true;
  if (cluster.accepted === false && !cluster.leaving && !placedHere) return undefined;
  if (binding === undefined) return templateGone ? { reason: "TemplateDeleted", preserve: false, preserveUnknown: true } : undefined;
  if (binding.metadata.deletionTimestamp !== undefined) {
    if (templateGone) return { reason: "TemplateDeleted", preserve };
    const released = binding.metadata.annotations?.[LABELS.releasedBecause] !== undefined;
    if (!template.known || !released) return undefined;
    // Released (no workload requires it now): still after any workload that required it and runs there (being deleted, its removal held).
    const waitsFor = workloadInTheWay(binding, cluster.name, dependents, true);
    return { reason: "DependencyReleased", preserve: false, ...(waitsFor === undefined ? {} : { waitsFor }) };
  }
  if (!placedHere) {
    if (cluster.leaving) return { reason: "ClusterUnjoined", preserve: false };
    // Clusters never decided (a binding made again while its policy is held or over quota) drop nobody.
    if (binding.metadata.annotations?.[LABELS.placementUnknown] !== undefined) return undefined;
    // A placement that dropped a cluster while it was not Ready dropped it because of readiness:
    // never sent there; decided again once it has been Ready long enough to be placed again.
    if (cluster.readyForMs < settleMs) return undefined;
    const waitsFor = workloadInTheWay(binding, cluster.name, dependents);
    return { reason: "PlacementChanged", preserve: false, ...(waitsFor === undefined ? {} : { waitsFor }) };
  }
  if (templateGone) return { reason: "TemplateDeleted", preserve };
  return undefined;
}

/** The template seen deleted, or being deleted, on its synced informer. */
function knownGone(template: TemplateKnowledge): boolean {
  return template.known && (template.template === undefined || template.template.metadata.deletionTimestamp !== undefined);
}

/**
 * Whether the template's state decides the absence of its Work alike on every cluster, whatever
 * the cluster's placement: the template known gone and its binding missing or being deleted. The
 * judge then answers TemplateDeleted (or keeps, for a cluster not accepted yet that the placement
 * does not name). An absence kept earlier (a binding deleted by hand) is judged again then
 * (kept-absences.ts); never on a binding made again, whose placement has none of the old one's
 * history.
 */
export function templateDeletionDecided(binding: ResourceBinding | undefined, template: TemplateKnowledge): boolean {
  return knownGone(template) && (binding === undefined || binding.metadata.deletionTimestamp !== undefined);
}
