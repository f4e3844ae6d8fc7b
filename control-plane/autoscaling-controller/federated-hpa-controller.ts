// The FederatedHPA controller (issue 22; leader only): every sync period
// (--horizontal-pod-autoscaler-sync-period), each FederatedHPA's run
// (autoscaling/federated-hpa-run.ts, pure) over its target template, the binding's placement and
// the members' summaries; it writes the template's replicas through its scale subresource (or
// spec.replicas for a kind without one) and the FederatedHPA's status, each only when it changes.
// The history (recommendations, scale events) is in memory: a new leader starts with none, which
// at worst scales down one stabilization window later than it would have. Each run leaves
// kube-controller-manager's Events on the FederatedHPA (autoscaling/autoscaler-events.ts decides;
// a standing failure is recorded again every 5 minutes, not every run).
import type { Logger } from "pino";
import type { FederatedHPA } from "../../shared/api/autoscaling.ts";
import { RESOURCES } from "../../shared/api/resources.ts";
import type { KubeObject } from "../../shared/api/types.ts";
import { Controller, type ReconcileResult } from "../../shared/controller.ts";
import { type InterpreterRegistry, NATIVE_INTERPRETERS } from "../../shared/interpreter/registry.ts";
import { replicasOf } from "../../shared/interpreter/native/adapter.ts";
import { isKubeStatus, type KubeRest, objectPath } from "../../shared/kube-rest.ts";
import type { WorkRef } from "../../shared/work-key.ts";
import { workloadKey } from "../../shared/workload-metrics-wire.ts";
import { dueEvents, federatedHpaEvents } from "../autoscaling/autoscaler-events.ts";
import { failedRescaleCondition } from "../autoscaling/desired-replicas.ts";
import { mergeConditions, runFederatedHpa, type ScaleTarget } from "../autoscaling/federated-hpa-run.ts";
import { EMPTY_HISTORY, type ScaleHistory } from "../autoscaling/scale-behavior.ts";
import type { Caches } from "../caches/caches.ts";
import type { TemplateInformers } from "../detector/template-informers.ts";
import { type EventRecorder, involvedObjectOf } from "../status/event-recorder.ts";
import { statusHolds } from "../status/status-holds.ts";
import type { MetricsStore } from "./metrics-store.ts";
import { AUTOSCALER_FIELD_MANAGER, scaleTemplate } from "./scale-target.ts";

/** The default of --horizontal-pod-autoscaler-sync-period (kube-controller-manager's and Karmada's). */
export const SYNC_PERIOD_MS = 15_000;
/** A member's summary older than this counts as missing (four sync periods). */
export const METRICS_MAX_AGE_MS = 60_000;

export class FederatedHpaController {
  readonly controller: Controller;
  readonly writes = { scale: 0, status: 0 };
  private readonly histories = new Map<string, ScaleHistory>();
  /** Per FederatedHPA, when each standing Warning was last recorded (dueEvents' memory). */
  private readonly recorded = new Map<string, Map<string, number>>();
  private readonly events: Pick<EventRecorder, "record"> | undefined;
  private readonly caches: Caches;
  private readonly templates: TemplateInformers;
  private readonly rest: KubeRest;
  private readonly metrics: MetricsStore;
  private readonly interpreters: InterpreterRegistry;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly syncPeriodMs: number;

  constructor(opts: {
    caches: Caches;
    templates: TemplateInformers;
    rest: KubeRest;
    metrics: MetricsStore;
    log: Logger;
    events?: Pick<EventRecorder, "record">;
    interpreters?: InterpreterRegistry;
    now?: () => number;
    /** How long after a run the FederatedHPA runs again (default SYNC_PERIOD_MS). */
    syncPeriodMs?: number;
  }) {
    this.events = opts.events;
    this.caches = opts.caches;
    this.templates = opts.templates;
    this.rest = opts.rest;
    this.metrics = opts.metrics;
    this.log = opts.log.child({ component: "federated-hpa" });
    this.interpreters = opts.interpreters ?? NATIVE_INTERPRETERS;
    this.now = opts.now ?? Date.now;
    this.syncPeriodMs = opts.syncPeriodMs ?? SYNC_PERIOD_MS;
    this.controller = new Controller({ name: "federated-hpa", reconcile: (k) => this.reconcile(k), log: this.log, workers: 2 });
    const changed = (f: FederatedHPA) => this.controller.enqueue(keyOf(f));
    this.caches.federatedHpas.on({ add: changed, update: changed, delete: changed });
  }

  /** Every FederatedHPA, once (a new leader's first look). */
  enqueueAll(): void {
    for (const f of this.caches.federatedHpas.list()) this.controller.enqueue(keyOf(f));
  }

  private async reconcile(key: string): Promise<ReconcileResult> {
    const slash = key.indexOf("/");
    const fhpa = this.caches.federatedHpas.get(key.slice(slash + 1), key.slice(0, slash));
    if (fhpa === undefined || fhpa.metadata.deletionTimestamp !== undefined) {
      this.histories.delete(key);
      this.recorded.delete(key);
      return undefined;
    }
    const ref = targetRef(fhpa);
    const template = this.templates.get(ref);
    const now = this.now();
    const run = runFederatedHpa({
      fhpa,
      target: template === undefined ? undefined : this.targetOf(template, ref),
      summaries: this.metrics.summaries(workloadKey({ apiVersion: ref.apiVersion, kind: ref.kind, namespace: ref.namespace ?? "", name: ref.name }), now, METRICS_MAX_AGE_MS),
      history: this.histories.get(key) ?? EMPTY_HISTORY,
      now,
    });
    let status = run.status;
    let history = run.history;
    let scaleError: string | undefined;
    if (run.scaleTo !== undefined && template !== undefined) {
      try {
        this.writes.scale++;
        await scaleTemplate(this.rest, this.templates, template, ref, run.scaleTo);
        this.log.info({ federatedHpa: key, from: run.status.currentReplicas, to: run.scaleTo }, "scaled the target");
      } catch (err) {
        // Not written: the recommendations stay, the scale event does not happen.
        const message = err instanceof Error ? err.message : String(err);
        scaleError = message;
        history = { ...run.history, scaleUpEvents: (this.histories.get(key) ?? EMPTY_HISTORY).scaleUpEvents, scaleDownEvents: (this.histories.get(key) ?? EMPTY_HISTORY).scaleDownEvents };
        const { lastScaleTime: _dropped, ...rest } = status;
        status = { ...rest, ...(fhpa.status?.lastScaleTime ? { lastScaleTime: fhpa.status.lastScaleTime } : {}), conditions: mergeConditions(status.conditions, [failedRescaleCondition(message)], now) };
      }
    }
    this.histories.set(key, history);
    let statusError: unknown;
    if (!statusHolds(status, fhpa.status)) {
      await this.rest.mergePatch(objectPath(RESOURCES.federatedHPA, fhpa.metadata.namespace, fhpa.metadata.name ?? "", "status"), { status }, AUTOSCALER_FIELD_MANAGER).catch(ignoreNotFound).catch((err: unknown) => {
        statusError = err;
      });
      this.writes.status++;
    }
    if (run.warning !== undefined) this.log.warn({ federatedHpa: key, reason: run.warning.reason }, run.warning.message);
    this.record(key, fhpa, {
      metricFailures: run.metricFailures,
      ...(run.warning === undefined ? {} : { warning: run.warning }),
      ...(run.scaleTo === undefined || template === undefined ? {} : { scaleTo: run.scaleTo, rescaleReason: run.rescaleReason ?? "" }),
      ...(scaleError === undefined ? {} : { scaleError }),
      ...(statusError === undefined ? {} : { statusError: statusError instanceof Error ? statusError.message : String(statusError) }),
    });
    // A failed status write is retried by the controller's backoff (the run's decisions stand).
    if (statusError !== undefined) throw statusError;
    return { requeueAfterMs: this.syncPeriodMs };
  }

  private record(key: string, fhpa: FederatedHPA, outcome: Parameters<typeof federatedHpaEvents>[0]): void {
    if (this.events === undefined) return;
    const { due, recorded } = dueEvents(federatedHpaEvents(outcome), this.recorded.get(key) ?? new Map(), this.now());
    this.recorded.set(key, recorded);
    for (const e of due) void this.events.record(involvedObjectOf(fhpa), e);
  }

  private targetOf(template: KubeObject, ref: WorkRef): ScaleTarget {
    const specReplicas = replicasOf(template, this.interpreters.for(template))?.replicas;
    const statusReplicas = (template as { status?: { replicas?: unknown } }).status?.replicas;
    const binding = this.caches.bindingOf(ref);
    return {
      specReplicas,
      statusReplicas: typeof statusReplicas === "number" ? statusReplicas : (specReplicas ?? 0),
      placement: (binding?.spec.clusters ?? []).map((c) => (c.replicas === undefined ? { cluster: c.name } : { cluster: c.name, replicas: c.replicas })),
    };
  }
}

function keyOf(f: FederatedHPA): string {
  return `${f.metadata.namespace ?? ""}/${f.metadata.name ?? ""}`;
}

/** The FederatedHPA's target, in its own namespace. */
export function targetRef(f: FederatedHPA): WorkRef {
  const r = f.spec.scaleTargetRef;
  return { apiVersion: r.apiVersion ?? "apps/v1", kind: r.kind, namespace: f.metadata.namespace ?? "", name: r.name };
}

function ignoreNotFound(err: unknown): void {
  if (!isKubeStatus(err, 404)) throw err;
}
