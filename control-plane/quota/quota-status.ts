// A FederatedResourceQuota's status (issue 26): overall as in force, overallUsed from the
// namespace's bindings (each one's scheduled replicas times what one replica requests: Karmada's
// enforcement controller), and aggregatedStatus per assigned cluster from the schedule: hard as
// assigned, used as what the bindings place on that cluster. From the schedule, not the members'
// reports: every replica's leader computes the same from the caches, with no report from the
// members needed (an agent's reports reach only the replica it streams to).
import type { Logger } from "pino";
import { isDeepStrictEqual } from "node:util";
import type { FederatedResourceQuota, FederatedResourceQuotaStatus, ResourceList } from "../../shared/api/quota.ts";
import { RESOURCES } from "../../shared/api/resources.ts";
import { Controller } from "../../shared/controller.ts";
import { isKubeStatus, type KubeRest, objectPath } from "../../shared/kube-rest.ts";
import type { ResourceBinding } from "../../shared/api/types.ts";
import { parseWorkKey, templateKeyOfBinding } from "../../shared/work-key.ts";
import { namespaceWorkloads, type UsageSources } from "./namespace-usage.ts";
import { resourceList, usageOf, type Workload } from "./quota-usage.ts";

const FIELD_MANAGER = "flotilla-quota-status";

/** The canonical form of a ResourceList as the status holds it (strings). */
const strings = (list: ResourceList): Record<string, string> => Object.fromEntries(Object.entries(list).map(([k, v]) => [k, String(v)]));

/** The status (pure): `usage(cluster?)` is what the namespace's bindings place, on one cluster or on all. */
export function quotaStatus(frq: FederatedResourceQuota, usage: (cluster?: string) => Workload[]): FederatedResourceQuotaStatus {
  const overall = frq.spec.overall;
  const status: FederatedResourceQuotaStatus = { overall: strings(overall), overallUsed: resourceList(usageOf(usage(), overall)) };
  const assigned = frq.spec.staticAssignments ?? [];
  if (assigned.length > 0) {
    status.aggregatedStatus = [...assigned]
      .sort((a, b) => (a.clusterName < b.clusterName ? -1 : 1))
      .map((a) => ({ clusterName: a.clusterName, hard: strings(a.hard), used: resourceList(usageOf(usage(a.clusterName), a.hard)) }));
  }
  return status;
}

/** The leader's controller: one key per FederatedResourceQuota (namespace/name); writes status when it changed. */
export function quotaStatusController(opts: { src: UsageSources; rest: KubeRest; log: Logger; onTemplateChanged: (fn: (key: string) => void) => void }): Controller {
  const { src } = opts;
  const controller = new Controller({
    name: "quota-status",
    log: opts.log,
    reconcile: async (key) => {
      const [namespace = "", name = ""] = key.split("/");
      const frq = src.caches.federatedResourceQuotas.get(name, namespace);
      if (frq === undefined || frq.metadata.deletionTimestamp !== undefined) return undefined;
      const status = quotaStatus(frq, (cluster) => namespaceWorkloads(src, namespace, cluster === undefined ? {} : { cluster }));
      if (isDeepStrictEqual(frq.status ?? {}, status)) return undefined;
      // Merge patch: null clears a list a smaller status no longer has.
      const patch = { status: { ...status, aggregatedStatus: status.aggregatedStatus ?? null } };
      try {
        await opts.rest.mergePatch(objectPath(RESOURCES.federatedResourceQuota, namespace, name, "status"), patch, FIELD_MANAGER);
      } catch (err) {
        if (!isKubeStatus(err, 404)) throw err;
      }
      return undefined;
    },
  });
  const enqueueNamespace = (namespace: string | undefined) => {
    if (namespace === undefined) return;
    for (const q of src.caches.federatedResourceQuotas.list(namespace)) controller.enqueue(`${namespace}/${q.metadata.name ?? ""}`);
  };
  src.caches.federatedResourceQuotas.on({ add: (q) => enqueueNamespace(q.metadata.namespace), update: (q) => enqueueNamespace(q.metadata.namespace) });
  // The usage follows the namespace's bindings (their schedule, not their status: agents' reports
  // rewrite it often) and templates (what a replica requests).
  const bindingChanged = (b: ResourceBinding) => enqueueNamespace(b.metadata.namespace);
  const bindingUpdated = (b: ResourceBinding) => !src.caches.bindingIndex.statusOnly(templateKeyOfBinding(b)) && bindingChanged(b);
  src.caches.bindings.on({ add: bindingChanged, update: bindingUpdated, delete: bindingChanged });
  opts.onTemplateChanged((key) => {
    try {
      enqueueNamespace(parseWorkKey(key).namespace);
    } catch {
      // not a template key
    }
  });
  return controller;
}
