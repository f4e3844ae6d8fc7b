// The FederatedHPA part (issue 22): the leader's autoscaler over the fleet, and its cron rules. The members' workload
// summaries reach it through the metrics store (fed by the hub from agents' reports).
import { counterOf } from "../../shared/metrics.ts";
import type { ControlPlaneContext, Part } from "../context.ts";
import { CronFederatedHpaController } from "./cron-controller.ts";
import { FederatedHpaController, targetRef } from "./federated-hpa-controller.ts";
import { type AutoscaledTarget, wantedByCluster } from "./wanted-metrics.ts";
import { SettleTimer } from "../../shared/settle-timer.ts";
import { MetricsStore } from "./metrics-store.ts";

/** How long FederatedHPA and binding changes must settle before the agents' lists are recomputed, and the longest wait. */
const WANTED_QUIET_MS = 1000;
const WANTED_MAX_WAIT_MS = 5000;

export function startAutoscaling(ctx: ControlPlaneContext): Part & { metrics: MetricsStore } {
  const metrics = new MetricsStore();
  // Every replica: agents stream to any of them. A summary is kept where it arrives, and the leader
  // collects the other replicas' (peers/) into its own store; a member whose summaries reach it
  // neither way counts as missing (no scale-down on it).
  ctx.events.on("workloadMetrics", (cluster, report) => metrics.set(cluster, report.key, report.summary, Date.now()));
  ctx.events.on("peerWorkloadMetrics", (cluster, report, at) => metrics.set(cluster, report.key, report.summary, at));
  const refreshWanted = () => {
    const targets: AutoscaledTarget[] = [];
    for (const f of ctx.caches.federatedHpas.list()) {
      const ref = targetRef(f);
      const template = ctx.templates.get(ref);
      const binding = ctx.caches.bindingOf(ref);
      if (template !== undefined && binding !== undefined) targets.push({ fhpa: f, template, clusters: binding.spec.clusters.map((c) => c.name) });
    }
    const next = wantedByCluster(targets);
    for (const cluster of new Set([...ctx.metricsWanted.keys(), ...next.keys()])) {
      const want = next.get(cluster);
      if ((ctx.metricsWanted.get(cluster)?.contentHash ?? "") === (want?.contentHash ?? "")) continue;
      if (want === undefined) ctx.metricsWanted.delete(cluster);
      else ctx.metricsWanted.set(cluster, want);
      ctx.events.emit("metricsWantedChanged", cluster);
    }
  };
  const wanted = new SettleTimer({ quietMs: WANTED_QUIET_MS, maxWaitMs: WANTED_MAX_WAIT_MS, fire: refreshWanted });
  const poke = () => wanted.poke();
  ctx.caches.federatedHpas.on({ add: poke, update: poke, delete: poke });
  ctx.caches.bindings.on({ add: poke, update: poke, delete: poke });
  ctx.events.on("templateChanged", poke);
  const fhpa = new FederatedHpaController({ caches: ctx.caches, templates: ctx.templates, rest: ctx.rest, metrics, log: ctx.log, events: ctx.recorder, interpreters: ctx.interpreters, ...(ctx.opts.federatedHpaSyncPeriodMs === undefined ? {} : { syncPeriodMs: ctx.opts.federatedHpaSyncPeriodMs }) });
  counterOf("flotilla_federated_hpa_scale_writes_total", "Target replica writes by the FederatedHPA controller.", () => fhpa.writes.scale);
  counterOf("flotilla_federated_hpa_status_writes_total", "FederatedHPA status writes.", () => fhpa.writes.status);
  const cron = new CronFederatedHpaController({ caches: ctx.caches, templates: ctx.templates, rest: ctx.rest, log: ctx.log, events: ctx.recorder });
  counterOf("flotilla_cron_federated_hpa_runs_total", "CronFederatedHPA rule runs, by outcome.", () => [[{ outcome: "ok" }, cron.runs.ok] as const, [{ outcome: "failed" }, cron.runs.failed] as const], ["outcome"]);
  return {
    metrics,
    synced: () => refreshWanted(),
    stop: () => wanted.stop(),
    leaderControllers: [fhpa.controller, cron.controller],
    startedLeading: () => {
      fhpa.enqueueAll();
      cron.enqueueAll();
    },
  };
}
