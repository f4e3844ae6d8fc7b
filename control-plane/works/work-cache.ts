import { type InterpreterRegistry, NATIVE_INTERPRETERS } from "../../shared/interpreter/registry.ts";
import type { Logger } from "pino";
import type { KubeObject, OverridePolicy, ResourceBinding, TargetCluster } from "../../shared/api/types.ts";
import { Controller } from "../../shared/controller.ts";
import { parseWorkKey, templateKeyOfBinding } from "../../shared/work-key.ts";
import { suspensionHolds } from "../scheduling/binding-spec.ts";
import type { Caches } from "../caches/caches.ts";
import { overridePolicyMatches } from "../rendering/overrides.ts";
import { dividedPlacement, renderClusterWorks } from "../rendering/render-works.ts";
import { preservedLabelsFor } from "../rendering/preserved-labels.ts";
import type { TemplateInformers } from "../detector/template-informers.ts";
import type { WorkStore } from "./work-store.ts";
import type { RevisionStore } from "./revision-store.ts";
import { heldRevisions, revisionOf, rolloutActive, toldDigest } from "./rollout-revisions.ts";
import { replicasOf, reviseForMember } from "../../shared/interpreter/native/adapter.ts";

/**
 * Computes the Works (binding × template → one rendered object per target cluster) into the
 * WorkStore. Runs on every replica, from informers only: the same inputs give every replica the
 * same Works and hashes. Keys are template keys.
 */
export class WorkCache {
  readonly controller: Controller;
  private readonly caches: Caches;
  private readonly templates: TemplateInformers;
  private readonly works: WorkStore;
  private readonly interpreters: InterpreterRegistry;
  private readonly revisions: RevisionStore | undefined;
  /** template key → clusters that currently have its Work. */
  private readonly placed = new Map<string, Set<string>>();
  /** template key → the revisions its rollout told the clusters, as last rendered. */
  private readonly told = new Map<string, string>();

  constructor(opts: { caches: Caches; templates: TemplateInformers; works: WorkStore; log: Logger; interpreters?: InterpreterRegistry; revisions?: RevisionStore }) {
    this.caches = opts.caches;
    this.revisions = opts.revisions;
    this.interpreters = opts.interpreters ?? NATIVE_INTERPRETERS;
    this.templates = opts.templates;
    this.works = opts.works;
    this.controller = new Controller({ name: "work-cache", reconcile: async (k) => this.reconcile(k), log: opts.log, workers: 1 });
    const changed = (b: ResourceBinding) => this.controller.enqueue(templateKeyOfBinding(b));
    // Works follow the binding's spec and metadata, and the revisions its rollout tells the clusters:
    // its other status writes (its agents' reports) change nothing here.
    const updated = (b: ResourceBinding) => {
      const key = templateKeyOfBinding(b);
      if (!this.caches.bindingIndex.statusOnly(key) || (this.told.get(key) ?? "") !== toldDigest(b)) this.controller.enqueue(key);
    };
    this.revisions?.onChange((key) => this.controller.enqueue(key));
    this.caches.bindingsAhead.onChange((key) => this.controller.enqueue(key));
    for (const inf of [this.caches.bindings, this.caches.clusterBindings]) inf.on({ add: changed, update: updated, delete: changed });
    // Overrides depend on override policies and on the clusters' labels and fields: an override
    // policy's change re-renders the templates it selects or selected, a cluster's the Works on it.
    const overrides = new Map<string, OverridePolicy>();
    const overrideChanged = (o: OverridePolicy, gone: boolean) => {
      const id = `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name ?? ""}`;
      const before = overrides.get(id);
      if (gone) overrides.delete(id);
      else overrides.set(id, o);
      for (const key of this.placed.keys()) {
        const template = this.templates.get(parseWorkKey(key));
        if (template === undefined || (before !== undefined && overridePolicyMatches(before, template)) || overridePolicyMatches(o, template)) this.controller.enqueue(key);
      }
    };
    for (const inf of [this.caches.overrides, this.caches.clusterOverrides]) {
      inf.on({ add: (o) => overrideChanged(o, false), update: (o) => overrideChanged(o, false), delete: (o) => overrideChanged(o, true) });
    }
    this.caches.onClusterShapeChange(
      (c) => JSON.stringify([c.metadata.labels ?? {}, c.spec ?? {}]),
      (cluster) => {
        for (const key of new Set([...this.caches.bindingIndex.targeting(cluster), ...this.works.keys(cluster)])) this.controller.enqueue(key);
      },
    );
  }

  templateChanged(key: string): void {
    this.controller.enqueue(key);
  }

  /** Computes every binding's Works at once (start-up, before the hub accepts agents). */
  computeAll(): void {
    for (const b of this.caches.allBindings()) this.reconcile(templateKeyOfBinding(b));
  }

  /** Brings one template's Works in line with its binding. */
  reconcile(key: string): undefined {
    const ref = parseWorkKey(key);
    // A new binding being written renders now, not after its watch event, and rules until the
    // informer shows that write (caches/bindings-ahead.ts).
    const binding = this.caches.bindingsAhead.get(key) ?? this.caches.bindingOf(ref);
    const template = this.templates.get(ref);
    // Absence counts only from a synced informer (DESIGN §11): a template of a kind not watched
    // yet (its informer starting, or the kind not served) is unknown, and its Works stay as they are.
    if (template === undefined && binding !== undefined && binding.metadata.deletionTimestamp === undefined && !this.templates.watching(ref)) {
      // Its clusters are remembered, so that they hear of it once the template is known gone.
      this.placed.set(key, new Set([...(this.placed.get(key) ?? []), ...binding.spec.clusters.map((t) => t.name)]));
      return undefined;
    }
    const live =
      binding !== undefined &&
      binding.metadata.deletionTimestamp === undefined &&
      template !== undefined &&
      template.metadata.deletionTimestamp === undefined &&
      (binding.spec.resource.uid === undefined || binding.spec.resource.uid === template.metadata.uid);
    const targets = live ? binding.spec.clusters : [];
    const previous = this.placed.get(key) ?? new Set<string>();
    const now = new Set<string>();
    if (live) {
      const conflictResolution = binding.spec.conflictResolution ?? "Abort";
      const interpreter = this.interpreters.for(template);
      // Under a progressive rollout (issue 23) each cluster runs the revision its state tells it:
      // the template's own, or a stored earlier one (with the template's replicas: scaling is no rollout).
      const current = rolloutActive(binding) ? revisionOf(template, interpreter) : undefined;
      // A template whose revision cannot be computed (its ReviseReplica fails) is no revision any
      // cluster was told: every cluster the state lists stays at the revision it was told.
      const held = current === undefined ? new Map<string, string>() : heldRevisions(binding, "revision" in current ? current.revision : "");
      this.told.set(key, toldDigest(binding));
      const sources: { template: KubeObject; targets: TargetCluster[]; revision?: string; generation?: number }[] = [
        { template, targets: targets.filter((t) => !held.has(t.name)), ...(current !== undefined && "revision" in current ? { revision: current.revision } : {}), ...(template.metadata.generation === undefined ? {} : { generation: template.metadata.generation }) },
      ];
      const replicas = held.size > 0 ? replicasOf(template, interpreter)?.replicas : undefined;
      for (const revision of new Set(held.values())) {
        const clusters = targets.filter((t) => held.get(t.name) === revision);
        const stored = this.revisions?.get(key, revision);
        if (stored === undefined) {
          // Not known here yet (the informer lags the leader's write): those clusters keep what they run.
          for (const t of clusters) now.add(t.name);
          continue;
        }
        const old = replicas === undefined ? stored.template : reviseForMember(stored.template, replicas, undefined, interpreter);
        sources.push({ template: old, targets: clusters, revision, ...(stored.generation === undefined ? {} : { generation: stored.generation }) });
      }
      for (const source of sources) {
        const rendered = renderClusterWorks(source.template, source.targets, (n) => this.caches.clusters.get(n), this.caches.allOverrides(), conflictResolution, dividedPlacement(binding.spec.placement), interpreter, preservedLabelsFor(binding.spec));
        for (const [cluster, work] of rendered) {
          now.add(cluster);
          // Suspended dispatching: the cluster keeps the Work it has (or gets none yet).
          if (suspensionHolds(binding.spec, this.caches.clusters.get(cluster))) continue;
          if (!work.ok) {
            // That cluster keeps its previous Work; the others go on.
            this.works.setRenderError(cluster, key, work.message);
            continue;
          }
          this.works.setRenderError(cluster, key, undefined);
          const preserve = binding.spec.preserveResourcesOnDeletion === true ? { preserveResourcesOnDeletion: true } : {};
          const revision = source.revision === undefined ? {} : { revision: source.revision };
          this.works.set(cluster, { key, hash: work.hash, manifests: work.manifests, conflictResolution, templateGeneration: source.generation, ...revision, ...preserve });
        }
      }
    } else {
      this.told.delete(key);
    }
    for (const cluster of previous) {
      if (now.has(cluster)) continue;
      if (live && suspensionHolds(binding.spec, this.caches.clusters.get(cluster))) {
        now.add(cluster); // a suspended cluster is not told to delete either
        continue;
      }
      this.works.delete(cluster, key);
      this.works.setRenderError(cluster, key, undefined);
    }
    if (now.size > 0) this.placed.set(key, now);
    else this.placed.delete(key);
    return undefined;
  }
}
