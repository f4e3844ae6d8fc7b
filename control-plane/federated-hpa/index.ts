// The FederatedHPA part (issue 22): the leader's autoscaler over the fleet, and its cron rules. The members' workload
// summaries reach it through the metrics store (fed by the hub from agents' reports).
import { counterOf } from "../../shared/metrics.ts";
import type { ControlPlaneContext, Part } from "../context.ts";
import { CronFederatedHpaController } from "./cron-controller.ts";
import { FederatedHpaController } from "./federated-hpa-controller.ts";
import { MetricsStore } from "./metrics-store.ts";

export function startFederatedHpa(ctx: ControlPlaneContext): Part & { metrics: MetricsStore } {
  const metrics = new MetricsStore();
  const fhpa = new FederatedHpaController({ caches: ctx.caches, templates: ctx.templates, rest: ctx.rest, metrics, log: ctx.log, interpreters: ctx.interpreters });
  counterOf("flotilla_federated_hpa_scale_writes_total", "Target replica writes by the FederatedHPA controller.", () => fhpa.writes.scale);
  counterOf("flotilla_federated_hpa_status_writes_total", "FederatedHPA status writes.", () => fhpa.writes.status);
  const cron = new CronFederatedHpaController({ caches: ctx.caches, templates: ctx.templates, rest: ctx.rest, log: ctx.log });
  counterOf("flotilla_cron_federated_hpa_runs_total", "CronFederatedHPA rule runs, by outcome.", () => [[{ outcome: "ok" }, cron.runs.ok] as const, [{ outcome: "failed" }, cron.runs.failed] as const], ["outcome"]);
  return {
    metrics,
    leaderControllers: [fhpa.controller, cron.controller],
    startedLeading: () => {
      fhpa.enqueueAll();
      cron.enqueueAll();
    },
  };
}
