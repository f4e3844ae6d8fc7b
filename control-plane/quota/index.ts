// The FederatedResourceQuota part (issue 26). Every replica: the quota Works (each staticAssignments
// entry as a ResourceQuota in its cluster). The leader: each quota's status, and the label that
// sends the namespace's templates to the quota webhook (control-plane/webhook/quota-review.ts).
import type { ControlPlaneContext, Part } from "../context.ts";
import { namespaceLabeler } from "./quota-namespaces.ts";
import { quotaStatusController } from "./quota-status.ts";
import { syncQuotaWorks } from "./quota-sync.ts";

export function startQuota(ctx: ControlPlaneContext): Part {
  const log = ctx.log.child({ component: "quota" });
  const renderAll = syncQuotaWorks(ctx.caches, ctx.works);
  const status = quotaStatusController({ src: ctx, rest: ctx.rest, log, onTemplateChanged: (fn) => ctx.events.on("templateChanged", fn) });
  const labels = namespaceLabeler({ caches: ctx.caches, rest: ctx.rest, log });
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
