// The CronFederatedHPA controller (issue 22; leader only): at each rule's time it sets the target
// workload's replicas (through its scale subresource) or the target FederatedHPA's minReplicas
// and maxReplicas, and records the outcome in status.executionHistories (autoscaling/cron-rules.ts
// decides, pure). It wakes at the earliest next execution time. Failed runs, rules that cannot
// start and failed status writes leave Karmada's Warning Events on the CronFederatedHPA.
import type { Logger } from "pino";
import { CRON_FEDERATED_HPA_KIND, type CronFederatedHPA, targetsFederatedHpa } from "../../shared/api/autoscaling.ts";
import { RESOURCES } from "../../shared/api/resources.ts";
import { Controller, type ReconcileResult } from "../../shared/controller.ts";
import { isKubeStatus, type KubeRest, objectPath } from "../../shared/kube-rest.ts";
import type { WorkRef } from "../../shared/work-key.ts";
import { cronFederatedHpaEvents, dueEvents } from "../autoscaling/autoscaler-events.ts";
import { type CronAction, type CronOutcome, dueActions, executionHistories, nextWake, unstartableRules } from "../autoscaling/cron-rules.ts";
import type { Caches } from "../caches/caches.ts";
import type { TemplateInformers } from "../detector/template-informers.ts";
import { type EventRecorder, involvedObjectOf } from "../status/event-recorder.ts";
import { statusHolds } from "../status/status-holds.ts";
import { AUTOSCALER_FIELD_MANAGER, scaleTemplate } from "./scale-target.ts";

/** The longest sleep between looks (a clock step or a missed event is noticed within it). */
const MAX_SLEEP_MS = 60_000;

export class CronFederatedHpaController {
  readonly controller: Controller;
  readonly runs = { ok: 0, failed: 0 };
  private readonly caches: Caches;
  private readonly templates: TemplateInformers;
  private readonly rest: KubeRest;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly events: Pick<EventRecorder, "record"> | undefined;
  /** Per CronFederatedHPA, when each standing Warning was last recorded (dueEvents' memory). */
  private readonly recorded = new Map<string, Map<string, number>>();

  constructor(opts: { caches: Caches; templates: TemplateInformers; rest: KubeRest; log: Logger; events?: Pick<EventRecorder, "record">; now?: () => number }) {
    this.events = opts.events;
    this.caches = opts.caches;
    this.templates = opts.templates;
    this.rest = opts.rest;
    this.log = opts.log.child({ component: "cron-federated-hpa" });
    this.now = opts.now ?? Date.now;
    this.controller = new Controller({ name: "cron-federated-hpa", reconcile: (k) => this.reconcile(k), log: this.log, workers: 1 });
    const changed = (c: CronFederatedHPA) => this.controller.enqueue(`${c.metadata.namespace ?? ""}/${c.metadata.name ?? ""}`);
    this.caches.cronFederatedHpas.on({ add: changed, update: changed, delete: changed });
  }

  enqueueAll(): void {
    for (const c of this.caches.cronFederatedHpas.list()) this.controller.enqueue(`${c.metadata.namespace ?? ""}/${c.metadata.name ?? ""}`);
  }

  private async reconcile(key: string): Promise<ReconcileResult> {
    const slash = key.indexOf("/");
    const cron = this.caches.cronFederatedHpas.get(key.slice(slash + 1), key.slice(0, slash));
    if (cron === undefined || cron.metadata.deletionTimestamp !== undefined) {
      this.recorded.delete(key);
      return undefined;
    }
    const now = new Date(this.now());
    const ref = cron.spec.scaleTargetRef;
    const toFederatedHpa = targetsFederatedHpa(ref);
    const outcomes: CronOutcome[] = [];
    for (const action of dueActions(cron, now, toFederatedHpa)) outcomes.push(await this.run(cron, action));
    const status = { executionHistories: executionHistories(cron, now, outcomes) };
    let statusError: unknown;
    if (!statusHolds(status, cron.status)) {
      await this.rest.mergePatch(objectPath(RESOURCES.cronFederatedHPA, cron.metadata.namespace, cron.metadata.name ?? "", "status"), { status }, AUTOSCALER_FIELD_MANAGER).catch((err: unknown) => {
        if (!isKubeStatus(err, 404)) statusError = err;
      });
    }
    this.record(key, cron, outcomes, statusError);
    if (statusError !== undefined) throw statusError;
    return { requeueAfterMs: Math.min(MAX_SLEEP_MS, nextWake(status.executionHistories, now) ?? MAX_SLEEP_MS) };
  }

  private record(key: string, cron: CronFederatedHPA, outcomes: readonly CronOutcome[], statusError: unknown): void {
    if (this.events === undefined) return;
    const events = cronFederatedHpaEvents(outcomes, unstartableRules(cron), statusError === undefined ? undefined : statusError instanceof Error ? statusError.message : String(statusError));
    const { due, recorded } = dueEvents(events, this.recorded.get(key) ?? new Map(), this.now());
    this.recorded.set(key, recorded);
    for (const e of due) void this.events.record(involvedObjectOf(cron), e);
  }

  private async run(cron: CronFederatedHPA, action: CronAction): Promise<CronOutcome> {
    const ref = cron.spec.scaleTargetRef;
    const namespace = cron.metadata.namespace ?? "";
    try {
      if (action.kind === "replicas") {
        const target: WorkRef = { apiVersion: ref.apiVersion ?? "apps/v1", kind: ref.kind, namespace, name: ref.name };
        await scaleTemplate(this.rest, this.templates, this.templates.get(target), target, action.replicas);
        this.log.info({ cron: `${namespace}/${cron.metadata.name}`, rule: action.rule, replicas: action.replicas }, `${CRON_FEDERATED_HPA_KIND} set the target's replicas`);
        this.runs.ok++;
        return { rule: action.rule, scheduleTime: action.scheduleTime, ok: true, applied: { replicas: action.replicas } };
      }
      const bounds = { ...(action.minReplicas === undefined ? {} : { minReplicas: action.minReplicas }), ...(action.maxReplicas === undefined ? {} : { maxReplicas: action.maxReplicas }) };
      await this.rest.mergePatch(objectPath(RESOURCES.federatedHPA, namespace, ref.name), { spec: bounds }, AUTOSCALER_FIELD_MANAGER);
      this.runs.ok++;
      return { rule: action.rule, scheduleTime: action.scheduleTime, ok: true, applied: bounds };
    } catch (err) {
      this.runs.failed++;
      const message = err instanceof Error ? err.message : String(err);
      this.log.warn({ cron: `${namespace}/${cron.metadata.name}`, rule: action.rule, err: message }, "a CronFederatedHPA rule failed");
      return { rule: action.rule, scheduleTime: action.scheduleTime, ok: false, message };
    }
  }
}
