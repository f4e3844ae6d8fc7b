// The label on each control-cluster namespace that has a FederatedResourceQuota (issue 26): the
// templates' quota webhook takes only those namespaces (its namespaceSelector), so that, failing
// closed, an outage never blocks templates in a namespace without a quota. The leader keeps it with
// a merge patch (which never creates a namespace that is gone, as an apply would).
import type { Logger } from "pino";
import { Controller } from "../../shared/controller.ts";
import { isKubeStatus, type KubeRest } from "../../shared/kube-rest.ts";
import type { Caches } from "../caches/caches.ts";

/** The label (value "true") on a namespace with at least one FederatedResourceQuota. */
export const QUOTA_NAMESPACE_LABEL = "flotilla.dev/has-federated-resource-quota";
const FIELD_MANAGER = "flotilla-quota-namespaces";

/** Whether the namespace should carry the label: it holds a FederatedResourceQuota not being deleted. */
export function wantsLabel(quotas: readonly { metadata: { deletionTimestamp?: string } }[]): boolean {
  return quotas.some((q) => q.metadata.deletionTimestamp === undefined);
}

/** The leader's controller: one key per namespace, applied when a quota comes or goes there. */
export function namespaceLabeler(opts: { caches: Caches; rest: KubeRest; log: Logger }): Controller {
  const applied = new Map<string, boolean>();
  const controller = new Controller({
    name: "quota-namespaces",
    log: opts.log,
    reconcile: async (namespace) => {
      const want = wantsLabel(opts.caches.federatedResourceQuotas.list(namespace));
      if (applied.get(namespace) === want) return undefined;
      const patch = { metadata: { labels: { [QUOTA_NAMESPACE_LABEL]: want ? "true" : null } } };
      try {
        await opts.rest.mergePatch(`/api/v1/namespaces/${encodeURIComponent(namespace)}`, patch, FIELD_MANAGER);
      } catch (err) {
        if (!isKubeStatus(err, 404)) throw err;
      }
      applied.set(namespace, want);
      return undefined;
    },
  });
  const changed = (q: { metadata: { namespace?: string } }) => q.metadata.namespace !== undefined && controller.enqueue(q.metadata.namespace);
  opts.caches.federatedResourceQuotas.on({ add: changed, update: changed, delete: changed });
  return controller;
}
