// The WorkloadRebalancer controller (issue 22; leader only): for each workload a rebalancer names
// that has no result yet, it sets the workload's binding spec.rescheduleTriggeredAt to the
// rebalancer's creationTimestamp (Karmada's rule: never back to an earlier time), with its own field
// manager, so the binding controller's apply never removes it. The binding controller then serves
// that trigger once (scheduling/fresh-reschedule.ts). A workload without a binding is Failed,
// ReferencedBindingNotFound, judged on the synced binding cache and confirmed by the apiserver.
// Any other error is retried. After status.finishTime + ttlSecondsAfterFinished the rebalancer
// itself is deleted: only it (it owns nothing; no member object depends on it).
import type { Logger } from "pino";
import { type ObservedWorkload, REFERENCED_BINDING_NOT_FOUND, type WorkloadRebalancer, type WorkloadReference } from "../../shared/api/rebalancer.ts";
import { RESOURCES } from "../../shared/api/resources.ts";
import type { ResourceBinding } from "../../shared/api/types.ts";
import { Controller, type ReconcileResult } from "../../shared/controller.ts";
import { isKubeStatus, type KubeRest, objectPath } from "../../shared/kube-rest.ts";
import type { Caches } from "../caches/caches.ts";
import { bindingName } from "../scheduling/binding-spec.ts";
import { triggerNeeded } from "../scheduling/fresh-reschedule.ts";
import { nextStatus, observedWorkloads, ttlAction } from "./rebalancer-status.ts";
import { canonicalJson } from "../../shared/content-hash.ts";

/** The field manager of spec.rescheduleTriggeredAt on bindings, and of the rebalancers' status. */
export const REBALANCER_FIELD_MANAGER = "flotilla-workload-rebalancer";

/** What asking a workload's binding for a reschedule came to. */
type Outcome = Pick<ObservedWorkload, "result" | "reason">;

export class RebalancerController {
  readonly controller: Controller;
  readonly counts = { triggered: 0, notFound: 0, deleted: 0 };
  private readonly caches: Caches;
  private readonly rest: KubeRest;
  private readonly log: Logger;
  private readonly now: () => number;

  constructor(opts: { caches: Caches; rest: KubeRest; log: Logger; now?: () => number }) {
    this.caches = opts.caches;
    this.rest = opts.rest;
    this.log = opts.log.child({ component: "workload-rebalancer" });
    this.now = opts.now ?? Date.now;
    this.controller = new Controller({ name: "workload-rebalancer", reconcile: (k) => this.reconcile(k), log: this.log, workers: 2 });
    const changed = (r: WorkloadRebalancer) => this.controller.enqueue(r.metadata.name ?? "");
    this.caches.workloadRebalancers.on({ add: changed, update: changed });
  }

  enqueueAll(): void {
    for (const r of this.caches.workloadRebalancers.list()) this.controller.enqueue(r.metadata.name ?? "");
  }

  private async reconcile(name: string): Promise<ReconcileResult> {
    const r = this.caches.workloadRebalancers.get(name);
    if (r === undefined || r.metadata.deletionTimestamp !== undefined) return undefined;
    const requestedAt = r.metadata.creationTimestamp ?? "";
    const items: ObservedWorkload[] = [];
    let retry: unknown;
    for (const item of observedWorkloads(r.spec.workloads, r.status?.observedWorkloads)) {
      if (item.result !== undefined) {
        items.push(item);
        continue;
      }
      const outcome = await this.request(item.workload, requestedAt).catch((err: unknown) => {
        retry ??= err;
        return {};
      });
      items.push({ ...item, ...outcome });
    }
    const status = nextStatus(r, items, new Date(this.now()));
    let resourceVersion = r.metadata.resourceVersion;
    if (canonicalJson(status) !== canonicalJson(r.status ?? {})) {
      // finishTime null: a merge patch removes it (a workload added later is not finished yet).
      const written = await this.rest.mergePatch<WorkloadRebalancer>(objectPath(RESOURCES.workloadRebalancer, undefined, name, "status"), { status: { ...status, finishTime: status.finishTime ?? null } }, REBALANCER_FIELD_MANAGER).catch(ignoreNotFound);
      if (written === undefined) return undefined;
      resourceVersion = written.metadata.resourceVersion;
    }
    // Retried with backoff by the controller; the results so far are written.
    if (retry !== undefined) throw retry;
    const ttl = ttlAction(r, status, this.now());
    if (ttl === undefined) return undefined;
    if (ttl !== "delete") return { requeueAfterMs: ttl.waitMs };
    // Intent: the user's ttlSecondsAfterFinished. Only if unchanged since this look (a spec edit waits).
    await this.rest.delete(objectPath(RESOURCES.workloadRebalancer, undefined, name), { preconditions: { resourceVersion } }).catch(ignoreNotFound);
    this.counts.deleted++;
    this.log.info({ rebalancer: name, finishTime: status.finishTime }, "WorkloadRebalancer deleted after ttlSecondsAfterFinished");
    return undefined;
  }

  /** Asks the workload's binding for a fresh reschedule; throws what should be retried. */
  private async request(w: WorkloadReference, requestedAt: string): Promise<Outcome> {
    const ref = { apiVersion: w.apiVersion, kind: w.kind, name: w.name, ...(w.namespace ? { namespace: w.namespace } : {}) };
    const path = objectPath(w.namespace ? RESOURCES.resourceBinding : RESOURCES.clusterResourceBinding, w.namespace || undefined, bindingName(ref));
    // The cache is synced; a binding it lacks may be only moments old: the apiserver decides.
    const binding = this.caches.currentBindingOf(ref) ?? (await this.rest.get<ResourceBinding>(path).catch(ignoreNotFound));
    if (binding === undefined) {
      if (this.caches.legacyBindingOf(ref) !== undefined) throw new Error(`the binding of ${w.kind} ${w.name} is being moved to its current name`);
      this.counts.notFound++;
      return { result: "Failed", reason: REFERENCED_BINDING_NOT_FOUND };
    }
    if (triggerNeeded(requestedAt, binding.spec.rescheduleTriggeredAt)) {
      // A merge patch (not an apply, which would create a binding that is not there), checked
      // against the version read: a newer rebalancer's trigger is never set back. A conflict is retried.
      const patch = { metadata: { resourceVersion: binding.metadata.resourceVersion }, spec: { rescheduleTriggeredAt: requestedAt } };
      const done = await this.rest.mergePatch<ResourceBinding>(path, patch, REBALANCER_FIELD_MANAGER).catch(ignoreNotFound);
      if (done === undefined) {
        this.counts.notFound++;
        return { result: "Failed", reason: REFERENCED_BINDING_NOT_FOUND };
      }
      this.counts.triggered++;
      this.log.info({ binding: binding.metadata.name, namespace: binding.metadata.namespace, rescheduleTriggeredAt: requestedAt }, "fresh reschedule requested");
    }
    return { result: "Successful" };
  }
}

function ignoreNotFound(err: unknown): undefined {
  if (!isKubeStatus(err, 404)) throw err;
  return undefined;
}
