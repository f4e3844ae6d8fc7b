// The leader's ClusterProfile controller: one key per name (a Cluster's, a profile's), what
// profile-decision.ts decides, done. Writes are server-side applies under a field manager of its
// own, guarded by the resourceVersion it decided on (a conflict waits for the informer); status
// goes through the status subresource and only when Flotilla's part of it changed. A create is a
// POST, never an apply, so it can never take over a profile another manager made meanwhile. A
// delete happens only for a profile of Flotilla's whose Cluster is gone from the synced cache and
// from the apiserver (asked again right before), and only that uid at that version.
import type { Logger } from "pino";
import { RESOURCES } from "../../shared/api/resources.ts";
import type { Cluster } from "../../shared/api/types.ts";
import { Controller, type ReconcileResult } from "../../shared/controller.ts";
import type { Informer } from "../../shared/informer.ts";
import { collectionPath, isKubeStatus, type KubeRest, objectPath, type ResourceInfo } from "../../shared/kube-rest.ts";
import type { Caches } from "../caches/caches.ts";
import { type EventRecorder, involvedObjectOf } from "../status/event-recorder.ts";
import { CLUSTER_PROFILE_API_VERSION, CLUSTER_PROFILE_KIND, type ClusterProfile, type DesiredProfile, type MemberAccess } from "./cluster-profile.ts";
import { decideProfile } from "./profile-decision.ts";

export const CLUSTER_PROFILES: ResourceInfo = { apiVersion: CLUSTER_PROFILE_API_VERSION, kind: CLUSTER_PROFILE_KIND, plural: "clusterprofiles", namespaced: true };
/** The field manager of every profile write. */
export const PROFILE_FIELD_MANAGER = "flotilla-cluster-profiles";
/** A write refused for a version the cache has not caught up with: tried again after this. */
const CONFLICT_RETRY_MS = 200;

export class ProfileController {
  readonly controller: Controller;
  readonly counts = { created: 0, status: 0, deleted: 0, foreign: 0 };
  private readonly caches: Caches;
  private readonly profiles: Informer<ClusterProfile>;
  private readonly rest: KubeRest;
  private readonly log: Logger;
  private readonly recorder: EventRecorder;
  private readonly namespace: string;
  private readonly access: () => MemberAccess | undefined;
  private readonly ready: () => boolean;
  private readonly now: () => number;
  /** Clusters told (an Event) that another manager's profile holds their name, with that manager. */
  private readonly told = new Map<string, string>();

  /**
   * `access`: the member API, asked at each decision (undefined: none); `ready`: whether the
   * process is serving (the member API's URL settled): before, nothing is decided, and the part
   * enqueues every name again once it is.
   */
  constructor(opts: { caches: Caches; profiles: Informer<ClusterProfile>; rest: KubeRest; log: Logger; recorder: EventRecorder; namespace: string; access: () => MemberAccess | undefined; ready: () => boolean; now?: () => number }) {
    this.caches = opts.caches;
    this.profiles = opts.profiles;
    this.rest = opts.rest;
    this.log = opts.log.child({ component: "cluster-profiles" });
    this.recorder = opts.recorder;
    this.namespace = opts.namespace;
    this.access = opts.access;
    this.ready = opts.ready;
    this.now = opts.now ?? Date.now;
    this.controller = new Controller({ name: "cluster-profiles", reconcile: (k) => this.reconcile(k), log: this.log, workers: 2 });
    // Level-based: any change of a Cluster or a profile of that name asks the same question again.
    // A Cluster's status moves often (heartbeat times); the decision compares, so that costs no write.
    const clusterChanged = (c: Cluster) => this.controller.enqueue(c.metadata.name ?? "");
    this.caches.clusters.on({ add: clusterChanged, update: clusterChanged, delete: clusterChanged });
    const profileChanged = (p: ClusterProfile) => this.controller.enqueue(p.metadata.name ?? "");
    this.profiles.on({ add: profileChanged, update: profileChanged, delete: profileChanged });
  }

  /** Every Cluster's name and every served profile's: at leadership, and once the profiles first listed. */
  enqueueAll(): void {
    for (const c of this.caches.clusters.list()) this.controller.enqueue(c.metadata.name ?? "");
    for (const p of this.profiles.list(this.namespace)) this.controller.enqueue(p.metadata.name ?? "");
  }

  private async reconcile(name: string): Promise<ReconcileResult> {
    // Absence counts only from synced caches (DESIGN §11); once the profiles list and the process
    // serves, every name is enqueued again.
    if (!this.profiles.synced || !this.caches.clusters.synced || !this.ready()) return undefined;
    const cluster = this.caches.clusters.get(name);
    const served = this.profiles.get(name, this.namespace);
    const access = this.access();
    const d = decideProfile(cluster, served, { namespace: this.namespace, ...(access ? { access } : {}), now: new Date(this.now()).toISOString().replace(/\.\d+Z$/, "Z") });
    if (d.action !== "foreign" || !d.clusterWaits) this.told.delete(name);
    try {
      switch (d.action) {
        case "none":
          return undefined;
        case "foreign":
          if (d.clusterWaits && cluster !== undefined) this.tell(cluster, d.manager, d.reason);
          return undefined;
        case "create":
          return await this.create(d.desired);
        case "status":
          await this.writeStatus(d.desired, served?.metadata.resourceVersion);
          this.counts.status++;
          return undefined;
        case "delete":
          return await this.delete(name, d.target, d.reason);
      }
    } catch (err) {
      // A version the cache has not seen yet (ours just written, or another writer's): the informer brings it.
      if (isKubeStatus(err, 409)) return { requeueAfterMs: CONFLICT_RETRY_MS };
      throw err;
    }
  }

  private async create(desired: DesiredProfile): Promise<ReconcileResult> {
    const body = { apiVersion: CLUSTER_PROFILE_API_VERSION, kind: CLUSTER_PROFILE_KIND, metadata: { name: desired.name, namespace: desired.namespace, labels: desired.labels }, spec: desired.spec };
    const post = () => this.rest.request<ClusterProfile>("POST", collectionPath(CLUSTER_PROFILES, this.namespace), { body, query: { fieldManager: PROFILE_FIELD_MANAGER } });
    const created = await post().catch(async (err: unknown) => {
      // The namespace is missing (the first profile, or someone deleted it): made, then the profile.
      if (!isKubeStatus(err, 404)) throw err;
      await this.ensureNamespace();
      return post();
    });
    this.counts.created++;
    this.log.info({ cluster: desired.name, namespace: desired.namespace }, "cluster profile created");
    await this.writeStatus(desired, created.metadata.resourceVersion);
    return undefined;
  }

  private async ensureNamespace(): Promise<void> {
    await this.rest.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: this.namespace } } }).catch((err: unknown) => {
      if (!isKubeStatus(err, 409)) throw err;
    });
    this.log.info({ namespace: this.namespace }, "cluster profile namespace created");
  }

  /** Applies Flotilla's part of the status, at the version the decision saw (a precondition). */
  private async writeStatus(desired: DesiredProfile, resourceVersion: string | undefined): Promise<void> {
    const { version, properties, conditions, accessProviders } = desired.status;
    const body = {
      apiVersion: CLUSTER_PROFILE_API_VERSION,
      kind: CLUSTER_PROFILE_KIND,
      metadata: { name: desired.name, namespace: desired.namespace, ...(resourceVersion === undefined ? {} : { resourceVersion }) },
      // What Flotilla no longer lists (a region removed, the member API turned off) is released and goes.
      status: { ...(version ? { version } : {}), properties, conditions, ...(accessProviders.length > 0 ? { accessProviders } : {}) },
    };
    await this.rest.apply(objectPath(CLUSTER_PROFILES, this.namespace, desired.name, "status"), body, PROFILE_FIELD_MANAGER, true);
  }

  private async delete(name: string, target: { uid: string; resourceVersion: string }, reason: string): Promise<ReconcileResult> {
    // The intent is the Cluster's deletion: asked of the apiserver itself, not only of the cache.
    const live = await this.rest.get<Cluster>(objectPath(RESOURCES.cluster, undefined, name)).catch((err: unknown) => {
      if (isKubeStatus(err, 404)) return undefined;
      throw err;
    });
    if (live !== undefined) {
      this.log.info({ cluster: name }, "the cluster cache lacks a Cluster the apiserver has; its profile stays");
      return { requeueAfterMs: 1000 };
    }
    const deleted = await this.rest.delete(objectPath(CLUSTER_PROFILES, this.namespace, name), { apiVersion: "v1", kind: "DeleteOptions", preconditions: target }).then(
      () => true,
      (err: unknown) => {
        // Gone already; a 409 (another uid or version now) is the caller's to retry on the fresh object.
        if (isKubeStatus(err, 404)) return false;
        throw err;
      },
    );
    if (!deleted) return undefined;
    this.counts.deleted++;
    this.log.info({ cluster: name, namespace: this.namespace, uid: target.uid, reason }, "cluster profile deleted");
    return undefined;
  }

  /** A Warning Event on the Cluster, once per manager that holds its profile's name. */
  private tell(cluster: Cluster, manager: string, reason: string): void {
    const name = cluster.metadata.name ?? "";
    if (this.told.get(name) === manager) return;
    this.told.set(name, manager);
    this.counts.foreign++;
    this.log.warn({ cluster: name, namespace: this.namespace, manager }, "another cluster manager's ClusterProfile holds the cluster's name");
    void this.recorder.record(involvedObjectOf(cluster), { reason: "ClusterProfileConflict", message: reason });
  }
}
