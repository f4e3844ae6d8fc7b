// What to do with the ClusterProfile of one name, from the Cluster of that name and the profile
// served (both from synced caches). Pure; the controller does what it says. A profile is Flotilla's
// only when its x-k8s.io/cluster-manager label and spec.clusterManager.name both say flotilla: any
// other is another cluster manager's (or a person's) and is never written or deleted. Flotilla's
// profile goes only when its Cluster is gone (the intent: the Cluster was deleted; the controller
// confirms the absence at the apiserver before it deletes, and deletes that uid and version only).
import { canonicalJson } from "../../shared/content-hash.ts";
import type { Cluster } from "../../shared/api/types.ts";
import { type ClusterProfile, type DesiredProfile, desiredProfile, isFlotillas, managerOf, type MemberAccess, ownedStatus } from "./cluster-profile.ts";

export type ProfileDecision =
  /** Nothing to write. */
  | { action: "none"; reason: string }
  /** Another manager's profile holds the name: left as it is; `clusterWaits` when a Cluster of that name gets no profile because of it. */
  | { action: "foreign"; reason: string; manager: string; clusterWaits: boolean }
  /** No profile: create it (labels, spec), then write its status. */
  | { action: "create"; reason: string; desired: DesiredProfile }
  /** Flotilla's profile, its status out of date: write the status (its owned part only). */
  | { action: "status"; reason: string; desired: DesiredProfile }
  /** Flotilla's profile of a Cluster that is gone: delete that object (uid and version). */
  | { action: "delete"; reason: string; target: { uid: string; resourceVersion: string } };

/**
 * One name's decision. `cluster` and `served` are what the synced caches hold (undefined: none);
 * `access` is the member API, when the control plane serves one; `now` stamps a condition that changed.
 */
export function decideProfile(cluster: Cluster | undefined, served: ClusterProfile | undefined, o: { namespace: string; access?: MemberAccess; now: string }): ProfileDecision {
  if (served !== undefined && !isFlotillas(served)) {
    const manager = managerOf(served);
    const where = `${served.metadata.namespace ?? o.namespace}/${served.metadata.name ?? ""}`;
    return cluster === undefined
      ? { action: "foreign", reason: `the ClusterProfile ${where} is cluster manager ${manager}'s, not Flotilla's: left as it is`, manager, clusterWaits: false }
      : { action: "foreign", reason: `the ClusterProfile ${where} is cluster manager ${manager}'s, not Flotilla's: Flotilla publishes no profile for this cluster while it is there`, manager, clusterWaits: true };
  }
  if (cluster === undefined) {
    if (served === undefined) return { action: "none", reason: "no Cluster and no profile" };
    if (served.metadata.deletionTimestamp !== undefined) return { action: "none", reason: "the profile is being deleted already" };
    const { uid, resourceVersion } = served.metadata;
    if (uid === undefined || resourceVersion === undefined) return { action: "none", reason: "the served profile has no uid or resourceVersion to delete it by" };
    return { action: "delete", reason: "its Cluster is gone (deleted): Flotilla's profile of it goes too", target: { uid, resourceVersion } };
  }
  if (served === undefined) return { action: "create", reason: "a Cluster without a profile", desired: desiredProfile(cluster, { namespace: o.namespace, ...(o.access ? { access: o.access } : {}), now: o.now }) };
  if (served.metadata.deletionTimestamp !== undefined) return { action: "none", reason: "the profile is being deleted: it is made again once it is gone" };
  // spec (displayName, clusterManager) is written at creation only: clusterManager is immutable,
  // and KEP-4322 leaves displayName to the profile's consumers, so a person's change stays.
  const desired = desiredProfile(cluster, { namespace: o.namespace, ...(o.access ? { access: o.access } : {}), served, now: o.now });
  if (canonicalJson(ownedStatus(served.status)) === canonicalJson(ownedStatus(desired.status))) return { action: "none", reason: "the profile is up to date" };
  return { action: "status", reason: "the Cluster changed", desired };
}
