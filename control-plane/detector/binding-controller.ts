import type { Logger } from "pino";
import { RESOURCES } from "../../shared/api/resources.ts";
import type { GracefulEvictionTask, KubeObject, PropagationPolicy, ResourceBinding, TargetCluster } from "../../shared/api/types.ts";
import { Controller, type ReconcileResult } from "../../shared/controller.ts";
import { isKubeStatus, type KubeRest, objectPath } from "../../shared/kube-rest.ts";
import { parseWorkKey, templateKey, templateKeyOfBinding } from "../../shared/work-key.ts";
import { bindingName, bindingUpToDate, desiredBinding, type RequiredBy } from "../scheduling/binding-spec.ts";
import type { Caches } from "../caches.ts";
import { keysAffected } from "./cluster-change.ts";
import { isDependencyKind } from "./dependencies.ts";
import { placementAfter } from "../scheduling/graceful-eviction.ts";
import { DependencyIndex } from "./dependency-index.ts";
import { type Schedule, scheduleTemplate, schedulable } from "../scheduling/schedule.ts";
import type { ScheduleOutcome, ScheduleOutcomes } from "../scheduling/schedule-outcomes.ts";
import { matchPolicy } from "../scheduling/policy-match.ts";
import { admittedClusters } from "../scheduling/acceptance.ts";
import { isPropagatable, type KindRef, type TemplateInformers } from "./template-informers.ts";

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
  private readonly outcomes: ScheduleOutcomes;
  private readonly deps = new DependencyIndex();
  /** Parent binding key → what its dependencies' bindings are made of, last seen. */
  private readonly parentShapes = new Map<string, string>();

  private readonly evictionPeriodMs: number;
  private readonly requireAcceptance: boolean;
  private readonly now: () => number;

  constructor(opts: {
    caches: Caches;
    templates: TemplateInformers;
    rest: KubeRest;
    outcomes: ScheduleOutcomes;
    log: Logger;
    /** The least time a not-Ready cluster keeps its copy once its replacement is Available (graceful eviction). */
    evictionPeriodMs: number;
    /** --require-acceptance: clusters not accepted get no new templates. */
    requireAcceptance?: boolean;
    now?: () => number;
    workers?: number;
  }) {
    this.evictionPeriodMs = opts.evictionPeriodMs;
    this.requireAcceptance = opts.requireAcceptance ?? false;
    this.now = opts.now ?? Date.now;
    this.caches = opts.caches;
    this.templates = opts.templates;
    this.rest = opts.rest;
    this.log = opts.log;
    this.outcomes = opts.outcomes;
    this.controller = new Controller({ name: "binding", reconcile: (k) => this.reconcile(k), log: opts.log, workers: opts.workers ?? 8 });
    const policyChanged = (p: PropagationPolicy) => this.enqueueForPolicy(p);
    this.caches.policies.on({ add: policyChanged, update: policyChanged, delete: policyChanged });
    this.caches.clusterPolicies.on({ add: policyChanged, update: policyChanged, delete: policyChanged });
    // Placement depends on labels, spec and whether a cluster can take Divided replicas; one
    // cluster's change reschedules what it can move (cluster-change.ts), not the whole fleet.
    const index = this.caches.bindingIndex;
    const lookup = { targeting: (c: string) => index.targeting(c), evictingFrom: (c: string) => index.evictingFrom(c), placedBy: (p: PropagationPolicy) => this.caches.placedBy(p) };
    this.caches.onClusterShapeChange(
      (c) => JSON.stringify([c.metadata.labels ?? {}, c.spec ?? {}, schedulable(c), c.metadata.deletionTimestamp ?? ""]),
      (name, before, after) => {
        for (const k of keysAffected(name, { before, after }, this.caches.allPolicies(), lookup)) this.controller.enqueue(k);
      },
    );
    const bindingChanged = (b: ResourceBinding) => this.controller.enqueue(templateKeyOfBinding(b));
    this.caches.bindings.on({ delete: bindingChanged });
    this.caches.clusterBindings.on({ delete: bindingChanged });
    // A parent's dependencies follow its binding: where it goes, and whether it still exists.
    // Only what a dependency's binding is made of counts: a parent's status writes change nothing.
    const parentChanged = (b: ResourceBinding, gone: boolean) => {
      const parentKey = templateKeyOfBinding(b);
      const needs = this.deps.known(parentKey);
      const shape = gone ? "" : JSON.stringify([b.spec.clusters.map((c) => c.name), b.spec.propagateDeps, b.spec.conflictResolution, b.metadata.deletionTimestamp]);
      if (needs.length === 0 || this.parentShapes.get(parentKey) === shape) return;
      if (gone) this.parentShapes.delete(parentKey);
      else this.parentShapes.set(parentKey, shape);
      for (const d of needs) this.controller.enqueue(d);
    };
    this.caches.bindings.on({ add: (b) => parentChanged(b, false), update: (b) => parentChanged(b, false), delete: (b) => parentChanged(b, true) });
  }

  /** A template changed (called by the template informers). */
  templateChanged(key: string): void {
    this.controller.enqueue(key);
  }

  /** Every template of every watched kind, for the initial sync (and on taking the lead). */
  enqueueAll(kinds: KindRef[]): void {
    for (const k of kinds) for (const t of this.templates.list(k)) this.controller.enqueue(templateKey(t));
    for (const b of this.caches.allBindings()) this.controller.enqueue(templateKeyOfBinding(b));
  }

  /**
   * The bindings of a kind just watched. Its informer reports every template it finds as it
   * starts; a binding whose template went while the kind was not watched is heard of only here.
   */
  enqueueBindingsOfKind(k: KindRef): void {
    for (const key of this.caches.bindingIndex.ofKind(k)) this.controller.enqueue(key);
  }

  private enqueueForPolicy(p: PropagationPolicy): void {
    for (const s of p.spec.resourceSelectors ?? []) {
      for (const t of this.templates.list(s)) this.controller.enqueue(templateKey(t));
    }
    // Templates it used to place (its selectors may have changed or it may be gone).
    for (const key of this.caches.placedBy(p)) this.controller.enqueue(key);
  }

  private async reconcile(key: string): Promise<ReconcileResult> {
    const ref = parseWorkKey(key);
    if (!isPropagatable(ref)) return undefined;
    const template = this.templates.get(ref);
    const existing = this.caches.bindingOf(ref);
    const resource = ref.namespace ? RESOURCES.resourceBinding : RESOURCES.clusterResourceBinding;
    const path = objectPath(resource, ref.namespace, bindingName(ref));
    const gone = template === undefined && this.templates.watching(ref);
    if (template === undefined || template.metadata.deletionTimestamp !== undefined) {
      this.outcomes.delete(key);
      this.noteDependencies(key, undefined);
      // The owner reference lets the garbage collector remove the binding too, but it may take
      // a discovery period to notice a new CRD; deleting it ourselves starts cleanup at once.
      if (gone && existing !== undefined && existing.metadata.deletionTimestamp === undefined) await this.deleteBinding(path);
      return undefined;
    }
    const match = matchPolicy(template, this.caches.allPolicies());
    this.noteDependencies(key, match?.policy.spec.propagateDeps === true ? template : undefined);
    const requiredBy = isDependencyKind(ref) ? this.requiredBy(template) : [];
    if (match === undefined && requiredBy.length === 0) {
      this.outcomes.delete(key);
      if (existing !== undefined && existing.metadata.deletionTimestamp === undefined) await this.deleteBinding(path);
      return undefined;
    }
    let targets: TargetCluster[] = [];
    let evictions: GracefulEvictionTask[] = [];
    let recheck: ReconcileResult;
    if (match !== undefined) {
      const live = this.caches.placeableClusters();
      const schedule = scheduleTemplate(template, match.policy, admittedClusters(live, existing?.spec.clusters, this.requireAcceptance), existing?.spec.clusters);
      const placed = placementAfter({ schedule, existing, policy: match.policy, live, now: this.now(), evictionPeriodMs: this.evictionPeriodMs });
      ({ targets, evictions } = placed);
      this.outcomes.set(key, outcomeOf(schedule, match.policy.metadata.name ?? "", targets.length > 0));
      if (placed.recheckAfterMs !== undefined) recheck = { requeueAfterMs: placed.recheckAfterMs };
    } else {
      this.outcomes.delete(key);
    }
    const desired = desiredBinding(template, match?.policy, targets, requiredBy, evictions);
    if (existing !== undefined && existing.metadata.deletionTimestamp === undefined && bindingUpToDate(existing, desired)) return recheck;
    if (existing?.metadata.deletionTimestamp !== undefined) {
      // The old binding is still being cleaned up; come back when it is gone (its delete event requeues us).
      return undefined;
    }
    await this.rest.apply(path, desired, FIELD_MANAGER);
    return recheck;
  }

  /**
   * Remembers what a parent (a template under a propagateDeps policy) needs, and requeues the
   * dependencies it needed before and needs now, so they follow its binding.
   */
  private noteDependencies(parentKey: string, template: KubeObject | undefined): void {
    const before = this.deps.known(parentKey);
    const now = template === undefined ? [] : this.deps.depsOf(parentKey, template);
    if (template === undefined) this.deps.forget(parentKey);
    for (const d of new Set([...before, ...now])) if (d !== parentKey) this.controller.enqueue(d);
  }

  /** The live bindings (propagateDeps) whose templates refer to this object, with their clusters. */
  private requiredBy(dep: KubeObject): RequiredBy[] {
    const depKey = templateKey(dep);
    const needs: RequiredBy[] = [];
    for (const b of this.caches.bindings.list(dep.metadata.namespace)) {
      if (b.spec.propagateDeps !== true || b.metadata.deletionTimestamp !== undefined) continue;
      const parentKey = templateKeyOfBinding(b);
      const parent = this.templates.get(parseWorkKey(parentKey));
      if (parent === undefined || parent.metadata.deletionTimestamp !== undefined) continue;
      if (!this.deps.depsOf(parentKey, parent).includes(depKey)) continue;
      needs.push({ name: b.metadata.name ?? "", clusters: b.spec.clusters.map((c) => c.name), ...(b.spec.conflictResolution ? { conflictResolution: b.spec.conflictResolution } : {}) });
    }
    return needs;
  }

  private async deleteBinding(path: string): Promise<void> {
    await this.rest.delete(path).catch((err: unknown) => {
      if (!isKubeStatus(err, 404)) throw err;
    });
  }
}

/**
 * What the binding's status should say about a schedule (beyond its targets). kept: the binding
 * keeps clusters although the schedule placed nothing (its last placement, while none is Ready).
 */
export function outcomeOf(schedule: Schedule, policyName: string, kept = false): ScheduleOutcome {
  const unschedulable = schedule.message === undefined ? undefined : schedule.targets.length === 0 && kept ? `${schedule.message}; the clusters keep what they run` : schedule.message;
  return {
    ...(schedule.error !== undefined ? { error: `policy ${policyName}: ${schedule.error}` } : {}),
    ...(schedule.error === undefined && unschedulable !== undefined ? { unschedulable } : {}),
    ...(schedule.affinityName !== undefined ? { affinityName: schedule.affinityName } : {}),
  };
}
