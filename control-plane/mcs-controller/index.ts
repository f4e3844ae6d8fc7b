// The multi-cluster services part (issue 40, DESIGN §13). Every replica: its agents' export
// reports → MemberServiceExport records (record-writer.ts), and every record → the clusterset's
// imports as Works for every member (import-sync.ts, the merge is mcs/'s, pure).
import type { ControlPlaneContext, Part } from "../context.ts";
import { syncImportWorks } from "./import-sync.ts";
import { recordWriter } from "./record-writer.ts";

export function startMcs(ctx: ControlPlaneContext): Part {
  const log = ctx.log.child({ component: "mcs" });
  const renderAll = syncImportWorks(ctx.caches, ctx.works, { requireAcceptance: ctx.opts.requireAcceptance === true });
  const writer = recordWriter({ caches: ctx.caches, rest: ctx.rest, log });
  ctx.events.on("serviceExport", (cluster, report) => writer.report(cluster, report));
  ctx.events.on("serviceExportsSynced", (cluster, exports) => writer.synced(cluster, exports));
  // An unjoined cluster's exports go with it (its Cluster deleted on the synced informer).
  ctx.caches.clusters.on({ delete: (c) => writer.clusterGone(c.metadata.name ?? "") });
  return {
    synced: () => renderAll(),
    controllers: [writer.controller],
  };
}
