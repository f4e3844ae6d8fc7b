// The binding controller's quota check (issue 26): a new schedule that would add use past a
// FederatedResourceQuota's overall is not written; the binding keeps its last schedule and says
// why (Karmada's Scheduled=False, QuotaExceeded). What the webhook cannot see lands here: a policy
// that duplicates a template to more clusters, a cluster that joins its placement, a template
// written while no webhook was configured. Nothing that runs is removed (DESIGN §11).
import type { KubeObject, ResourceBinding } from "../../shared/api/types.ts";
import { bindingWorkloads, namespaceWorkloads, type UsageSources } from "./namespace-usage.ts";
import { quotaRefusal } from "./quota-admission.ts";

/** Why `desired` may not replace `existing`, or undefined. */
export function scheduleGuard(src: UsageSources): (template: KubeObject, existing: ResourceBinding | undefined, desired: ResourceBinding) => string | undefined {
  return (template, existing, desired) => {
    const namespace = desired.metadata.namespace;
    if (namespace === undefined) return undefined;
    const quotas = src.caches.federatedResourceQuotas.list(namespace);
    if (quotas.length === 0) return undefined;
    const before = existing === undefined ? [] : bindingWorkloads(existing, template, src.interpreters);
    const after = bindingWorkloads(desired, template, src.interpreters);
    const others = namespaceWorkloads(src, namespace, { except: desired.spec.resource });
    return quotaRefusal({ quotas, others, before, after }, `${template.kind} ${template.metadata.name ?? ""}`);
  };
}
