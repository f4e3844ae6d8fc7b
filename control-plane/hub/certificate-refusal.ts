// Whether an agent's client certificate may still speak for its cluster (DESIGN §7: every
// certificate the control plane issues can be revoked, by being bound to its Cluster's uid).
import type { Cluster } from "../../shared/api/types.ts";

/** How to re-issue a certificate that is bound to no Cluster or to an earlier one. */
export function reissueHint(cluster: string): string {
  return `register the member again with a bootstrap token, or re-issue its certificate with \`flotilla certs agent --cluster ${cluster} --kubeconfig <control cluster kubeconfig>\``;
}

/**
 * Why a certificate naming `cluster` and bound to `certUid` (its OU; undefined when it has none)
 * may not connect, given the Cluster object of that name now; undefined when it may.
 * Deleting and re-creating a Cluster gives it a new uid, which revokes every certificate bound to
 * the old one. A certificate bound to no uid cannot be revoked that way, so it is refused unless
 * the control plane was told to accept such certificates (`allowWithoutUid`, for migration).
 */
export function certificateRefusal(cluster: string, certUid: string | undefined, current: Cluster | undefined, allowWithoutUid: boolean): string | undefined {
  if (current === undefined) return `cluster ${JSON.stringify(cluster)} is not registered (no Cluster object)`;
  if (certUid === undefined) {
    if (allowWithoutUid) return undefined;
    return `this certificate for cluster ${cluster} is bound to no Cluster uid (made by an older \`flotilla certs agent\`), so it could not be revoked and is refused; ${reissueHint(cluster)}`;
  }
  if (certUid !== current.metadata.uid) return `this certificate belongs to an earlier registration of cluster ${cluster} (Cluster uid ${certUid}; the Cluster now has ${current.metadata.uid ?? "none"}), which was unjoined or deleted: it is revoked; ${reissueHint(cluster)}`;
  return undefined;
}
