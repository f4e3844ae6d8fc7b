// The progressive rollout controller (issue 23; leader only). For each binding under a policy with
// spec.rollout it stores the template's revision (before any state names it), reads what each
// cluster reports at the revision it was told, runs the wave planner, and writes the binding's
// status.rollout when it changed, under the binding's resourceVersion: a user's command written
// meanwhile makes the write fail (409) and the next look starts from it. The work cache, on every
// replica, then renders each cluster at the revision the state names. Nothing here deletes a member
// object: a rollout only changes which revision a cluster's Work is rendered from.
import type { Logger } from "pino";
import type { ResourceBinding, RolloutState } from "../../shared/api/types.ts";
import { canonicalJson } from "../../shared/content-hash.ts";
import { Controller, type ReconcileResult } from "../../shared/controller.ts";
import type { InterpreterRegistry } from "../../shared/interpreter/registry.ts";
import { isKubeStatus, type KubeRest, objectPath } from "../../shared/kube-rest.ts";
import { RESOURCES } from "../../shared/api/resources.ts";
import { parseWorkKey, templateKeyOfBinding } from "../../shared/work-key.ts";
import type { Caches } from "../caches/caches.ts";
import type { TemplateInformers } from "../detector/template-informers.ts";
import { observedOf } from "../rollout/observed.ts";
import { planOfBinding } from "../rollout/rollout-groups.ts";
import { rolloutStatePatch, ROLLOUT_PATCH_CONTENT_TYPE } from "../rollout/state-patch.ts";
import { planWaves } from "../rollout/wave-plan.ts";
import { type EventRecorder, involvedObjectOf } from "../status/event-recorder.ts";
import type { RevisionStore } from "../works/revision-store.ts";
import { revisionOf } from "../works/rollout-revisions.ts";
import type { WorkStore } from "../works/work-store.ts";
import { rolloutEvent } from "./rollout-events.ts";

/** The field manager of the binding's status.rollout. */
export const ROLLOUT_FIELD_MANAGER = "flotilla-rollout";

export class RolloutController {
  readonly controller: Controller;
  /** template key → its rollout's state as last written or read (for the metrics). */
  readonly states = new Map<string, RolloutState>();
  readonly counts = { writes: 0, conflicts: 0 };
  private readonly caches: Caches;
  private readonly templates: TemplateInformers;
  private readonly works: WorkStore;
  private readonly revisions: RevisionStore;
  private readonly rest: KubeRest;
  private readonly recorder: EventRecorder | undefined;
  private readonly interpreters: InterpreterRegistry;
  private readonly log: Logger;
  private readonly now: () => number;

  constructor(opts: {
    caches: Caches;
    templates: TemplateInformers;
    works: WorkStore;
    revisions: RevisionStore;
    rest: KubeRest;
    recorder?: EventRecorder;
    interpreters: InterpreterRegistry;
    log: Logger;
    now?: () => number;
  }) {
    this.caches = opts.caches;
    this.templates = opts.templates;
    this.works = opts.works;
    this.revisions = opts.revisions;
    this.rest = opts.rest;
    this.recorder = opts.recorder;
    this.interpreters = opts.interpreters;
    this.log = opts.log.child({ component: "rollout" });
    this.now = opts.now ?? Date.now;
    this.controller = new Controller({ name: "rollout", reconcile: (k) => this.reconcile(k), log: this.log, workers: 2 });
    const changed = (b: ResourceBinding) => {
      if (b.spec.rollout !== undefined || b.status?.rollout !== undefined) this.controller.enqueue(templateKeyOfBinding(b));
    };
    for (const inf of [this.caches.bindings, this.caches.clusterBindings]) inf.on({ add: changed, update: changed, delete: (b) => this.states.delete(templateKeyOfBinding(b)) });
    // A re-rendered Work changes what a report means (its hash against the Work's).
    this.works.subscribeAll((_cluster, key) => this.enqueueIfRolling(key));
  }

  templateChanged(key: string): void {
    this.enqueueIfRolling(key);
  }

  enqueueAll(): void {
    for (const b of this.caches.allBindings()) if (b.spec.rollout !== undefined || b.status?.rollout !== undefined) this.controller.enqueue(templateKeyOfBinding(b));
  }

  private enqueueIfRolling(key: string): void {
    const b = this.caches.bindingOf(parseWorkKey(key));
    if (b?.spec.rollout !== undefined) this.controller.enqueue(key);
  }

  private async reconcile(key: string): Promise<ReconcileResult> {
    const ref = parseWorkKey(key);
    const binding = this.caches.bindingOf(ref);
    if (binding === undefined || binding.metadata.deletionTimestamp !== undefined) {
      this.states.delete(key);
      return undefined;
    }
    const previous = binding.status?.rollout;
    const strategy = binding.spec.rollout;
    if (strategy === undefined) {
      // The policy no longer asks for a rollout: every cluster runs the template (work cache), the state goes.
      this.states.delete(key);
      if (previous !== undefined) await this.write(binding, previous, undefined);
      return undefined;
    }
    const template = this.templates.get(ref);
    if (template === undefined || template.metadata.deletionTimestamp !== undefined) return undefined;
    if (binding.spec.resource.uid !== undefined && binding.spec.resource.uid !== "" && binding.spec.resource.uid !== template.metadata.uid) return undefined;
    const current = revisionOf(template, this.interpreters.for(template));
    if ("error" in current) {
      this.log.warn({ template: key, err: current.error }, "the template's revision cannot be computed: its rollout waits");
      return undefined;
    }
    // Stored before any state names it: a replica renders a cluster at a revision only from its copy.
    await this.revisions.record(key, template, binding.metadata.name ?? "", current.revision, current.cleaned);
    const plan = planOfBinding(strategy, binding, (n) => this.caches.clusters.get(n));
    // Every cluster's entry, also those a large binding's status leaves out (issue 25).
    const observed = observedOf(this.caches.bindingEntries.of(binding), (cluster) => {
      const w = this.works.get(cluster, key);
      return w?.revision === undefined ? undefined : { hash: w.hash, revision: w.revision };
    });
    // A rollout goes back to the revisions the clusters run: one not stored (deleted by hand) cannot
    // be rendered, so without the stable revision the change goes out at once, and the state says why.
    const missing = previous === undefined ? [] : [...new Set([previous.stableRevision, ...previous.clusters.map((c) => c.revision)])].filter((r) => r !== current.revision && this.revisions.get(key, r) === undefined);
    const result = planWaves({ plan, revision: current.revision, previous: missing.length > 0 ? undefined : previous, observed, now: this.now() });
    const state = result.state;
    if (missing.length > 0) state.message = `revision ${missing.join(", ")} is not stored: the change went out to every cluster at once`;
    this.states.set(key, state);
    if (canonicalJson(state) !== canonicalJson(previous ?? null)) {
      const written = await this.write(binding, previous, state);
      if (!written) return { requeueAfterMs: 200 };
      const event = rolloutEvent(previous, state);
      if (event !== undefined) void this.recorder?.record(involvedObjectOf(template), event);
    }
    const inUse = new Set([state.revision, state.stableRevision, ...state.clusters.map((c) => c.revision)]);
    await this.revisions.prune(key, inUse);
    return result.recheckAfterMs === undefined ? undefined : { requeueAfterMs: result.recheckAfterMs };
  }

  /** Replaces status.rollout under the binding's resourceVersion; false when the binding changed meanwhile. */
  private async write(binding: ResourceBinding, previous: RolloutState | undefined, next: RolloutState | undefined): Promise<boolean> {
    const resource = binding.kind === "ClusterResourceBinding" ? RESOURCES.clusterResourceBinding : RESOURCES.resourceBinding;
    const path = objectPath(resource, binding.metadata.namespace, binding.metadata.name ?? "", "status");
    const body = rolloutStatePatch(binding.metadata.resourceVersion ?? "", previous, next);
    try {
      await this.rest.request("PATCH", path, { body, contentType: ROLLOUT_PATCH_CONTENT_TYPE, query: { fieldManager: ROLLOUT_FIELD_MANAGER } });
      this.counts.writes++;
      return true;
    } catch (err) {
      if (isKubeStatus(err, 409)) {
        this.counts.conflicts++;
        return false;
      }
      if (isKubeStatus(err, 404)) return true;
      throw err;
    }
  }
}
