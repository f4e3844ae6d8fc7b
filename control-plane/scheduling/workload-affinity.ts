// Karmada v1.19's placement.workloadAffinity: workloads whose templates share a label value (per
// namespace) go to the same clusters (affinity) or to different ones (antiAffinity). Both are
// hard: a cluster that breaks one takes no NEW copy. A cluster the workload already runs in stays a
// candidate (DESIGN §11: where another workload went is no intent about this one; Karmada's
// scheduler does not move a scheduled workload for it either). The first workload of an affinity
// group goes anywhere (Karmada's bootstrap rule). Pure: peers() comes from the caller's index.
import type { KubeObject, WorkloadAffinity } from "../../shared/api/types.ts";

/** The clusters the OTHER workloads of a group (label key = value, in the template's namespace) are placed on. */
export type GroupPeers = (key: string, value: string) => ReadonlySet<string>;

/** Which clusters the template may newly take, by its workload affinity; undefined: no restriction. */
export function workloadAffinityAllows(affinity: WorkloadAffinity | undefined, template: KubeObject, peers: GroupPeers, held: ReadonlySet<string>): ((cluster: string) => boolean) | undefined {
  if (affinity === undefined) return undefined;
  const labels = template.metadata.labels ?? {};
  const groupOf = (term: { groupByLabelKey: string } | undefined) => (term === undefined || !Object.hasOwn(labels, term.groupByLabelKey) ? undefined : peers(term.groupByLabelKey, labels[term.groupByLabelKey] as string));
  // A template without the label is in no group: the term does not apply to it.
  const together = groupOf(affinity.affinity);
  const apart = groupOf(affinity.antiAffinity);
  const bootstrap = together === undefined || together.size === 0;
  if (bootstrap && (apart === undefined || apart.size === 0)) return undefined;
  return (cluster) => held.has(cluster) || ((bootstrap || together.has(cluster)) && !(apart?.has(cluster) ?? false));
}
