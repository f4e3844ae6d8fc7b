/** One rendered Work: a template for one cluster, ready to send (DESIGN §2). */
export interface Work {
  key: string;
  hash: string;
  /** Each manifest as JSON bytes. */
  manifests: Buffer[];
  conflictResolution: string;
  /** The binding's preserveResourcesOnDeletion: sent with the Work, the agent records it. */
  preserveResourcesOnDeletion?: boolean;
  /** The template's metadata.generation this Work was rendered from. */
  templateGeneration?: number;
  /** Under a progressive rollout (issue 23): the template revision this Work was rendered from. */
  revision?: string;
}

type Listener = (key: string) => void;

/**
 * Works no binding renders (issue 26: a FederatedResourceQuota's ResourceQuotas) are put in the
 * store by their own part, which also judges, from the user's intent, whether an agent may remove
 * one the store lacks (the hub asks it instead of the binding rules).
 */
export interface WorkSource {
  owns(key: string): boolean;
  /** The Hello feature an agent must declare to be sent these Works (DESIGN §11: never what an old agent would misread). */
  feature?: string;
  /** The key a Work's removal counts under in the deletion brake's window (default its own): Works that carry one object together count once. */
  brakeKey?(key: string): string;
  /** Why the cluster's agent may remove the Work's objects, or undefined to keep them. */
  absenceIntent(cluster: string, key: string): { reason: "TemplateDeleted" | "PlacementChanged" | "ClusterUnjoined" | "ExportsWithdrawn"; preserve: false } | undefined;
}

/**
 * The Works of every cluster, in memory (Works are computed, never stored in etcd). Every hub
 * replica holds the same set, computed from informers. Listeners hear which key changed, never
 * the content, so a slow agent session can coalesce changes and read the latest state when it
 * has room to send.
 */
export class WorkStore {
  private readonly byCluster = new Map<string, Map<string, Work>>();
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly allListeners = new Set<(cluster: string, key: string) => void>();
  private isSynced = false;
  /** template key → cluster → why its Work could not be rendered (e.g. ApplyOverridesFailed). */
  private readonly renderErrors = new Map<string, Map<string, string>>();
  private readonly sources: WorkSource[] = [];

  /** Registers a source of Works no binding renders. */
  addSource(source: WorkSource): void {
    this.sources.push(source);
  }

  /** The source that owns a key, if any (undefined: a binding's Work). */
  sourceOf(key: string): WorkSource | undefined {
    return this.sources.find((s) => s.owns(key));
  }

  /** The key the deletion brake counts a Work's removal under (its source's grouping, else the key itself). */
  brakeKey(key: string): string {
    return this.sourceOf(key)?.brakeKey?.(key) ?? key;
  }

  /** Whether an agent that declares these features may be sent the Work (its source's feature among them, if it names one). */
  sendable(key: string, features: readonly string[]): boolean {
    const feature = this.sourceOf(key)?.feature;
    return feature === undefined || features.includes(feature);
  }

  /** True once the caches the Works are computed from have synced; before that the set is partial. */
  get synced(): boolean {
    return this.isSynced;
  }

  markSynced(): void {
    this.isSynced = true;
  }

  /**
   * Sets a cluster's Work; with the hash unchanged nobody is told (a new template generation
   * that renders the same for this cluster is only noted, for the rollout status).
   */
  set(cluster: string, work: Work): void {
    let works = this.byCluster.get(cluster);
    if (works === undefined) {
      works = new Map();
      this.byCluster.set(cluster, works);
    }
    const held = works.get(work.key);
    // A changed preserveResourcesOnDeletion is sent again (the agent keeps it with its record).
    if (held?.hash === work.hash && (held.preserveResourcesOnDeletion === true) === (work.preserveResourcesOnDeletion === true)) {
      if (held.templateGeneration !== work.templateGeneration || held.revision !== work.revision) {
        held.templateGeneration = work.templateGeneration;
        held.revision = work.revision;
        // Nothing to send to the agent; the status side still hears of it.
        for (const l of this.allListeners) l(cluster, work.key);
      }
      return;
    }
    works.set(work.key, work);
    this.notify(cluster, work.key);
  }

  /**
   * Records (or clears, with undefined) why a cluster's Work could not be rendered. The previous
   * Work stays: nothing already applied is lost.
   */
  setRenderError(cluster: string, key: string, message: string | undefined): void {
    const perCluster = this.renderErrors.get(key) ?? new Map<string, string>();
    if (perCluster.get(cluster) === message) return;
    if (message === undefined) perCluster.delete(cluster);
    else perCluster.set(cluster, message);
    if (perCluster.size === 0) this.renderErrors.delete(key);
    else this.renderErrors.set(key, perCluster);
    for (const l of this.allListeners) l(cluster, key);
  }

  /** cluster → render error, for one template key. */
  renderErrorsOf(key: string): ReadonlyMap<string, string> {
    return this.renderErrors.get(key) ?? new Map();
  }

  /**
   * Removes a cluster's Work. Listeners hear of it even when the store did not hold it (after a
   * start, a Work an agent holds may never have been rendered here): the hub then decides,
   * from the user's intent, whether the agent deletes it.
   */
  delete(cluster: string, key: string): void {
    this.byCluster.get(cluster)?.delete(key);
    this.notify(cluster, key);
  }

  get(cluster: string, key: string): Work | undefined {
    return this.byCluster.get(cluster)?.get(key);
  }

  /** work key → content hash, for resync. */
  hashes(cluster: string): Map<string, string> {
    const out = new Map<string, string>();
    for (const [key, work] of this.byCluster.get(cluster) ?? []) out.set(key, work.hash);
    return out;
  }

  /** Keys of a cluster's Works. */
  keys(cluster: string): string[] {
    return [...(this.byCluster.get(cluster)?.keys() ?? [])];
  }

  /** Clusters that have at least one Work. */
  clusters(): string[] {
    return [...this.byCluster.entries()].filter(([, w]) => w.size > 0).map(([c]) => c);
  }

  /** Hears every change to one cluster's Works; returns the unsubscribe function. */
  subscribe(cluster: string, listener: Listener): () => void {
    let set = this.listeners.get(cluster);
    if (set === undefined) {
      set = new Set();
      this.listeners.set(cluster, set);
    }
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Hears every change to any cluster's Works, and a new template generation that renders the same. */
  subscribeAll(listener: (cluster: string, key: string) => void): () => void {
    this.allListeners.add(listener);
    return () => this.allListeners.delete(listener);
  }

  private notify(cluster: string, key: string): void {
    for (const l of this.listeners.get(cluster) ?? []) l(key);
    for (const l of this.allListeners) l(cluster, key);
  }
}
