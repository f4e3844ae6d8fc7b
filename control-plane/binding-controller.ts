import type { Logger } from "pino";
import { RESOURCES } from "../shared/api/resources.ts";
import type { PropagationPolicy, ResourceBinding } from "../shared/api/types.ts";
import { Controller, TerminalError } from "../shared/controller.ts";
import { isKubeStatus, type KubeRest, objectPath } from "../shared/kube-rest.ts";
import { parseWorkKey } from "../shared/work-key.ts";
import { bindingName, bindingUpToDate, desiredBinding } from "./binding-spec.ts";
import type { Caches } from "./caches.ts";
import { DivisionError } from "./replica-division.ts";
import { type Schedule, scheduleTemplate, schedulable } from "./schedule.ts";
import { matchPolicy } from "./policy-match.ts";
import { isPropagatable, type KindRef, keyOf, type TemplateInformers } from "./template-informers.ts";

const FIELD_MANAGER = "flotilla-binding-controller";

/**
 * The detector and (Duplicated) scheduler: template × policies × clusters → ResourceBinding.
 * Keys are template keys. A template no policy selects loses its binding; the binding's
 * finalizer then holds it until the agents confirm removal.
 */
export class BindingController {
  readonly controller: Controller;
  private readonly caches: Caches;
  private readonly templates: TemplateInformers;
  private readonly rest: KubeRest;
  private readonly log: Logger;

  constructor(opts: { caches: Caches; templates: TemplateInformers; rest: KubeRest; log: Logger; workers?: number }) {
    this.caches = opts.caches;
    this.templates = opts.templates;
    this.rest = opts.rest;
    this.log = opts.log;
    this.controller = new Controller({ name: "binding", reconcile: (k) => this.reconcile(k), log: opts.log, workers: opts.workers ?? 8 });
    const policyChanged = (p: PropagationPolicy) => this.enqueueForPolicy(p);
    this.caches.policies.on({ add: policyChanged, update: policyChanged, delete: policyChanged });
    this.caches.clusterPolicies.on({ add: policyChanged, update: policyChanged, delete: policyChanged });
    // Placement depends on labels, spec and whether a cluster can take Divided replicas.
    this.caches.onClusterShapeChange((c) => JSON.stringify([c.metadata.labels ?? {}, c.spec ?? {}, schedulable(c)]), () => this.rescheduleAll());
    const bindingChanged = (b: ResourceBinding) => this.controller.enqueue(keyOfResource(b));
    this.caches.bindings.on({ delete: bindingChanged });
    this.caches.clusterBindings.on({ delete: bindingChanged });
  }

  /** A template changed (called by the template informers). */
  templateChanged(key: string): void {
    this.controller.enqueue(key);
  }

  /** Every template of every watched kind, for the initial sync. */
  enqueueAll(kinds: KindRef[]): void {
    for (const k of kinds) for (const t of this.templates.list(k)) this.controller.enqueue(keyOf(t));
    for (const b of this.caches.allBindings()) this.controller.enqueue(keyOfResource(b));
  }

  private enqueueForPolicy(p: PropagationPolicy): void {
    for (const s of p.spec.resourceSelectors ?? []) {
      for (const t of this.templates.list(s)) this.controller.enqueue(keyOf(t));
    }
    // Templates it used to place (its selectors may have changed or it may be gone).
    for (const b of this.caches.allBindings()) {
      if (b.metadata.labels?.["flotilla.dev/policy-name"] === p.metadata.name) this.controller.enqueue(keyOfResource(b));
    }
  }

  private rescheduleAll(): void {
    for (const b of this.caches.allBindings()) this.controller.enqueue(keyOfResource(b));
    for (const p of this.caches.allPolicies()) for (const s of p.spec.resourceSelectors ?? []) {
      for (const t of this.templates.list(s)) this.controller.enqueue(keyOf(t));
    }
  }

  private async reconcile(key: string): Promise<undefined> {
    const ref = parseWorkKey(key);
    if (!isPropagatable(ref)) return undefined;
    const template = this.templates.get(ref);
    const existing = this.caches.bindingOf(ref);
    const resource = ref.namespace ? RESOURCES.resourceBinding : RESOURCES.clusterResourceBinding;
    const path = objectPath(resource, ref.namespace, bindingName(ref));
    const gone = template === undefined && this.templates.watching(ref);
    if (template === undefined || template.metadata.deletionTimestamp !== undefined) {
      // The owner reference lets the garbage collector remove the binding too, but it may take
      // a discovery period to notice a new CRD; deleting it ourselves starts cleanup at once.
      if (gone && existing !== undefined && existing.metadata.deletionTimestamp === undefined) await this.deleteBinding(path);
      return undefined;
    }
    const match = matchPolicy(template, this.caches.allPolicies());
    if (match === undefined) {
      if (existing !== undefined && existing.metadata.deletionTimestamp === undefined) await this.deleteBinding(path);
      return undefined;
    }
    let schedule: Schedule;
    try {
      schedule = scheduleTemplate(template, match.policy, this.caches.clusters.list(), existing?.spec.clusters);
    } catch (err) {
      if (err instanceof DivisionError) throw new TerminalError(`policy ${match.policy.metadata.name}: ${err.message}`);
      throw err;
    }
    if (schedule.unplaced > 0) this.log.warn({ template: key, unplaced: schedule.unplaced }, schedule.message ?? "replicas unplaced");
    const desired = desiredBinding(template, match.policy, schedule.targets);
    if (existing !== undefined && existing.metadata.deletionTimestamp === undefined && bindingUpToDate(existing, desired)) return undefined;
    if (existing?.metadata.deletionTimestamp !== undefined) {
      // The old binding is still being cleaned up; come back when it is gone (its delete event requeues us).
      return undefined;
    }
    await this.rest.apply(path, desired, FIELD_MANAGER);
    return undefined;
  }

  private async deleteBinding(path: string): Promise<void> {
    await this.rest.delete(path).catch((err: unknown) => {
      if (!isKubeStatus(err, 404)) throw err;
    });
  }
}

/** The template key a binding refers to. */
export function keyOfResource(b: ResourceBinding): string {
  const r = b.spec.resource;
  return keyOf({ apiVersion: r.apiVersion, kind: r.kind, metadata: { name: r.name, namespace: r.namespace } });
}
