import type { Logger } from "pino";
import type { KubeObject } from "../../shared/api/types.ts";
import { Controller, type ReconcileResult } from "../../shared/controller.ts";
import type { Discovery } from "../../shared/discovery.ts";
import type { WorkStatus } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import type { KubeRest } from "../../shared/kube-rest.ts";
import { counter } from "../../shared/metrics.ts";
import { workKeyLabelValue } from "../../shared/work-key.ts";
import { applyOrder } from "../apply/apply-order.ts";
import { type ReadyEndpointsSource, withReadyEndpoints } from "../status/endpoint-slices.ts";
import { type PodSource, withUnschedulable } from "../status/unschedulable-pods.ts";
import type { HpaIndex } from "../apply/hpa-index.ts";
import { labelledObjects } from "../applied/member-lists.ts";
import { adoptOrphans } from "../judge/orphans.ts";
import { helloHashes, liveFingerprint } from "../judge/by-hash.ts";
import { decidePrune, recordAgain } from "../judge/prune-decision.ts";
import type { AppliedRecord, AppliedResource, AppliedStore } from "../applied/applied-store.ts";
import { isOurs, sameApplied } from "../judge/deletion-judge.ts";
import { MemberDeletion } from "../applied/member-deletion.ts";
import { ManifestApplier, type MemberAccess } from "../apply/manifest-apply.ts";
import { statusDigest } from "../status/work-status.ts";
import type { ObjectWatch } from "../applied/object-watch.ts";
import { preserveOnRemoval } from "../judge/preserve-decision.ts";
import { appliedResource, asObject, inDeleteOrder, isLeftAlone } from "../apply/work-manifests.ts";
import { type CustomizedInterpreter, type ManifestOutcome, workStatus } from "../status/work-status.ts";

/** How often a Work with a skipped manifest (a conflict) is looked at again. */
const RECHECK_SKIPPED_MS = 15_000;
/**
 * How often a kept Namespace or CRD (it holds objects Flotilla does not manage) is looked at again:
 * the default of --kept-recheck-interval.
 */
export const RECHECK_KEPT_MS = 30_000;
const applyErrors = counter("flotilla_agent_apply_errors_total", "Work reconciles that reported a manifest that failed to apply.");

/** A Work as the hub sent it. */
export interface DesiredWork {
  key: string;
  hash: string;
  manifests: KubeObject[];
  conflictResolution: string;
  /** The binding's preserveResourcesOnDeletion, kept with the record (agent/judge/preserve-decision.ts). */
  preserve?: boolean;
}

/** Counters for tests and metrics. */
export interface RunnerStats {
  applies: number;
  /** Creates without a read first that met an existing object (create-only.ts), then read and decided on. */
  createConflicts: number;
  deletes: number;
  /** Deletions by the reason they were made for (DESIGN §11: every deletion is explainable). */
  deletesByReason: Map<string, number>;
}

/** Why the agent deletes an object a Work no longer has: the new version dropped it. */
const PRUNED = "PrunedFromWork";

/**
 * Makes the member match the Works the hub sent, one Work at a time per key (a controller):
 * applies with server-side apply when the hash changed or an object drifted, prunes objects a
 * Work no longer has, deletes a removed Work's objects, and reports status when it changes.
 */
export class WorkRunner {
  readonly controller: Controller;
  /** The Cluster uid this agent's certificate names (its registration), once its credentials are loaded; undefined when it names none. */
  registration: string | undefined;
  readonly stats: RunnerStats = { applies: 0, createConflicts: 0, deletes: 0, deletesByReason: new Map() };
  private readonly desired = new Map<string, DesiredWork>();
  private readonly statuses = new Map<string, WorkStatus>();
  /** The digest of each Work's last reported status (a digest: the statuses themselves are kept once, in statuses). */
  private readonly sent = new Map<string, string>();
  private readonly applier: ManifestApplier;
  private readonly deletion: MemberDeletion;
  /** Removed Works whose objects stay (preserveResourcesOnDeletion). */
  private readonly preserving = new Set<string>();
  /** Why each removed Work was removed, as the hub said. */
  private readonly removalReasons = new Map<string, string>();
  /** Works held by hash only whose contents the agent asked for and has not received. */
  private readonly contentWanted = new Set<string>();
  /** The fingerprint of each by-hash Work's objects when first checked: a change from it is drift. */
  private readonly baselines = new Map<string, string>();
  private readonly requestContents: (key: string) => void;
  private readonly keptRecheckMs: number;
  private readonly rest: KubeRest;
  private readonly discovery: Discovery;
  private readonly applied: AppliedStore;
  private readonly objects: ObjectWatch;
  private readonly endpoints: ReadyEndpointsSource | undefined;
  private readonly pods: PodSource | undefined;
  private readonly report: (key: string) => void;
  private readonly log: Logger;

  private readonly owner: string | undefined;
  private readonly customized: CustomizedInterpreter;
  constructor(opts: MemberAccess & {
    /** The member's HPAs: a workload one scales keeps the member's replicas. */
    hpas?: HpaIndex;
    /** The member's EndpointSlices: a Service's status carries its ready endpoints. */
    endpoints?: ReadyEndpointsSource;
    /** The member's pods: a workload's status carries its Unschedulable pods. */
    pods?: PodSource;
    report: (key: string) => void;
    /** Asks the hub for a Work's contents (one the agent holds by hash only has drifted). */
    requestContents?: (key: string) => void;
    log: Logger;
    workers?: number;
    /** --kept-recheck-interval (default RECHECK_KEPT_MS). */
    keptRecheckMs?: number;
    /** This agent's owner value (agent/judge/owner.ts): what another fleet or cluster applied is never ours. */
    owner?: string;
    /** The kinds' customized operations (Retain, ReflectStatus, InterpretHealth) from the fleet's customizations. */
    customized?: CustomizedInterpreter;
  }) {
    this.customized = opts.customized ?? (() => undefined);
    this.keptRecheckMs = opts.keptRecheckMs ?? RECHECK_KEPT_MS;
    this.owner = opts.owner;
    this.requestContents = opts.requestContents ?? (() => undefined);
    this.endpoints = opts.endpoints;
    this.pods = opts.pods;
    this.rest = opts.rest;
    this.discovery = opts.discovery;
    this.applied = opts.applied;
    this.objects = opts.objects;
    this.report = opts.report;
    this.log = opts.log;
    this.applier = new ManifestApplier({ rest: opts.rest, discovery: opts.discovery, applied: opts.applied, objects: opts.objects, hpas: opts.hpas, counts: this.stats, log: opts.log, customized: this.customized, ...(opts.owner !== undefined ? { owner: opts.owner } : {}) });
    this.deletion = new MemberDeletion({
      rest: opts.rest,
      discovery: opts.discovery,
      objects: opts.objects,
      stats: this.stats,
      log: opts.log,
      ...(opts.owner !== undefined ? { owner: opts.owner } : {}),
      sharedWith: (key, r) => this.applied.otherNaming(key, r),
    });
    this.controller = new Controller({ name: "work", reconcile: (k) => this.reconcile(k), log: opts.log, workers: opts.workers ?? 4 });
  }

  /** The outcomes with what the member's caches add to them: a Service's ready endpoints, a workload's Unschedulable pods. */
  private async observed(outcomes: ManifestOutcome[]): Promise<ManifestOutcome[]> {
    return withUnschedulable(this.pods, await withReadyEndpoints(this.endpoints, outcomes));
  }

  upsert(work: DesiredWork): void {
    this.desired.set(work.key, work);
    this.removalReasons.delete(work.key);
    this.contentWanted.delete(work.key);
    this.baselines.delete(work.key);
    this.controller.enqueue(work.key);
  }

  /**
   * Removes a Work; with `preserve` (or when the Work or its record says so) its objects stay in
   * the member, released from Flotilla.
   */
  delete(key: string, preserve = false, reason = "Unspecified"): void {
    const recorded = this.desired.get(key)?.preserve === true || this.applied.get(key)?.preserve === true;
    preserve = preserveOnRemoval(preserve, reason, recorded);
    this.desired.delete(key);
    this.removalReasons.set(key, reason);
    this.contentWanted.delete(key);
    this.baselines.delete(key);
    if (preserve) this.preserving.add(key);
    else this.preserving.delete(key);
    this.controller.enqueue(key);
  }

  /** Reports a Work the agent cannot use at all (a malformed message), keeping what it applied. */
  reject(key: string, hash: string, message: string): void {
    this.publish({ workKey: key, observedHash: hash, applied: false, available: false, reason: "CreationFailed", message, manifests: [], deleted: false });
  }

  /** Keys of the Works the agent holds with their manifests. */
  heldHashes(): Record<string, string> {
    return Object.fromEntries([...this.desired.values()].map((w) => [w.key, w.hash]));
  }

  /** What the Hello says the agent holds: by hash where it can stand for a Work, else "" (send it). */
  helloHashes(): Record<string, string> {
    return helloHashes(this.applied.all().values(), this.desired.values(), this.contentWanted);
  }

  /**
   * Works last applied under an earlier registration of the cluster (another Cluster uid than its
   * certificate names now), for the Hello: the hub removes none of them for a placement change.
   */
  earlierRegistrationWorks(): string[] {
    const now = this.registration;
    if (now === undefined) return [];
    return [...this.applied.all().values()].filter((r) => r.registration !== undefined && r.registration !== now).map((r) => r.key);
  }

  /**
   * Records of agents before registrations were recorded name none: they are taken as this
   * registration's (the one the agent runs under as it first starts with them).
   */
  stampRegistration(): void {
    const now = this.registration;
    if (now === undefined) return;
    for (const r of this.applied.all().values()) if (r.registration === undefined) this.applied.set({ ...r, registration: now });
  }

  private registered(): { registration?: string } {
    return this.registration === undefined ? {} : { registration: this.registration };
  }

  /** Works held by hash only: applied in full before a restart, no manifests in memory, not being removed. */
  byHashKeys(): string[] {
    return [...this.applied.all().values()].filter((r) => r.whole === true && !this.desired.has(r.key) && !this.removalReasons.has(r.key)).map((r) => r.key);
  }

  /** Starts the watches of every kind the records name and waits for their first lists (failures are logged, not fatal). */
  async watchRecorded(): Promise<void> {
    const kinds = new Map<string, AppliedResource>();
    for (const r of this.applied.all().values()) for (const res of r.resources) kinds.set(`${res.apiVersion}|${res.kind}`, res);
    await Promise.all(
      [...kinds.values()].map(async (k) => {
        const res = await this.discovery.resourceFor(k.apiVersion, k.kind).catch(() => undefined);
        if (res !== undefined) await this.objects.synced(res);
      }),
    );
  }

  /**
   * Looks again at the Works holding objects of these kinds (kindKey: `<apiVersion>/<kind>`): their
   * customizations changed, so their retained fields, health and status may differ.
   */
  reinterpret(kinds: readonly string[]): void {
    const wanted = new Set(kinds);
    const has = (objects: Iterable<{ apiVersion: string; kind: string }>) => [...objects].some((o) => wanted.has(`${o.apiVersion}/${o.kind}`));
    for (const w of this.desired.values()) if (has(w.manifests)) this.controller.enqueue(w.key);
    for (const r of this.applied.all().values()) if (!this.desired.has(r.key) && has(r.resources)) this.controller.enqueue(r.key);
  }

  /** The latest status of a Work, for the stream. */
  status(key: string): WorkStatus | undefined {
    return this.statuses.get(key);
  }

  /** Every status again (after a reconnect the hub has none). */
  allStatusKeys(): string[] {
    return [...this.statuses.keys()];
  }

  /** Forgets what was reported, so the next reconcile reports again. */
  forgetReported(): void {
    this.sent.clear();
  }

  private publish(status: WorkStatus): void {
    const digest = statusDigest(status);
    this.statuses.set(status.workKey, status);
    if (this.sent.get(status.workKey) === digest) return;
    this.sent.set(status.workKey, digest);
    this.report(status.workKey);
  }

  private async reconcile(key: string): Promise<ReconcileResult> {
    const want = this.desired.get(key);
    // Only the hub removes a Work (DESIGN §11). A watch event for one it has not sent yet (just
    // after a restart) or keeps without sending (no intent to delete it) leaves it as it is.
    if (want === undefined) {
      if (this.removalReasons.has(key)) return this.remove(key);
      const byHash = this.applied.get(key);
      return byHash?.whole === true ? this.checkByHash(byHash) : undefined;
    }
    const record = this.applied.get(key);
    const label = workKeyLabelValue(key);
    const full = record?.hash !== want.hash;
    const outcomes: ManifestOutcome[] = [];
    let skipped = false;
    for (const manifest of applyOrder(want.manifests)) {
      const outcome = await this.applier.applyManifest(key, label, manifest, want.conflictResolution, full);
      outcomes.push(outcome);
      if (!outcome.applied) skipped = true;
    }
    if (full) {
      const results = outcomes.map((o) => ({ resource: appliedResource(o), applied: o.applied, leftAlone: isLeftAlone(o) }));
      const decision = decidePrune(record?.resources ?? [], results);
      // A pruned Namespace or CRD that is kept (it holds objects Flotilla does not manage) stays in the record: tried again later.
      const kept: AppliedResource[] = [];
      // Only what is pruned with it counts as a pruned Namespace's or CRD's own: what the new version still applies holds it.
      for (const r of inDeleteOrder(decision.prune)) if ((await this.deletion.deleteIfOurs(key, r, label, PRUNED, decision.prune)) !== undefined) kept.push(r);
      if (decision.record !== undefined) this.applied.set({ key, hash: want.hash, resources: [...decision.record, ...kept], ...(skipped ? {} : { whole: true }), ...(want.preserve === true ? { preserve: true } : {}), ...this.registered() });
      else if (record !== undefined) {
        // The version did not apply in full: its record stays, but an object it made again is the one to delete later.
        const next = recordAgain(record, outcomes.map(appliedResource), true, record.preserve === true);
        if (next !== undefined) this.applied.set(next);
      }
    } else if (record !== undefined) {
      const next = recordAgain(record, outcomes.map(appliedResource), skipped, want.preserve === true, this.registration);
      if (next !== undefined) this.applied.set(next);
    }
    this.publish(workStatus(key, want.hash, await this.observed(outcomes), this.customized));
    const failed = outcomes.filter((o) => !o.applied && !isLeftAlone(o));
    if (failed.length > 0) applyErrors.inc();
    // Its namespace being deleted (by hand): tried again on the namespace's own clock, so it comes back soon after the namespace is gone.
    if (failed.length > 0 && failed.every((o) => o.waitingForNamespaceMs !== undefined)) return { requeueAfterMs: Math.max(...failed.map((o) => o.waitingForNamespaceMs ?? 0)) };
    if (failed.length > 0) throw new Error(`work ${key}: ${outcomes.filter((o) => !o.applied).map((o) => o.message).join("; ")}`);
    return skipped ? { requeueAfterMs: RECHECK_SKIPPED_MS } : undefined;
  }

  /**
   * A Work held by hash only: reports its status from the live objects the record names, and asks
   * the hub for its contents when they drifted (an object gone, no longer Flotilla's, or changed
   * since first checked) so that the normal reconcile compares and repairs them. Never deletes.
   */
  private async checkByHash(record: AppliedRecord): Promise<ReconcileResult> {
    const label = workKeyLabelValue(record.key);
    const outcomes: ManifestOutcome[] = [];
    let drifted = false;
    for (const r of record.resources) {
      const res = await this.discovery.resourceFor(r.apiVersion, r.kind);
      if (res === undefined) {
        drifted = true;
        continue;
      }
      this.objects.ensure(res);
      const live = await this.objects.get(res, res.namespaced ? r.namespace || "default" : undefined, r.name);
      // Gone, no longer Flotilla's, or another object than the one applied (another uid): asked again.
      if (!isOurs(live, label, this.owner) || !sameApplied(r, live)) drifted = true;
      outcomes.push({ manifest: asObject(r), applied: true, reason: "", message: "", live });
    }
    const fingerprint = liveFingerprint(outcomes.map((o) => o.live));
    const baseline = this.baselines.get(record.key);
    if (baseline === undefined) this.baselines.set(record.key, fingerprint);
    else if (baseline !== fingerprint) drifted = true;
    if (!drifted) {
      this.publish(workStatus(record.key, record.hash, await this.observed(outcomes), this.customized));
    } else if (!this.contentWanted.has(record.key)) {
      this.contentWanted.add(record.key);
      this.log.info({ work: record.key }, "a member object of a Work held by hash changed; asking the hub for its contents");
      this.requestContents(record.key);
    }
    return undefined;
  }

  /**
   * Adopts the member objects that carry a Work's label but no record names (DESIGN §11), of the
   * kinds the records and the held Works hold. Returns the adopted keys the agent holds no Work
   * for: only the hub can say whether they are wanted, so the caller asks it (a resync).
   */
  async adoptOrphans(): Promise<string[]> {
    const kinds = new Map<string, { apiVersion: string; kind: string }>();
    for (const k of this.applied.kinds()) kinds.set(`${k.apiVersion}|${k.kind}`, k);
    for (const r of this.applied.all().values()) for (const res of r.resources) kinds.set(`${res.apiVersion}|${res.kind}`, res);
    for (const w of this.desired.values()) for (const m of w.manifests) kinds.set(`${m.apiVersion}|${m.kind}`, m);
    const adopted = adoptOrphans(this.applied.all(), await labelledObjects(this.rest, this.discovery, kinds.values()), this.owner);
    for (const r of adopted) this.applied.set(r);
    if (adopted.length > 0) await this.applied.flush();
    if (adopted.length > 0) this.log.info({ works: adopted.map((r) => r.key) }, "adopted member objects that no applied record named");
    return adopted.map((r) => r.key).filter((k) => !this.desired.has(k));
  }

  private async remove(key: string): Promise<ReconcileResult> {
    const record = this.applied.get(key);
    const label = workKeyLabelValue(key);
    const preserve = this.preserving.has(key);
    const { kept, failures } = await this.deletion.removeAll(key, inDeleteOrder(record?.resources ?? []), label, preserve, this.removalReasons.get(key) ?? "Unspecified");
    if (failures.length > 0 || kept.length > 0) {
      // Not removed yet: the binding keeps waiting for it, and shows why (DESIGN §11: keep and report).
      const message = [...kept, ...failures].join("; ");
      this.publish({ workKey: key, observedHash: record?.hash ?? "", applied: false, available: false, reason: "DeletionFailed", message, manifests: [], deleted: false });
      if (failures.length > 0) throw new Error(`deleting work ${key}: ${failures.join("; ")}`);
      return { requeueAfterMs: this.keptRecheckMs };
    }
    this.applied.delete(key);
    this.preserving.delete(key);
    this.removalReasons.delete(key);
    // The confirmation stays as the Work's status (tiny): it must survive until the stream has
    // room for it, and it is sent again after a reconnect.
    this.publish({ workKey: key, observedHash: "", applied: false, available: false, reason: "", message: "", manifests: [], deleted: true });
    return undefined;
  }
}
