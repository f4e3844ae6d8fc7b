// The FederatedResourceQuota part (issue 26). Every replica: the quota Works (each staticAssignments
// entry as a ResourceQuota in its cluster). The leader: each quota's status, and the label that
// sends the namespace's templates to the quota webhook (control-plane/webhook/quota-review.ts).
import type { ControlPlaneContext, Part } from "../context.ts";
import { namespaceLabeler } from "./quota-namespaces.ts";
import { quotaStatusController } from "./quota-status.ts";
import { syncQuotaWorks } from "./quota-sync.ts";
import { scheduleGuard } from "./schedule-guard.ts";

export function startQuota(ctx: ControlPlaneContext): Part {
  const log = ctx.log.child({ component: "quota" });
  const renderAll = syncQuotaWorks(ctx.caches, ctx.works);
  const status = quotaStatusController({ src: ctx, rest: ctx.rest, log, onTemplateChanged: (fn) => ctx.events.on("templateChanged", fn) });
  const labels = namespaceLabeler({ caches: ctx.caches, rest: ctx.rest, log });
  // Where the webhook cannot see it (a policy that places a template on more clusters, a kind it
  // does not take), the binding controller holds the schedule at the quota.
  ctx.scheduleGuards.quota = scheduleGuard(ctx);
  return {
    synced: () => renderAll(),
    leaderControllers: [status, labels],
    startedLeading: () => {
      for (const q of ctx.caches.federatedResourceQuotas.list()) {
        status.enqueue(`${q.metadata.namespace ?? ""}/${q.metadata.name ?? ""}`);
        labels.enqueue(q.metadata.namespace ?? "");
      }
    },
  };
}
