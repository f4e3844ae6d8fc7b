// Every replica: each FederatedResourceQuota's staticAssignments as Works in the Work store (the
// hub serves them as any other), and the judge of their absence (DESIGN §11): a ResourceQuota
// leaves a member only when the user removed its assignment or the FederatedResourceQuota, as
// seen on the synced informer, or unjoined the cluster.
import type { FederatedResourceQuota } from "../../shared/api/quota.ts";
import { judgedLeaving } from "../../shared/cluster-unjoin.ts";
import type { Caches } from "../caches/caches.ts";
import type { WorkStore } from "../works/work-store.ts";
import { quotaAbsenceIntent, quotaOfWorkKey, quotaWorkKey, quotaWorks } from "./quota-works.ts";

/** Keeps the quota Works in line with the informer; returns a function that renders them all. */
export function syncQuotaWorks(caches: Caches, works: WorkStore): () => void {
  /** work key → the clusters that have its Work. */
  const placed = new Map<string, Set<string>>();
  const render = (frq: FederatedResourceQuota, gone: boolean) => {
    const key = quotaWorkKey(frq.metadata.namespace ?? "", frq.metadata.name ?? "");
    const now = gone || frq.metadata.deletionTimestamp !== undefined ? new Map() : quotaWorks(frq);
    for (const [cluster, work] of now) works.set(cluster, work);
    // Removed from the store; the hub asks quotaAbsenceIntent whether the agent removes it.
    for (const cluster of placed.get(key) ?? []) if (!now.has(cluster)) works.delete(cluster, key);
    if (now.size === 0) placed.delete(key);
    else placed.set(key, new Set(now.keys()));
  };
  caches.federatedResourceQuotas.on({ add: (q) => render(q, false), update: (q) => render(q, false), delete: (q) => render(q, true) });
  works.addSource({
    owns: (key) => quotaOfWorkKey(key) !== undefined,
    absenceIntent: (cluster, key) => {
      const ref = quotaOfWorkKey(key);
      if (ref === undefined) return undefined;
      const c = caches.clusters.get(cluster);
      const leaving = judgedLeaving(c);
      if (leaving === undefined) return undefined;
      const informer = caches.federatedResourceQuotas;
      const quota = informer.synced ? { known: true as const, frq: informer.get(ref.name, ref.namespace) } : { known: false as const };
      return quotaAbsenceIntent({ name: cluster, leaving }, quota);
    },
  });
  return () => {
    for (const q of caches.federatedResourceQuotas.list()) render(q, false);
  };
}
