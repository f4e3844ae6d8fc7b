// A FederatedResourceQuota's staticAssignments as Works (pure, issue 26): each entry becomes a
// ResourceQuota named as the FederatedResourceQuota, in its namespace, in that cluster only (what
// Karmada's sync controller makes). The Works are keyed by the FederatedResourceQuota itself
// (flotilla.dev/v1alpha1/FederatedResourceQuota/<ns>/<name>): no binding renders them, so they
// never collide with a ResourceQuota template a user propagates, and their absence is judged
// here, from the user's intent on the FederatedResourceQuota (DESIGN §11).
import type { FederatedResourceQuota } from "../../shared/api/quota.ts";
import { contentHash } from "../../shared/content-hash.ts";
import { parseWorkKey, workKey } from "../../shared/work-key.ts";

/** The label on each member ResourceQuota: which FederatedResourceQuota it reflects (Karmada labels them too). */
export const QUOTA_LABEL = "flotilla.dev/federated-resource-quota";

/** How a quota Work applies: a member ResourceQuota of that name Flotilla does not own is left alone (AlreadyExists). */
const CONFLICT_RESOLUTION = "Abort";

const API_VERSION = "flotilla.dev/v1alpha1";
const KIND = "FederatedResourceQuota";

/** The Work key of a FederatedResourceQuota's ResourceQuotas (the same key in each assigned cluster). */
export function quotaWorkKey(namespace: string, name: string): string {
  return workKey({ apiVersion: API_VERSION, kind: KIND, namespace, name });
}

/** The namespace and name of the FederatedResourceQuota a Work key names, or undefined for any other Work. */
export function quotaOfWorkKey(key: string): { namespace: string; name: string } | undefined {
  if (!key.startsWith("flotilla.dev/v1alpha1/FederatedResourceQuota/")) return undefined;
  const ref = parseWorkKey(key);
  return ref.namespace === undefined ? undefined : { namespace: ref.namespace, name: ref.name };
}

/** One quota Work as the Work store holds it. */
export interface QuotaWork {
  key: string;
  hash: string;
  manifests: Buffer[];
  conflictResolution: string;
  templateGeneration?: number;
}

/** cluster → the Work that puts its ResourceQuota there, for each staticAssignments entry. */
export function quotaWorks(frq: FederatedResourceQuota): Map<string, QuotaWork> {
  const namespace = frq.metadata.namespace ?? "";
  const name = frq.metadata.name ?? "";
  const key = quotaWorkKey(namespace, name);
  const out = new Map<string, QuotaWork>();
  for (const a of frq.spec.staticAssignments ?? []) {
    const hard = Object.fromEntries(Object.entries(a.hard).map(([k, v]) => [k, String(v)]));
    const manifest = { apiVersion: "v1", kind: "ResourceQuota", metadata: { name, namespace, labels: { [QUOTA_LABEL]: name } }, spec: { hard } };
    const generation = frq.metadata.generation === undefined ? {} : { templateGeneration: frq.metadata.generation };
    out.set(a.clusterName, { key, hash: contentHash([[manifest], CONFLICT_RESOLUTION]), manifests: [Buffer.from(JSON.stringify(manifest))], conflictResolution: CONFLICT_RESOLUTION, ...generation });
  }
  return out;
}

/** What the control plane knows of a FederatedResourceQuota: unknown until its informer has listed. */
export type QuotaKnowledge = { known: false } | { known: true; frq: FederatedResourceQuota | undefined };

/**
 * Whether a cluster's agent may remove the ResourceQuota of a quota Work the store lacks, and why:
 * only on the user's intent seen on a synced informer (DESIGN §11). The FederatedResourceQuota
 * deleted (TemplateDeleted: it is these Works' template), its assignment for the cluster removed
 * (PlacementChanged), or the cluster unjoined. Never while the informer has not listed.
 */
export function quotaAbsenceIntent(cluster: { name: string; leaving: boolean }, quota: QuotaKnowledge): { reason: "TemplateDeleted" | "PlacementChanged" | "ClusterUnjoined"; preserve: false } | undefined {
  if (!quota.known) return undefined;
  if (cluster.leaving) return { reason: "ClusterUnjoined", preserve: false };
  const frq = quota.frq;
  if (frq === undefined || frq.metadata.deletionTimestamp !== undefined) return { reason: "TemplateDeleted", preserve: false };
  if (!(frq.spec.staticAssignments ?? []).some((a) => a.clusterName === cluster.name)) return { reason: "PlacementChanged", preserve: false };
  return undefined;
}
