// The per-Work controller: makes the member match the Works the hub sent, one Work at a time per
// key, as a chain of steps over (Work, record). A wanted Work: apply each manifest in order
// (apply/), prune and record (record-step.ts), report and decide what follows
// (requeue-decision.ts). A removed Work: removal-step.ts. A Work held by hash only:
// by-hash-check.ts. The verdicts are judge/'s; deletes and releases are applied/'s.
import type { Logger } from "pino";
import { Controller, type ReconcileResult } from "../../shared/controller.ts";
import type { Discovery } from "../../shared/discovery.ts";
import type { WorkStatus, WorkUpsert } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import type { KubeRest } from "../../shared/kube-rest.ts";
import { counter } from "../../shared/metrics.ts";
import { workKeyLabelValue } from "../../shared/work-key.ts";
import type { AppliedStore } from "../applied/applied-store.ts";
import { MemberDeletion } from "../applied/member-deletion.ts";
import type { ObjectWatch } from "../applied/object-watch.ts";
import { applyOrder } from "../apply/apply-order.ts";
import type { HpaIndex } from "../apply/hpa-index.ts";
import { ManifestApplier, type MemberAccess } from "../apply/manifest-apply.ts";
import type { AppliedResource } from "../judge/applied-record.ts";
import { helloHashes } from "../judge/by-hash.ts";
import { preserveOnRemoval } from "../judge/preserve-decision.ts";
import { earlierRegistrationKeys, stampedRecords } from "../judge/registration.ts";
import { type ReadyEndpointsSource, withReadyEndpoints } from "../status/endpoint-slices.ts";
import { type PodSource, withUnschedulable } from "../status/unschedulable-pods.ts";
import { type CustomizedInterpreter, type ManifestOutcome, workStatus } from "../status/work-status.ts";
import { checkByHash } from "./by-hash-check.ts";
import { adoptUnrecorded, OrphanCheck } from "./orphan-adoption.ts";
import { recordApplied } from "./record-step.ts";
import { removeWork } from "./removal-step.ts";
import { afterApply } from "./requeue-decision.ts";
import { StatusReports } from "./status-reports.ts";
import { type DesiredWork, receivedWork } from "./work-message.ts";

export type { DesiredWork } from "./work-message.ts";

/**
 * How often a kept Namespace or CRD (it holds objects Flotilla does not manage) is looked at again:
 * the default of --kept-recheck-interval.
 */
export const RECHECK_KEPT_MS = 30_000;
const applyErrors = counter("flotilla_agent_apply_errors_total", "Work reconciles that reported a manifest that failed to apply.");

/** Counters for tests and metrics. */
export interface RunnerStats {
  applies: number;
  /** Creates without a read first that met an existing object (apply/create-only.ts), then read and decided on. */
  createConflicts: number;
  deletes: number;
  /** Deletions by the reason they were made for (DESIGN §11: every deletion is explainable). */
  deletesByReason: Map<string, number>;
}

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
  private readonly reports: StatusReports;
  private readonly applier: ManifestApplier;
  private readonly deletion: MemberDeletion;
  private readonly orphans: OrphanCheck;
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
    /** Asks the hub to resync (Works adopted from unrecorded member objects that it has not sent). */
    resync?: () => void;
    log: Logger;
    workers?: number;
    /** --kept-recheck-interval (default RECHECK_KEPT_MS). */
    keptRecheckMs?: number;
    /** This agent's owner value (judge/owner.ts): what another fleet or cluster applied is never ours. */
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
    this.log = opts.log;
    this.reports = new StatusReports(opts.report);
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
    this.orphans = new OrphanCheck(() => this.adoptOrphans(), opts.resync ?? (() => undefined), opts.log);
    this.controller = new Controller({ name: "work", reconcile: (k) => this.reconcile(k), log: opts.log, workers: opts.workers ?? 4 });
  }

  /** The outcomes with what the member's caches add to them: a Service's ready endpoints, a workload's Unschedulable pods. */
  private async observed(outcomes: ManifestOutcome[]): Promise<ManifestOutcome[]> {
    return withUnschedulable(this.pods, await withReadyEndpoints(this.endpoints, outcomes));
  }

  /** A WorkUpsert from the hub: held and applied, or, when its manifests are unusable, reported (what was applied stays). */
  receive(u: WorkUpsert): void {
    const received = receivedWork(u);
    if ("work" in received) return this.upsert(received.work);
    this.log.error({ work: u.workKey, ...(received.err === undefined ? {} : { err: received.err }) }, received.logged);
    this.reject(u.workKey, u.contentHash, received.problem);
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
    this.reports.publish({ workKey: key, observedHash: hash, applied: false, available: false, reason: "CreationFailed", message, manifests: [], deleted: false });
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
    return earlierRegistrationKeys(this.applied.all().values(), this.registration);
  }

  /** Records of agents before registrations were recorded are stamped with this one (judge/registration.ts). */
  stampRegistration(): void {
    for (const r of stampedRecords(this.applied.all().values(), this.registration)) this.applied.set(r);
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
    return this.reports.get(key);
  }

  /**
   * The hub's sync is done (after every connect): the first time in this run, member objects no
   * record names are looked for; the hub keeps no status across a reconnect, so every status is
   * reported again; Works held by hash are checked again (their status rebuilt from the live
   * objects after a restart; one whose objects are all gone has no watch event to start it).
   */
  afterSync(): void {
    this.orphans.afterSync();
    this.reports.resendAll();
    for (const k of this.byHashKeys()) this.controller.enqueue(k);
  }

  /**
   * Adopts the member objects that carry a Work's label but no record names (DESIGN §11), of the
   * kinds the records and the held Works hold. Returns the adopted keys the agent holds no Work
   * for: only the hub can say whether they are wanted, so the caller asks it (a resync).
   */
  adoptOrphans(): Promise<string[]> {
    return adoptUnrecorded({ rest: this.rest, discovery: this.discovery, applied: this.applied, owner: this.owner, log: this.log, desired: this.desired });
  }

  private async reconcile(key: string): Promise<ReconcileResult> {
    const want = this.desired.get(key);
    // Only the hub removes a Work (DESIGN §11). A watch event for one it has not sent yet (just
    // after a restart) or keeps without sending (no intent to delete it) leaves it as it is.
    if (want === undefined) {
      if (this.removalReasons.has(key)) return this.remove(key);
      const byHash = this.applied.get(key);
      if (byHash?.whole === true) await checkByHash(this.byHashAccess(), byHash);
      return undefined;
    }
    const record = this.applied.get(key);
    const label = workKeyLabelValue(key);
    const full = record?.hash !== want.hash;
    const outcomes: ManifestOutcome[] = [];
    for (const manifest of applyOrder(want.manifests)) outcomes.push(await this.applier.applyManifest(key, label, manifest, want.conflictResolution, full));
    await recordApplied({ applied: this.applied, deletion: this.deletion, registration: this.registration }, want, record, outcomes, label, full);
    this.reports.publish(workStatus(key, want.hash, await this.observed(outcomes), this.customized));
    const next = afterApply(outcomes);
    if (next.applyError) applyErrors.inc();
    if (next.failure !== undefined) throw new Error(`work ${key}: ${next.failure}`);
    return next.requeueAfterMs === undefined ? undefined : { requeueAfterMs: next.requeueAfterMs };
  }

  private byHashAccess() {
    return {
      discovery: this.discovery,
      objects: this.objects,
      owner: this.owner,
      log: this.log,
      baselines: this.baselines,
      contentWanted: this.contentWanted,
      requestContents: this.requestContents,
      report: async (record: { key: string; hash: string }, outcomes: ManifestOutcome[]) => this.reports.publish(workStatus(record.key, record.hash, await this.observed(outcomes), this.customized)),
    };
  }

  private remove(key: string): Promise<ReconcileResult> {
    const forget = (k: string) => void (this.preserving.delete(k), this.removalReasons.delete(k));
    const access = { applied: this.applied, deletion: this.deletion, publish: (status: WorkStatus) => this.reports.publish(status), keptRecheckMs: this.keptRecheckMs, forget };
    return removeWork(access, key, this.preserving.has(key), this.removalReasons.get(key) ?? "Unspecified");
  }
}
