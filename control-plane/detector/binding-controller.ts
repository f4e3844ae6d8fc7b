import type { Logger } from "pino";
import { RESOURCES } from "../../shared/api/resources.ts";
import type { KubeObject, PropagationPolicy, ResourceBinding } from "../../shared/api/types.ts";
import { Controller, type ReconcileResult } from "../../shared/controller.ts";
import { type KubeRest, objectPath } from "../../shared/kube-rest.ts";
import { writeBinding } from "./write-binding.ts";
import { type InterpreterRegistry, NATIVE_INTERPRETERS } from "../../shared/interpreter/registry.ts";
import { parseWorkKey, templateKey, templateKeyOfBinding } from "../../shared/work-key.ts";
import { BINDING_FINALIZER, bindingName, bindingUpToDate, isCurrentBinding, movedBinding } from "../scheduling/binding-spec.ts";
import type { Caches } from "../caches/caches.ts";
import { keysAffected } from "./cluster-change.ts";
import type { ReplacementSeen } from "../scheduling/graceful-eviction.ts";
import { DependencyTracker } from "./dependency-tracker.ts";
import { MoveSignals } from "./move-signals.ts";
import { FailoverSignals } from "./failover-signals.ts";
import { LostBindings } from "./lost-bindings.ts";
import { bindingPath, ignoreNotFound } from "./binding-paths.ts";
import { releaseBinding, unreleaseBinding } from "./binding-release.ts";
import { onPolicyInputs, overrideLookup, priorityLookup, priorityQueue } from "./policy-inputs.ts";
import { groupPeers } from "./workload-groups.ts";
import { placeTemplate, type QuotaGuard } from "./template-placement.ts";
import { schedulable } from "../scheduling/schedule.ts";
import { CACHE_RECHECK_MS, FreshServed } from "./fresh-served.ts";
import type { ScheduleOutcomes } from "../scheduling/schedule-outcomes.ts";
import { bindingPolicyId, claimPolicy } from "../scheduling/policy-match.ts";
import { isPropagatable, type KindRef, type TemplateInformers } from "./template-informers.ts";

const FIELD_MANAGER = "flotilla-binding-controller";

/**
 * --dependency-release-grace-period's default: how long every parent must have let a dependency go,
 * on synced caches, before its binding is released (a parent binding deleted by hand is made again).
 */
export const DEPENDENCY_RELEASE_GRACE_MS = 10_000;

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
  private readonly deps: DependencyTracker;
  /** Parent binding key → what its dependencies' bindings are made of, last seen. */
  private readonly parentShapes = new Map<string, string>();
  /** Dependency key → since when no parent has required it (released after the grace period). */
  private readonly dependencyRelease = new Map<string, number>();
  /** Binding key → when its replacement was first seen Available, while an eviction pends (graceful eviction waits out the period from then too); in memory only: a restart or a new leader starts the clock again, which only delays a release. */
  private readonly replacementSeen = new Map<string, ReplacementSeen>();
  private readonly fresh = new FreshServed(() => this.now());
  private readonly evictionPeriodMs: number;
  private readonly unschedulableThresholdMs: number;
  private readonly dependencyReleaseGraceMs: number;
  private readonly moveSignals = new MoveSignals();
  private readonly failover = new FailoverSignals();
  /** Bindings gone while their templates live, to be made again as they were. */
  private readonly lost = new LostBindings();
  private readonly requireAcceptance: boolean;
  private readonly interpreters: InterpreterRegistry;
  private readonly quotaGuard: QuotaGuard | undefined;
  private readonly now: () => number;
  constructor(opts: {
    caches: Caches;
    templates: TemplateInformers;
    rest: KubeRest;
    outcomes: ScheduleOutcomes;
    log: Logger;
    /** The least time a not-Ready cluster keeps its copy once its replacement is Available (graceful eviction). */
    evictionPeriodMs: number;
    /** --unschedulable-threshold: replicas whose pods stay Unschedulable this long move (0: never). */
    unschedulableThresholdMs?: number;
    /** --dependency-release-grace-period (default DEPENDENCY_RELEASE_GRACE_MS). */
    dependencyReleaseGraceMs?: number;
    /** --require-acceptance: clusters not accepted get no new templates. */
    requireAcceptance?: boolean;
    /** Each kind's interpreter (customizations over the native ones). */
    interpreters?: InterpreterRegistry;
    quotaGuard?: QuotaGuard /* issue 26 */;
    now?: () => number;
    workers?: number;
  }) {
    this.evictionPeriodMs = opts.evictionPeriodMs;
    this.unschedulableThresholdMs = opts.unschedulableThresholdMs ?? 0;
    this.dependencyReleaseGraceMs = opts.dependencyReleaseGraceMs ?? DEPENDENCY_RELEASE_GRACE_MS;
    this.requireAcceptance = opts.requireAcceptance ?? false;
    this.interpreters = opts.interpreters ?? NATIVE_INTERPRETERS;
    this.quotaGuard = opts.quotaGuard;
    this.now = opts.now ?? Date.now;
    this.caches = opts.caches;
    this.templates = opts.templates;
    this.rest = opts.rest;
    this.log = opts.log;
    this.outcomes = opts.outcomes;
    this.deps = new DependencyTracker({ caches: opts.caches, templates: opts.templates, interpreters: this.interpreters });
    this.controller = new Controller({ name: "binding", reconcile: (k) => this.reconcile(k), log: opts.log, workers: opts.workers ?? 16 /* --concurrent-resource-template-syncs */, queue: priorityQueue(opts.caches) });
    const policyChanged = (p: PropagationPolicy) => this.enqueueForPolicy(p);
    for (const inf of [this.caches.policies, this.caches.clusterPolicies]) inf.on({ add: policyChanged, update: policyChanged, delete: policyChanged });
    onPolicyInputs(this.caches, policyChanged);
    // Placement depends on labels, spec and whether a cluster can take Divided replicas; one cluster's change reschedules what it can move (cluster-change.ts), not the whole fleet.
    const index = this.caches.bindingIndex;
    const lookup = { targeting: (c: string) => index.targeting(c), evictingFrom: (c: string) => index.evictingFrom(c), placedBy: (p: PropagationPolicy) => this.caches.placedBy(p) };
    this.caches.onClusterShapeChange(
      (c) => JSON.stringify([c.metadata.labels ?? {}, c.spec ?? {}, schedulable(c), c.metadata.deletionTimestamp ?? ""]),
      (name, before, after) => {
        for (const k of keysAffected(name, { before, after }, this.caches.allPolicies(), lookup)) this.controller.enqueue(k);
      },
    );
    const bindingChanged = (b: ResourceBinding) => this.controller.enqueue(templateKeyOfBinding(b));
    // A binding under a legacy name (an earlier version's) is moved as soon as it is seen; one that asks for a fresh reschedule gets it.
    const legacyChanged = (b: ResourceBinding) => (!isCurrentBinding(b) || this.fresh.due(templateKeyOfBinding(b), b)) && bindingChanged(b);
    for (const inf of [this.caches.bindings, this.caches.clusterBindings]) inf.on({ add: legacyChanged, update: legacyChanged, delete: bindingChanged });
    this.lost.follow([this.caches.bindings, this.caches.clusterBindings], this.templates);
    // A parent's dependencies follow its binding: where it goes, and whether it still exists. Only what a dependency's binding is made of counts: a parent's status writes change nothing.
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
    // Unschedulable pods reported, or a move's replicas running elsewhere: move-signals.ts; health words, for application failover: failover-signals.ts.
    const statusChanged = (b: ResourceBinding, gone: boolean) => [this.moveSignals.changed(this.caches.bindingEntries.complete(b), gone), this.failover.changed(this.caches.bindingEntries.complete(b), gone)].includes(true) && this.controller.enqueue(templateKeyOfBinding(b));
    for (const inf of [this.caches.bindings, this.caches.clusterBindings]) inf.on({ add: (b) => statusChanged(b, false), update: (b) => statusChanged(b, false), delete: (b) => statusChanged(b, true) });
  }

  /** The kinds that parents' dependencies name, to be watched (wantedKinds); the listener hears when they may change. */
  dependencyKinds(): KindRef[] {
    return this.deps.kinds();
  }

  readonly onDependencyKindsChange = (listener: () => void): void => this.deps.onKindsChange(listener);

  /** A template changed (called by the template informers). */
  templateChanged(key: string): void {
    this.controller.enqueue(key);
  }

  /** Every template of every watched kind, for the initial sync (and on taking the lead). */
  enqueueAll(kinds: KindRef[]): void {
    for (const k of kinds) for (const t of this.templates.list(k)) this.controller.enqueue(templateKey(t));
    for (const b of [...this.caches.allBindings(), ...this.caches.legacyBindings()]) this.controller.enqueue(templateKeyOfBinding(b));
  }

  /** The bindings of a kind just watched: one whose template went while the kind was not watched is heard of only here. */
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
    const fresh = this.fresh.input(key, this.caches.currentBindingOf(ref));
    if (fresh === "behind") return { requeueAfterMs: CACHE_RECHECK_MS };
    // Taken out here and put back only by a placement that still has an eviction pending, so every other way out (template or binding gone, unclaimed, no task left) forgets it.
    const availableSince = this.replacementSeen.get(key);
    this.replacementSeen.delete(key);
    const template = this.templates.get(ref);
    const current = this.caches.currentBindingOf(ref);
    // What the template had: its current binding, or the one an earlier version named (being moved).
    const existing = current ?? this.caches.legacyBindingOf(ref);
    const legacy = current === undefined ? existing : this.caches.legacyBindingOf(ref);
    const resource = ref.namespace ? RESOURCES.resourceBinding : RESOURCES.clusterResourceBinding;
    const path = objectPath(resource, ref.namespace, bindingName(ref));
    const gone = template === undefined && this.templates.watching(ref);
    if (template === undefined || template.metadata.deletionTimestamp !== undefined) {
      this.outcomes.delete(key);
      this.dependencyRelease.delete(key);
      if (gone || template !== undefined) this.lost.forget(key); // not while its kind has not listed
      this.noteDependencies(key, undefined);
      // The garbage collector removes the binding too, but may take a discovery period to notice a new CRD; deleting it ourselves starts cleanup at once.
      // Intent: the template (seen gone on a synced informer) is deleted.
      for (const b of [current, legacy]) if (gone && b !== undefined && b.metadata.deletionTimestamp === undefined) await this.deleteBinding(bindingPath(b));
      return undefined;
    }
    // Made again after a deletion without intent: from the binding as it was, if this process saw it go (forgotten once one is added: lost-bindings.ts).
    const before = existing ?? this.lost.of(key, template.metadata.uid);
    const match = claimPolicy(template, this.caches.allPolicies(), before === undefined ? undefined : bindingPolicyId(before));
    const dependenciesFailed = this.noteDependencies(key, this.deps.follows(key, match?.policy.spec.propagateDeps === true) ? template : undefined);
    // Any kind can be a dependency; only a kind some parent refers to, or an object something required, needs the look.
    const requiredBy = (before?.spec.requiredBy ?? []).length > 0 || this.deps.refersToKind(ref) ? this.deps.requiredBy(template, before) : [];
    if (match === undefined && requiredBy.length === 0) return this.unclaimed(key, path, existing, current, legacy);
    this.dependencyRelease.delete(key);
    const placed = placeTemplate({
      template,
      policy: match?.policy,
      existing: this.caches.bindingEntries.complete(before), // every cluster's entry (issue 25)
      live: this.caches.placeableClusters(),
      requireAcceptance: this.requireAcceptance,
      now: this.now(),
      evictionPeriodMs: this.evictionPeriodMs,
      unschedulableThresholdMs: this.unschedulableThresholdMs,
      ...(availableSince ? { availableSince } : {}),
      requiredBy,
      requires: this.deps.known(key).filter((k) => k !== key), // a script that names its own object adds nothing
      interpreter: this.interpreters.for(template),
      overrideExists: overrideLookup(this.caches, match?.policy),
      priorityValue: priorityLookup(this.caches),
      groupPeers: groupPeers(this.caches, this.templates, ref),
      quotaGuard: this.quotaGuard,
      ...fresh,
      ...this.failover.take(key),
    });
    if (!("interpreterFailed" in placed)) this.failover.keep(key, placed.unhealthySince);
    // A customization's script failed: the binding keeps what it has and says why (its next change requeues the template).
    if ("interpreterFailed" in placed) {
      this.outcomes.set(key, { interpreterFailed: placed.interpreterFailed });
      return undefined;
    }
    const { desired } = placed;
    // Its dependencies' script failed: the binding says so and keeps them (noteDependencies kept the last answer).
    const outcome = dependenciesFailed === undefined ? placed.outcome : { ...placed.outcome, interpreterFailed: dependenciesFailed };
    if (placed.availableSince !== undefined) this.replacementSeen.set(key, placed.availableSince);
    if (outcome === undefined) this.outcomes.delete(key);
    else this.outcomes.set(key, outcome);
    const recheck: ReconcileResult = placed.recheckAfterMs === undefined ? undefined : { requeueAfterMs: placed.recheckAfterMs };
    if (current?.metadata.deletionTimestamp !== undefined) {
      // The old binding is still being cleaned up; come back when it is gone (its delete event requeues us). Released, it is wanted again: its removals stop.
      await unreleaseBinding(this.rest, path, current);
      return undefined;
    }
    // A new binding's Works go out while it is written (write-binding.ts).
    const ahead = existing === undefined ? { bindings: this.caches.bindingsAhead, key, seen: () => this.caches.currentBindingOf(ref) } : undefined;
    if (current === undefined || !bindingUpToDate(current, desired)) await writeBinding(this.rest, path, desired, FIELD_MANAGER, ahead);
    if (fresh.freshTrigger !== undefined) this.fresh.written(key, fresh.freshTrigger);
    await this.moved(legacy);
    return recheck;
  }

  /**
   * No policy claims the template and nothing depends on it. A binding a policy made keeps its
   * last placement (a policy deleted or no longer selecting is no intent: DESIGN §11, as Karmada).
   * A dependency's binding (no policy ever claimed it) goes once its parents have let it go for
   * a grace period on synced caches: a parent's binding deleted by hand and made again meanwhile
   * does not release it.
   */
  private async unclaimed(key: string, path: string, existing: ResourceBinding | undefined, current: ResourceBinding | undefined, legacy: ResourceBinding | undefined): Promise<ReconcileResult> {
    if (existing === undefined || existing.metadata.deletionTimestamp !== undefined) {
      this.outcomes.delete(key);
      return undefined;
    }
    if (bindingPolicyId(existing) === undefined && (existing.spec.requiredBy ?? []).length > 0) {
      const since = this.dependencyRelease.get(key) ?? this.now();
      this.dependencyRelease.set(key, since);
      const wait = since + this.dependencyReleaseGraceMs - this.now();
      if (wait > 0) return { requeueAfterMs: wait };
      this.dependencyRelease.delete(key);
      this.outcomes.delete(key);
      // Intent: every parent that required it let it go (deleted, moved, or no longer refers to it).
      await releaseBinding(this.rest, bindingPath(existing), "DependencyReleased");
      return undefined;
    }
    const clusters = existing.spec.clusters.map((c) => c.name);
    this.outcomes.set(key, {
      unclaimed: `no PropagationPolicy or ClusterPropagationPolicy selects this template; it keeps its last placement (${clusters.length === 0 ? "no clusters" : clusters.join(", ")}) until a policy claims it or the template is deleted`,
    });
    if (current === undefined) {
      // Moving a legacy binding: the current one starts as its copy, so no member sees a change.
      await this.rest.apply(path, movedBinding(existing, bindingName(existing.spec.resource)), FIELD_MANAGER);
    }
    await this.moved(legacy);
    return undefined;
  }

  /** A legacy binding whose template now has its current binding: released (finalizer off) and deleted, which removes nothing in any member. */
  private async moved(legacy: ResourceBinding | undefined): Promise<void> {
    if (legacy === undefined || legacy.metadata.deletionTimestamp !== undefined) return;
    const path = bindingPath(legacy);
    await this.rest
      .mergePatch(path, { metadata: { finalizers: (legacy.metadata.finalizers ?? []).filter((f) => f !== BINDING_FINALIZER), resourceVersion: legacy.metadata.resourceVersion } })
      .catch(ignoreNotFound);
    await this.deleteBinding(path);
    this.log.info({ binding: legacy.metadata.name, namespace: legacy.metadata.namespace, now: bindingName(legacy.spec.resource) }, "binding moved to its current name");
  }

  /** Remembers what a parent needs and requeues what it needed before and needs now; returns why its InterpretDependency failed, if it did. */
  private noteDependencies(parentKey: string, template: KubeObject | undefined): string | undefined {
    const { touched, failed } = this.deps.note(parentKey, template);
    for (const d of touched) if (d !== parentKey) this.controller.enqueue(d);
    return failed;
  }

  private readonly deleteBinding = (path: string): Promise<void> => this.rest.delete(path).then(() => undefined, ignoreNotFound);
}
