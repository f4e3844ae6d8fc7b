// The FederatedHPA part (issue 22): the leader's autoscaler over the fleet. The members' workload
// summaries reach it through the metrics store (fed by the hub from agents' reports).
import { counterOf } from "../../shared/metrics.ts";
import type { ControlPlaneContext, Part } from "../context.ts";
import { FederatedHpaController } from "./federated-hpa-controller.ts";
import { MetricsStore } from "./metrics-store.ts";

export function startFederatedHpa(ctx: ControlPlaneContext): Part & { metrics: MetricsStore } {
  const metrics = new MetricsStore();
  const fhpa = new FederatedHpaController({ caches: ctx.caches, templates: ctx.templates, rest: ctx.rest, metrics, log: ctx.log, interpreters: ctx.interpreters });
  counterOf("flotilla_federated_hpa_scale_writes_total", "Target replica writes by the FederatedHPA controller.", () => fhpa.writes.scale);
  counterOf("flotilla_federated_hpa_status_writes_total", "FederatedHPA status writes.", () => fhpa.writes.status);
  return {
    metrics,
    leaderControllers: [fhpa.controller],
    startedLeading: () => fhpa.enqueueAll(),
  };
}
