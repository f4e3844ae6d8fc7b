// The FederatedResourceQuota checks (issue 26): the quota object's own (what Karmada's webhook
// refuses and the CRD's schema cannot say: exact sums, resource names), and the templates' (a
// create, an update or a scale that would take the namespace past a quota's overall).
import type { FederatedResourceQuota } from "../../shared/api/quota.ts";
import type { KubeObject } from "../../shared/api/types.ts";
import { specProblems } from "../quota/quota-usage.ts";
import { type TemplateChange, templateQuotaRefusal } from "../quota/template-admission.ts";
import type { UsageSources } from "../quota/namespace-usage.ts";
import { type AdmissionRequest, type AdmissionResponse, denied, reviewSpec } from "./admission.ts";

/** A FederatedResourceQuota's review: quantities, names, assignments within overall (exactly), each cluster once. */
export const reviewFederatedResourceQuota = (req: AdmissionRequest): AdmissionResponse =>
  reviewSpec<FederatedResourceQuota>(req, "FederatedResourceQuota", (obj) => specProblems(obj.spec?.overall ?? {}, obj.spec?.staticAssignments ?? []));

/** The template a scale request changes, as stored (read live: the caches may not watch its kind). */
export type StoredTemplate = (req: AdmissionRequest) => Promise<KubeObject | undefined>;

/**
 * A template's review: CREATE and UPDATE of the object, or of its scale subresource (the stored
 * template with the Scale's spec.replicas). Allowed in a namespace without a quota.
 */
export async function reviewTemplateQuota(req: AdmissionRequest, src: UsageSources, stored: StoredTemplate): Promise<AdmissionResponse> {
  const allowed = { uid: req.uid, allowed: true };
  if ((req.operation !== "CREATE" && req.operation !== "UPDATE") || req.namespace === undefined) return allowed;
  if (src.caches.federatedResourceQuotas.list(req.namespace).length === 0) return allowed;
  let change: TemplateChange;
  if (req.subResource === "scale") {
    const replicas = (req.object as { spec?: { replicas?: unknown } } | undefined)?.spec?.replicas;
    const template = await stored(req);
    if (template === undefined || typeof replicas !== "number") return allowed;
    const scaled = structuredClone(template);
    (scaled as { spec?: Record<string, unknown> }).spec = { ...((scaled as { spec?: Record<string, unknown> }).spec ?? {}), replicas };
    change = { namespace: req.namespace, object: scaled, oldObject: template };
  } else {
    const object = req.object as KubeObject | undefined;
    if (typeof object !== "object" || object === null) return denied(req.uid, `${req.operation} without an object`, 400);
    const named = object.metadata?.name === undefined ? { ...object, metadata: { ...object.metadata, name: req.name } } : object;
    change = { namespace: req.namespace, object: named, ...(req.operation === "UPDATE" && req.oldObject !== undefined ? { oldObject: req.oldObject as KubeObject } : {}) };
  }
  const refusal = templateQuotaRefusal(src, change);
  return refusal === undefined ? allowed : denied(req.uid, refusal);
}
