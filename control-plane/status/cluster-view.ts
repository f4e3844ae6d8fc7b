// The clusters one binding's status reads, and what the status controller needs of each: whether
// it exists, whether it is Ready, whether this replica writes its entry. Only the clusters the
// binding involves are looked up, so a reconcile costs the binding's size, not the fleet's. Pure.
import type { Cluster } from "../../shared/api/types.ts";
import { clusterReady } from "../scheduling/placement.ts";

export interface ClusterView {
  /** The clusters that exist (an entry of an unjoined one is released). */
  existing: Set<string>;
  /** Those whose Ready condition is not True. */
  notReady: Set<string>;
  /** Those whose entries this replica writes (see StatusController). */
  owned: Set<string>;
}

export function clusterView(input: {
  names: Iterable<string>;
  clusterNamed: (name: string) => Cluster | undefined;
  /** Whether this replica writes the cluster's entry in this binding (writesEntry; `deleting`: the binding is being deleted). */
  heardHere: (cluster: string, deleting: boolean) => boolean;
  /** The binding is being deleted. */
  deleting?: boolean;
  leader: boolean;
}): ClusterView {
  const view: ClusterView = { existing: new Set(), notReady: new Set(), owned: new Set() };
  for (const name of new Set(input.names)) {
    const c = input.clusterNamed(name);
    if (c === undefined) continue;
    view.existing.add(name);
    const ready = clusterReady(c);
    if (!ready) view.notReady.add(name);
    // The leader also writes for not-Ready clusters that no replica hears.
    if (input.heardHere(name, input.deleting === true) || (input.leader && !ready)) view.owned.add(name);
  }
  return view;
}

/**
 * Issue 42: whether this replica writes a cluster's entry, besides the leader's not-Ready clusters
 * no replica hears. A replica writes those it hears (its agent streams here, or did last), unless
 * a following leader takes them from it (handed: the leader writes them); the leader also writes
 * those it takes from other replicas, or took and carries since (forwarded-clusters.ts). On a
 * deleting binding a replica keeps writing what it hears even while handed: its apply leaving the
 * entry out would remove it (this replica's field manager may be its only owner: the leader says it
 * takes a cluster before its own apply writes it, and a leader that dies meanwhile never does), and
 * a deleting binding's finalizer is released once no entry waits for a removal.
 */
export function writesEntry(input: { heard: boolean; leader: boolean; handed: boolean; forwarded: boolean; deleting?: boolean }): boolean {
  if (input.forwarded) return true;
  return input.heard && (input.leader || !input.handed || input.deleting === true);
}
