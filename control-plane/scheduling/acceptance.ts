// Acceptance (OCM's hubAcceptsClient): with --require-acceptance a new Cluster receives nothing
// until an admin accepts it (`flotillactl accept`). Pure.
import type { Cluster, TargetCluster } from "../../shared/api/types.ts";

/** Whether an admin accepted the cluster (`spec.hubAcceptsClient: true`). */
export function clusterAccepted(c: Cluster): boolean {
  return c.spec?.hubAcceptsClient === true;
}

/**
 * The clusters a template may be scheduled on. When acceptance is required, a cluster not yet
 * accepted is no new target; one the template is already on keeps it (like an untolerated
 * NoSchedule taint): turning acceptance on for a running fleet must never remove what runs
 * (DESIGN §11), while a new cluster, which holds nothing, gets nothing.
 */
export function admittedClusters(clusters: Cluster[], previous: TargetCluster[] | undefined, requireAcceptance: boolean): Cluster[] {
  if (!requireAcceptance) return clusters;
  const held = new Set((previous ?? []).map((t) => t.name));
  return clusters.filter((c) => clusterAccepted(c) || held.has(c.metadata.name ?? ""));
}
