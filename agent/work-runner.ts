import type { Logger } from "pino";
import { type KubeObject, LABELS } from "../shared/api/types.ts";
import { Controller, type ReconcileResult } from "../shared/controller.ts";
import type { Discovery } from "../shared/discovery.ts";
import type { WorkStatus } from "../shared/gen/flotilla/v1alpha1/agent.ts";
import { collectionPath, isKubeStatus, type KubeRest, objectPath } from "../shared/kube-rest.ts";
import { counter } from "../shared/metrics.ts";
import { workKeyLabelValue } from "../shared/work-key.ts";
import { applyOrder, deleteOrder } from "./apply-order.ts";
import { containsFields, decideApply } from "./apply-decision.ts";
import type { ReadyEndpointsSource } from "./endpoint-slices.ts";
import type { HpaIndex } from "./hpa-index.ts";
import { adoptOrphans } from "./orphans.ts";
import { helloHashes, liveFingerprint } from "./by-hash.ts";
import { decidePrune, resourceId } from "./prune-decision.ts";
import { isScalable, retainMemberOwned } from "./retain.ts";
import type { AppliedRecord, AppliedResource, AppliedStore } from "./applied-store.ts";
import { type ObjectWatch, WORK_KEY_ANNOTATION } from "./object-watch.ts";
import { type ManifestOutcome, workStatus } from "./work-status.ts";

const FIELD_MANAGER = "flotilla-agent";
/** How often a Work with a skipped manifest (a conflict) is looked at again. */
const RECHECK_SKIPPED_MS = 15_000;
const applyErrors = counter("flotilla_agent_apply_errors_total", "Work reconciles that reported a manifest that failed to apply.");

/** A Work as the hub sent it. */
export interface DesiredWork {
  key: string;
  hash: string;
  manifests: KubeObject[];
  conflictResolution: string;
}

/** Counters for tests and metrics. */
export interface RunnerStats {
  applies: number;
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
  readonly stats: RunnerStats = { applies: 0, deletes: 0, deletesByReason: new Map() };
  private readonly desired = new Map<string, DesiredWork>();
  private readonly statuses = new Map<string, WorkStatus>();
  private readonly sent = new Map<string, string>();
  private readonly knownNamespaces = new Set<string>();
  /** Removed Works whose objects stay (preserveResourcesOnDeletion). */
  private readonly preserving = new Set<string>();
  /** Why each removed Work was removed, as the hub said. */
  private readonly removalReasons = new Map<string, string>();
  /** Works held by hash only whose contents the agent asked for and has not received. */
  private readonly contentWanted = new Set<string>();
  /** The fingerprint of each by-hash Work's objects when first checked: a change from it is drift. */
  private readonly baselines = new Map<string, string>();
  private readonly requestContents: (key: string) => void;
  private readonly rest: KubeRest;
  private readonly discovery: Discovery;
  private readonly applied: AppliedStore;
  private readonly objects: ObjectWatch;
  private readonly hpas: HpaIndex | undefined;
  private readonly endpoints: ReadyEndpointsSource | undefined;
  private readonly report: (key: string) => void;
  private readonly log: Logger;

  constructor(opts: {
    rest: KubeRest;
    discovery: Discovery;
    applied: AppliedStore;
    objects: ObjectWatch;
    /** The member's HPAs: a workload one scales keeps the member's replicas. */
    hpas?: HpaIndex;
    /** The member's EndpointSlices: a Service's status carries its ready endpoints. */
    endpoints?: ReadyEndpointsSource;
    report: (key: string) => void;
    /** Asks the hub for a Work's contents (one the agent holds by hash only has drifted). */
    requestContents?: (key: string) => void;
    log: Logger;
    workers?: number;
  }) {
    this.requestContents = opts.requestContents ?? (() => undefined);
    this.hpas = opts.hpas;
    this.endpoints = opts.endpoints;
    this.rest = opts.rest;
    this.discovery = opts.discovery;
    this.applied = opts.applied;
    this.objects = opts.objects;
    this.report = opts.report;
    this.log = opts.log;
    this.controller = new Controller({ name: "work", reconcile: (k) => this.reconcile(k), log: opts.log, workers: opts.workers ?? 4 });
  }

  upsert(work: DesiredWork): void {
    this.desired.set(work.key, work);
    this.removalReasons.delete(work.key);
    this.contentWanted.delete(work.key);
    this.baselines.delete(work.key);
    this.controller.enqueue(work.key);
  }

  /** Removes a Work; with `preserve` its objects stay in the member, released from Flotilla. */
  delete(key: string, preserve = false, reason = "Unspecified"): void {
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
    const text = JSON.stringify(status);
    this.statuses.set(status.workKey, status);
    if (this.sent.get(status.workKey) === text) return;
    this.sent.set(status.workKey, text);
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
      const outcome = await this.applyManifest(key, label, manifest, want.conflictResolution, full);
      outcomes.push(outcome);
      if (!outcome.applied) skipped = true;
    }
    if (full) {
      const results = outcomes.map((o) => ({ resource: resourceOf(o.manifest), applied: o.applied, leftAlone: isLeftAlone(o) }));
      const decision = decidePrune(record?.resources ?? [], results);
      for (const r of deleteOrder(decision.prune.map(asObject))) await this.deleteIfOurs(key, resourceOf(r), label, PRUNED);
      if (decision.record !== undefined) this.applied.set({ key, hash: want.hash, resources: decision.record, ...(skipped ? {} : { whole: true }) });
    } else if (record !== undefined && record.whole !== true && !skipped) {
      // Now applied in full (a conflict cleared, or a record of an older agent): it can be held by hash.
      const ids = new Set(record.resources.map(resourceId));
      const more = outcomes.map((o) => resourceOf(o.manifest)).filter((r) => !ids.has(resourceId(r)));
      this.applied.set({ ...record, resources: [...record.resources, ...more], whole: true });
    }
    this.publish(workStatus(key, want.hash, await this.withReadyEndpoints(outcomes)));
    if (outcomes.some((o) => !o.applied && !isLeftAlone(o))) {
      applyErrors.inc();
      throw new Error(`work ${key}: ${outcomes.filter((o) => !o.applied).map((o) => o.message).join("; ")}`);
    }
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
      if (!isOurs(live, label)) drifted = true;
      outcomes.push({ manifest: asObject(r), applied: true, reason: "", message: "", live });
    }
    const fingerprint = liveFingerprint(outcomes.map((o) => o.live));
    const baseline = this.baselines.get(record.key);
    if (baseline === undefined) this.baselines.set(record.key, fingerprint);
    else if (baseline !== fingerprint) drifted = true;
    if (!drifted) {
      this.publish(workStatus(record.key, record.hash, await this.withReadyEndpoints(outcomes)));
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
    const labelled: KubeObject[] = [];
    for (const k of kinds.values()) {
      const res = await this.discovery.resourceFor(k.apiVersion, k.kind);
      if (res === undefined) continue;
      const list = await this.rest.get<{ items?: KubeObject[] }>(collectionPath(res), { labelSelector: LABELS.work });
      for (const item of list.items ?? []) labelled.push({ ...item, apiVersion: res.apiVersion, kind: res.kind });
    }
    const adopted = adoptOrphans(this.applied.all(), labelled);
    for (const r of adopted) this.applied.set(r);
    if (adopted.length > 0) await this.applied.flush();
    if (adopted.length > 0) this.log.info({ works: adopted.map((r) => r.key) }, "adopted member objects that no applied record named");
    return adopted.map((r) => r.key).filter((k) => !this.desired.has(k));
  }

  /** Each applied Service's outcome with its ready endpoints (the first count waits for the slices' first list). */
  private async withReadyEndpoints(outcomes: ManifestOutcome[]): Promise<ManifestOutcome[]> {
    const endpoints = this.endpoints;
    const isService = (o: ManifestOutcome) => o.applied && o.live !== undefined && o.manifest.apiVersion === "v1" && o.manifest.kind === "Service";
    if (endpoints === undefined || !outcomes.some(isService)) return outcomes;
    await endpoints.synced();
    return outcomes.map((o) => {
      if (!isService(o) || o.live === undefined) return o;
      const ready = endpoints.readyEndpoints(o.live.metadata.namespace ?? "", o.live.metadata.name ?? "");
      return ready === undefined ? o : { ...o, readyEndpoints: ready };
    });
  }

  /** Whether a member HPA scales this workload (its replicas are then the member's). */
  private scaledByHpa(manifest: KubeObject, namespace: string | undefined, name: string): boolean {
    if (this.hpas === undefined || namespace === undefined || !isScalable(manifest.apiVersion, manifest.kind)) return false;
    this.hpas.ensure();
    return this.hpas.scales(namespace, manifest.apiVersion, manifest.kind, name);
  }

  private async applyManifest(key: string, label: string, manifest: KubeObject, conflictResolution: string, full: boolean): Promise<ManifestOutcome> {
    const res = await this.discovery.resourceFor(manifest.apiVersion, manifest.kind);
    if (res === undefined) {
      return { manifest, applied: false, reason: "CreationFailed", message: `the member does not serve ${manifest.kind} in ${manifest.apiVersion}` };
    }
    const namespace = res.namespaced ? manifest.metadata.namespace || "default" : undefined;
    const name = manifest.metadata.name ?? "";
    let live: KubeObject | undefined;
    try {
      live = await this.objects.get(res, namespace, name);
    } catch (err) {
      return { manifest, applied: false, reason: "RetrievalFailed", message: errorMessage(err) };
    }
    const decision = decideApply(live, label, conflictResolution);
    if (decision.action === "skip") return { manifest, applied: false, reason: decision.reason, message: decision.message };
    const desired = retainMemberOwned(withOwnership(manifest, key, label, namespace), live, this.scaledByHpa(manifest, namespace, name));
    this.objects.ensure(res);
    if (!full && live !== undefined && containsFields(live, desired)) return { manifest, applied: true, reason: "", message: "", live };
    try {
      await this.applied.ensureKind(manifest.apiVersion, manifest.kind);
      if (namespace !== undefined) await this.ensureNamespace(namespace);
      this.stats.applies++;
      live = await this.rest.apply<KubeObject>(objectPath(res, namespace, name), desired, FIELD_MANAGER, true);
      return { manifest, applied: true, reason: "", message: "", live };
    } catch (err) {
      return { manifest, applied: false, reason: live === undefined ? "CreationFailed" : "UpdateFailed", message: errorMessage(err) };
    }
  }

  private async remove(key: string): Promise<ReconcileResult> {
    const record = this.applied.get(key);
    const label = workKeyLabelValue(key);
    const failures: string[] = [];
    const preserve = this.preserving.has(key);
    for (const r of deleteOrder((record?.resources ?? []).map(asObject))) {
      try {
        if (preserve) await this.releaseIfOurs(resourceOf(r), label);
        else await this.deleteIfOurs(key, resourceOf(r), label, this.removalReasons.get(key) ?? "Unspecified");
      } catch (err) {
        failures.push(`${r.kind}/${r.metadata.name}: ${errorMessage(err)}`);
      }
    }
    if (failures.length > 0) {
      this.publish({ workKey: key, observedHash: record?.hash ?? "", applied: false, available: false, reason: "DeletionFailed", message: failures.join("; "), manifests: [], deleted: false });
      throw new Error(`deleting work ${key}: ${failures.join("; ")}`);
    }
    this.applied.delete(key);
    this.preserving.delete(key);
    this.removalReasons.delete(key);
    // The confirmation stays as the Work's status (tiny): it must survive until the stream has
    // room for it, and it is sent again after a reconnect.
    this.publish({ workKey: key, observedHash: "", applied: false, available: false, reason: "", message: "", manifests: [], deleted: true });
    return undefined;
  }

  /** Deletes a member object only while it still carries this Work's label; logs and counts it with its reason. */
  private async deleteIfOurs(key: string, r: AppliedResource, label: string, reason: string): Promise<void> {
    const res = await this.discovery.resourceFor(r.apiVersion, r.kind);
    if (res === undefined) return;
    const live = await this.objects.get(res, r.namespace, r.name);
    if (!isOurs(live, label)) return;
    await this.rest.delete(objectPath(res, r.namespace, r.name), { propagationPolicy: "Background" }).catch((err: unknown) => {
      if (!isKubeStatus(err, 404)) throw err;
    });
    this.stats.deletes++;
    this.stats.deletesByReason.set(reason, (this.stats.deletesByReason.get(reason) ?? 0) + 1);
    this.log.info({ work: key, kind: r.kind, namespace: r.namespace, name: r.name, uid: live.metadata.uid, reason }, "member object deleted");
  }

  /** Leaves a member object in place without Flotilla's label and annotation: nothing manages it any more. */
  private async releaseIfOurs(r: AppliedResource, label: string): Promise<void> {
    const res = await this.discovery.resourceFor(r.apiVersion, r.kind);
    if (res === undefined) return;
    const live = await this.objects.get(res, r.namespace, r.name);
    if (!isOurs(live, label)) return;
    const patch = { metadata: { labels: { [LABELS.work]: null }, annotations: { [WORK_KEY_ANNOTATION]: null } } };
    await this.rest.mergePatch(objectPath(res, r.namespace, r.name), patch).catch((err: unknown) => {
      if (!isKubeStatus(err, 404)) throw err;
    });
  }

  private async ensureNamespace(name: string): Promise<void> {
    if (this.knownNamespaces.has(name)) return;
    await this.rest.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name } } }).catch((err: unknown) => {
      if (!isKubeStatus(err, 409)) throw err;
    });
    this.knownNamespaces.add(name);
  }
}

/** The manifest with Flotilla's ownership label and annotation, in its namespace. */
function withOwnership(m: KubeObject, key: string, label: string, namespace: string | undefined): KubeObject {
  return {
    ...m,
    metadata: {
      ...m.metadata,
      ...(namespace !== undefined ? { namespace } : {}),
      labels: { ...m.metadata.labels, [LABELS.work]: label },
      annotations: { ...m.metadata.annotations, [WORK_KEY_ANNOTATION]: key },
    },
  };
}

/** Whether a live member object is this Work's to delete or release. */
function isOurs(live: KubeObject | undefined, label: string): live is KubeObject {
  return live !== undefined && live.metadata.labels?.[LABELS.work] === label && live.metadata.labels?.[LABELS.managed] !== "false";
}

function resourceOf(m: KubeObject): AppliedResource {
  return { apiVersion: m.apiVersion, kind: m.kind, ...(m.metadata.namespace ? { namespace: m.metadata.namespace } : {}), name: m.metadata.name ?? "" };
}

function asObject(r: AppliedResource): KubeObject {
  return { apiVersion: r.apiVersion, kind: r.kind, metadata: { name: r.name, ...(r.namespace ? { namespace: r.namespace } : {}) } };
}

/** A manifest deliberately not applied: the member's object belongs to someone else. */
function isLeftAlone(o: ManifestOutcome): boolean {
  return !o.applied && (o.reason === "AlreadyExists" || o.reason === "ManagedLabelFalse");
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
