import { type InterpreterRegistry, NATIVE_INTERPRETERS } from "../../shared/interpreter/registry.ts";
import type { Logger } from "pino";
import { RESOURCES } from "../../shared/api/resources.ts";
import { type AggregatedStatusItem, LABELS, type ResourceBinding, type ResourceBindingStatus } from "../../shared/api/types.ts";
import { canonicalJson } from "../../shared/content-hash.ts";
import { Controller, type ReconcileResult } from "../../shared/controller.ts";
import { isKubeStatus, type KubeRest, objectPath } from "../../shared/kube-rest.ts";
import { parseWorkKey, templateKeyOfBinding, type WorkRef } from "../../shared/work-key.ts";
import { aggregateStatus } from "./aggregate-status.ts";
import { clusterView } from "./cluster-view.ts";
import { type EventRecorder, involvedObjectOf, newFailures } from "./event-recorder.ts";
import type { ScheduleOutcomes } from "../scheduling/schedule-outcomes.ts";
import { ignoreNotFound, releaseBindingFinalizer } from "./binding-finalizer.ts";
import { leaderStatus } from "./leader-status.ts";
import { DEFAULT_STATUS_ENTRIES, expectedHashes } from "./binding-summary.ts";
import type { Caches } from "../caches/caches.ts";
import type { StatusStore } from "./status-store.ts";
import { TemplateStatusWriter } from "./template-status-writer.ts";
import { fleetRolloutFailure } from "./rollout-status.ts";
import { staleEntryPatch } from "./stale-entries.ts";
import { answerOwed, CLUSTER_CHANGE_GATHER_MS, GATHER_MS, longestWaitMs, MIN_WRITE_INTERVAL_MS, StatusWriteTimes, unsettledClusters } from "./status-settle.ts";
import { clusterReady } from "../scheduling/placement.ts";
import type { TemplateInformers } from "../detector/template-informers.ts";
import type { WorkStore } from "../works/work-store.ts";


/**
 * Folds agents' reports into ResourceBinding status and the fleet sum into the template's
 * .status; writes only what changed. Runs on every replica, because reports arrive at the replica
 * that holds the agent's stream: each replica server-side-applies the entries of the clusters it
 * owns (its own field manager; the list is keyed by cluster): those streaming to it that the leader
 * does not take, and on the leader the clusters it takes from others and those no replica hears
 * (heardHere, cluster-view.ts). The leader alone derives the
 * conditions and the summary (in the same apply), the template's .status and the finalizer
 * release from the merged entries. Over --binding-status-entries targets the leader's apply keeps
 * only the entries of clusters not as desired (issue 25); every entry stays in
 * caches.bindingEntries. Keys are template keys.
 */
export class StatusController {
  readonly controller: Controller;
  private readonly caches: Caches;
  private readonly templates: TemplateInformers;
  private readonly works: WorkStore;
  private readonly statuses: StatusStore;
  private readonly outcomes: ScheduleOutcomes;
  private readonly rest: KubeRest;
  private readonly log: Logger;
  private readonly events: EventRecorder | undefined;
  /** Counts of control-cluster writes, for benchmarks and tests. */
  readonly writes = { bindingStatus: 0, finalizer: 0 };
  /** The leader's writes of the templates' .status. */
  readonly templateStatus: TemplateStatusWriter;
  private readonly isLeader: () => boolean;
  private readonly heardHere: (cluster: string, deleting: boolean) => boolean;
  private readonly interpreters: InterpreterRegistry;
  private readonly entriesManager: string;
  /** --binding-status-entries: over this many targets, the binding lists only the clusters not as desired. */
  private readonly entriesLimit: number;
  /** After a start or a takeover, how long clusters left out of a bounded status may take to report again. */
  private readonly startupGraceMs: number;
  /** When this replica began to lead (ms). */
  private leadingSince = Date.now();
  /** What this replica last wrote as its entries, per template key (skips identical writes). */
  private readonly lastEntries = new Map<string, string>();
  /** When each binding's differing status is due (status-settle.ts). */
  private readonly writeTimes = new StatusWriteTimes();

  constructor(opts: {
    caches: Caches;
    templates: TemplateInformers;
    works: WorkStore;
    statuses: StatusStore;
    outcomes: ScheduleOutcomes;
    rest: KubeRest;
    log: Logger;
    isLeader: () => boolean;
    /** Whether this replica writes the cluster's entries (cluster-view.ts's writesEntry). */
    heardHere: (cluster: string, deleting: boolean) => boolean;
    /** This replica's identity: its field manager for aggregatedStatus entries. */
    identity: string;
    /** Where new propagation failures become Warning Events on the template. */
    events?: EventRecorder;
    /** Each kind's interpreter (customizations over the native ones). */
    interpreters?: InterpreterRegistry;
    /** --binding-status-entries (default DEFAULT_STATUS_ENTRIES). */
    statusEntries?: number;
    /** --cluster-startup-grace-period (default 0). */
    startupGraceMs?: number;
  }) {
    this.entriesLimit = opts.statusEntries ?? DEFAULT_STATUS_ENTRIES;
    this.startupGraceMs = opts.startupGraceMs ?? 0;
    this.isLeader = opts.isLeader;
    this.heardHere = opts.heardHere;
    this.interpreters = opts.interpreters ?? NATIVE_INTERPRETERS;
    this.entriesManager = `flotilla-status-${opts.identity}`.slice(0, 128);
    this.caches = opts.caches;
    this.templates = opts.templates;
    this.works = opts.works;
    this.statuses = opts.statuses;
    this.outcomes = opts.outcomes;
    this.rest = opts.rest;
    this.log = opts.log;
    this.events = opts.events;
    this.templateStatus = new TemplateStatusWriter({ templates: opts.templates, works: opts.works, interpreters: this.interpreters, rest: opts.rest, log: opts.log });
    this.controller = new Controller({ name: "status", reconcile: (k) => this.reconcile(k), log: opts.log, workers: 4 });
    // A new binding's first status write waits for its clusters' first answers (status-settle.ts),
    // which then join that write instead of making a second one.
    const added = (b: ResourceBinding) => this.later(templateKeyOfBinding(b));
    // A write of status only (ours, coming back through the informer, or another replica's
    // entries) is gathered like a report.
    const updated = (b: ResourceBinding) => {
      const key = templateKeyOfBinding(b);
      if (this.caches.bindingIndex.statusOnly(key)) this.later(key);
      else this.controller.enqueue(key);
    };
    for (const inf of [this.caches.bindings, this.caches.clusterBindings]) inf.on({ add: added, update: updated });
    this.works.subscribeAll((_cluster, key) => this.later(key));
  }

  /** This replica began to lead: clusters a bounded status left out have the startup grace to report again. */
  startedLeading(): void {
    this.leadingSince = Date.now();
  }

  /** An agent reported on a Work. */
  reported(key: string): void {
    this.later(key);
  }

  /**
   * A cluster's readiness or stream changed: every binding that targets it, lists it or has its
   * report may read differently now (and whether this replica owns its entry may have changed).
   */
  clusterChanged(cluster: string): void {
    for (const key of new Set([...this.caches.bindingIndex.involving(cluster), ...this.statuses.keysOf(cluster)])) {
      this.lastEntries.delete(key); // who owns its entries may have changed
      this.controller.queue.addAfter(key, CLUSTER_CHANGE_GATHER_MS);
    }
  }

  private later(key: string): void {
    this.controller.queue.addAfter(key, GATHER_MS);
  }

  private async reconcile(key: string): Promise<ReconcileResult> {
    const ref = parseWorkKey(key);
    const binding = this.caches.bindingOf(ref);
    // A binding still being written (its Works went out ahead of it): its reports wait for it.
    if (binding === undefined && this.caches.bindingsAhead.get(key) !== undefined) return undefined;
    if (binding === undefined) {
      this.statuses.drop(key);
      this.lastEntries.delete(key);
      this.writeTimes.forget(key);
      this.templateStatus.forget(key);
      this.caches.bindingEntries.drop(key);
      return undefined;
    }
    const deleting = binding.metadata.deletionTimestamp !== undefined;
    const leader = this.isLeader();
    if (deleting && this.deletedWithoutIntent(ref, binding)) {
      // Deleted by hand while its template lives: no member removes anything (DESIGN §11), so
      // nothing is waited for; the binding controller makes it again once it is gone.
      if (leader) await this.releaseFinalizer(binding, "binding deleted while its template lives; released without removing anything");
      return undefined;
    }
    const targets = binding.spec.clusters.map((c) => c.name);
    const reports = this.statuses.get(key);
    const renderErrors = this.works.renderErrorsOf(key);
    // While a change waits for its clusters, a report that leaves one still owing costs a look at
    // the reports alone, not an aggregation of every entry (a 10,000-cluster binding's acks).
    const waitMs = deleting ? 0 : this.writeTimes.pendingWaitMs(key, Date.now());
    const answersHere = (c: string) => {
      const cluster = this.caches.clusters.get(c);
      return cluster !== undefined && this.heardHere(c, deleting) && clusterReady(cluster);
    };
    if (waitMs > 0 && answerOwed({ targets, reports, hashOf: (c) => this.works.get(c, key)?.hash, renderErrors, answersHere })) return { requeueAfterMs: waitMs };
    // Entries this replica writes: clusters whose reports reach it (even just after their agent
    // left: it keeps what it last heard until another replica takes over), and, on the leader,
    // clusters that are not ready and that no replica hears. Only the clusters this binding
    // involves are looked at.
    const view = (names: Iterable<string>) => clusterView({ names, clusterNamed: (n) => this.caches.clusters.get(n), heardHere: this.heardHere, leader, deleting });
    const { existing, notReady, owned } = view([...targets, ...reports.keys(), ...(binding.status?.aggregatedStatus ?? []).map((i) => i.clusterName), ...renderErrors.keys()]);
    const resource = ref.namespace ? RESOURCES.resourceBinding : RESOURCES.clusterResourceBinding;
    const name = binding.metadata.name ?? "";
    const path = objectPath(resource, ref.namespace, name, "status");
    const meta = { apiVersion: binding.apiVersion, kind: binding.kind, metadata: { name, ...(ref.namespace ? { namespace: ref.namespace } : {}) } };

    // 1. This replica's entries.
    const entries = aggregateStatus({
      targets,
      reports,
      persisted: binding.status?.aggregatedStatus ?? [],
      existingClusters: existing,
      notReady,
      deleting,
      owned,
    });
    // A cluster whose Work could not be rendered says why (its previous Work stays applied).
    for (const [cluster, message] of renderErrors) {
      if (!owned.has(cluster) || deleting) continue;
      const i = entries.findIndex((e) => e.clusterName === cluster);
      const failed: AggregatedStatusItem = { ...(entries[i] ?? { applied: false }), clusterName: cluster, reason: "ApplyOverridesFailed", message };
      if (i >= 0) entries[i] = failed;
      else entries.push(failed);
    }
    entries.sort((a, b) => (a.clusterName < b.clusterName ? -1 : a.clusterName > b.clusterName ? 1 : 0));
    // The view with this replica's fresh entries: what the binding will say after our write.
    const merged = [...(binding.status?.aggregatedStatus ?? []).filter((i) => !owned.has(i.clusterName)), ...entries].sort((a, b) =>
      a.clusterName < b.clusterName ? -1 : a.clusterName > b.clusterName ? 1 : 0,
    );
    const expectedHash = expectedHashes(targets, (t) => this.works.get(t, key)?.hash);
    // What the binding said of every cluster before this write (for the Events of new failures).
    const before = this.caches.bindingEntries.complete(binding).status;
    let status: ResourceBindingStatus = { aggregatedStatus: entries };
    let held = false;
    let current: ResourceBindingStatus = { aggregatedStatus: (binding.status?.aggregatedStatus ?? []).filter((i) => owned.has(i.clusterName)) };
    if (leader) {
      // The leader writes the conditions and the summary in the same apply (one write, not two),
      // and, over --binding-status-entries targets, only the entries of clusters not as desired.
      const now = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
      const startingUp = Date.now() < this.leadingSince + this.startupGraceMs;
      const out = leaderStatus({ binding, deleting, targets, entries, merged, expectedHash, outcome: deleting ? undefined : this.outcomes.get(key), limit: this.entriesLimit, startingUp, now });
      held = out.held;
      status = out.status;
      current = { ...out.current, aggregatedStatus: current.aggregatedStatus };
      this.caches.bindingEntries.set(key, merged, out.bounded.bounded);
    } else this.caches.bindingEntries.set(key, merged, (binding.status?.aggregatedSummary?.clusters ?? 0) > this.entriesLimit);
    const mine = canonicalJson(status);
    // Skip when the binding already says so, or when we just wrote exactly this (the cache lags).
    if (mine !== canonicalJson(current) && this.lastEntries.get(key) !== mine) {
      // A change is written once its clusters answered it, or when it waited long enough (status-settle.ts).
      // Another replica's first word of a cluster goes at once: the leader knows that cluster holds the object only from the binding.
      const persisted = new Set((binding.status?.aggregatedStatus ?? []).map((i) => i.clusterName));
      const settleInput = { entries, targets: deleting ? [] : targets, owned, notReady, expectedHash, renderErrors };
      const unsettled = unsettledClusters(settleInput);
      const settled = unsettled.length === 0 || (!leader && entries.some((e) => !persisted.has(e.clusterName)));
      const waitMs = this.writeTimes.waitMs(key, settled, Date.now(), longestWaitMs(settleInput, unsettled));
      if (waitMs > 0) return { requeueAfterMs: waitMs };
      this.writes.bindingStatus++;
      const applied = await this.rest.apply<ResourceBinding>(path, { ...meta, status }, this.entriesManager).catch(ignoreNotFound);
      this.writeTimes.wrote(key, Date.now()); // after the write: one that failed is retried with backoff
      this.lastEntries.set(key, mine);
      // On a deleting binding, entries our apply left out (confirmed removals) that another field
      // manager still holds (a replica replaced under another name) would hold the finalizer.
      // (The apply may answer entries of clusters this reconcile did not look at: they are looked at now.)
      const after = applied?.status?.aggregatedStatus ?? [];
      const stale = applied && deleting ? staleEntryPatch(after, view(after.map((i) => i.clusterName)).owned, new Set((status.aggregatedStatus ?? []).map((e) => e.clusterName))) : [];
      if (stale.length > 0) {
        this.lastEntries.delete(key); // applied again next time, should the removal fail
        await this.rest.request("PATCH", path, { body: stale, contentType: "application/json-patch+json", query: { fieldManager: this.entriesManager } }).catch((err: unknown) => {
          if (!isKubeStatus(err, 404, 409, 422)) throw err;
          this.log.warn({ binding: name, namespace: ref.namespace, err: String(err) }, "removing status entries another replica left behind failed; retrying");
        });
        this.log.info({ binding: name, namespace: ref.namespace, entries: stale.length / 2 }, "removed status entries another replica left behind");
      }
      // What this write newly shows as failing (our clusters' entries; Scheduled on the leader) becomes Events.
      const template = this.events && this.templates.get(ref);
      if (template) for (const f of newFailures(before, { ...status, aggregatedStatus: entries }, new Set(targets))) void this.events?.record(involvedObjectOf(template), f);
    } else this.writeTimes.caughtUp(key);
    if (!leader) return undefined;

    if (deleting && merged.length === 0 && entries.length === 0) {
      await this.releaseFinalizer(binding, "every cluster removed the object; binding released");
      this.statuses.drop(key);
      this.caches.bindingEntries.drop(key);
      return undefined;
    }
    // While clusters a bounded status left out are not heard again yet, the template's sums wait too (until the grace ends).
    if (held) return { requeueAfterMs: Math.max(MIN_WRITE_INTERVAL_MS, this.leadingSince + this.startupGraceMs - Date.now()) };
    if (!deleting) await this.templateStatus.write(key, targets, merged, binding.spec.rollout === undefined ? undefined : fleetRolloutFailure(binding.status?.rollout));
    return undefined;
  }

  /**
   * Whether a deleting binding was deleted without the user's intent: its template lives (seen on
   * a synced informer) and the control plane did not release it on purpose.
   */
  private deletedWithoutIntent(ref: WorkRef, binding: ResourceBinding): boolean {
    if (binding.metadata.annotations?.[LABELS.releasedBecause] !== undefined || !this.templates.watching(ref)) return false;
    const template = this.templates.get(ref);
    return template !== undefined && template.metadata.deletionTimestamp === undefined;
  }

  private async releaseFinalizer(binding: ResourceBinding, why: string): Promise<void> {
    if (!(await releaseBindingFinalizer(this.rest, binding))) return;
    this.writes.finalizer++;
    this.log.info({ binding: binding.metadata.name, namespace: binding.metadata.namespace }, why);
  }
}
