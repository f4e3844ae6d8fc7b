// The works part: every replica renders each binding's Works into the in-memory Work store that
// the hub serves.
import { gaugeOf } from "../../shared/metrics.ts";
import type { ControlPlaneContext, Part } from "../context.ts";
import { WorkCache } from "./work-cache.ts";

export function startWorks(ctx: ControlPlaneContext): Part {
  const { works } = ctx;
  const workCache = new WorkCache({ caches: ctx.caches, templates: ctx.templates, works, log: ctx.log, interpreters: ctx.interpreters, revisions: ctx.revisions });
  ctx.events.on("templateChanged", (k) => workCache.templateChanged(k));
  gaugeOf("flotilla_works", "Works the hub holds per cluster.", () => works.clusters().map((c) => [{ cluster: c }, works.keys(c).length] as const), ["cluster"]);
  return {
    synced: () => {
      // The hub refuses agents until this is done, so no agent sees a partial set of Works.
      workCache.computeAll();
      works.markSynced();
    },
    controllers: [workCache.controller],
  };
}
