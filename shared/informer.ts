import { type KubeConfig, type KubernetesObject, ListWatch, Watch } from "@kubernetes/client-node";
import type { Logger } from "pino";
import { collectionPath, type KubeRest, type ResourceInfo } from "./kube-rest.ts";
import type { WatchLike } from "./kube-watch.ts";

/** Handlers for cache changes; each runs after the cache holds the new state. */
export interface InformerHandlers<T> {
  add?(obj: T): void;
  update?(obj: T): void;
  delete?(obj: T): void;
}

type Cached<T> = T & KubernetesObject;

/** The object without metadata.managedFields: often half its size, and read by no informer's user. */
export function withoutManagedFields<T extends KubernetesObject>(o: T): T {
  if (o.metadata?.managedFields === undefined) return o;
  const { managedFields: _, ...metadata } = o.metadata;
  return { ...o, metadata };
}

/**
 * A list-watch cache of one resource (client-node's ListWatch: relists on 410 Gone, updates the
 * cache before calling handlers), restarted with backoff when the watch fails. `start()`
 * resolves once the first list is in the cache: before that, the cache must not be read as
 * the truth.
 */
export class Informer<T> {
  readonly resource: ResourceInfo;
  private readonly inner: ListWatch<Cached<T>>;
  private readonly log: Logger;
  private stopped = false;
  private restartDelay = 500;
  private isSynced = false;
  private readonly syncedWaiters: { resolve: () => void; hold: NodeJS.Timeout }[] = [];
  /** A list has succeeded (client-node's start() resolves after a failed one too, having only reported the error). */
  private listed = false;
  /** The current (re)start reported an error: its list or watch failed. */
  private attemptFailed = false;

  constructor(opts: {
    kc: KubeConfig;
    rest: KubeRest;
    resource: ResourceInfo;
    namespace?: string;
    labelSelector?: string;
    /**
     * What the cache keeps of each object (listed or watched), e.g. only the fields its users
     * read. It must keep metadata.name, namespace and resourceVersion. Default: the object
     * without managedFields.
     */
    transform?: (obj: T) => T;
    /** What makes the watch requests (default client-node's Watch; the agent's is shared/kube-watch.ts's). */
    watch?: WatchLike;
    log: Logger;
  }) {
    this.resource = opts.resource;
    this.log = opts.log.child({ informer: `${opts.resource.plural}.${opts.resource.apiVersion}` });
    const path = collectionPath(opts.resource, opts.namespace);
    const { apiVersion, kind } = opts.resource;
    const given = opts.transform;
    const transform: (o: Cached<T>) => Cached<T> = given === undefined ? withoutManagedFields : (o) => given(o) as Cached<T>;
    const list = async () => {
      const body = await opts.rest.get<{ metadata?: { resourceVersion?: string }; items?: Cached<T>[] }>(path, {
        labelSelector: opts.labelSelector,
      });
      this.listed = true;
      // Lists of built-in kinds leave apiVersion/kind off the items.
      const items = (body.items ?? []).map((i) => transform({ ...i, apiVersion, kind }));
      return { apiVersion, kind: `${kind}List`, metadata: body.metadata ?? {}, items };
    };
    // client-node's ListWatch caches what its Watch hands it: the transform goes between the two.
    const watch = opts.watch ?? new Watch(opts.kc);
    const transforming = {
      watch: (watchPath: string, query: Record<string, string | number | boolean | undefined>, callback: (phase: string, obj: Cached<T>, raw: unknown) => void, done: (err: unknown) => void) =>
        watch.watch(watchPath, query, (phase: string, obj: unknown, raw: unknown) => callback(phase, phase === "ERROR" || phase === "BOOKMARK" ? (obj as Cached<T>) : transform(obj as Cached<T>), raw), done),
    } as unknown as Watch;
    this.inner = new ListWatch<Cached<T>>(path, transforming, list, false, opts.labelSelector);
    this.inner.on("error", (err: unknown) => {
      if (this.stopped) return;
      this.attemptFailed = true;
      const delay = this.restartDelay;
      this.restartDelay = Math.min(this.restartDelay * 2, 30_000);
      const message = err instanceof Error ? err.message : String(err);
      // A CRD's storage starting up and an expired resourceVersion are routine: the restart is the cure.
      const routine = /storage is \(re\)initializing|too old resource version|\bexpired\b/i.test(message);
      this.log[routine ? "info" : "warn"]({ err: message, delayMs: delay }, "watch failed; restarting");
      setTimeout(() => {
        if (this.stopped) return;
        this.attemptFailed = false;
        this.inner.start().then(() => this.startedWatching(), () => undefined);
      }, delay).unref();
    });
  }

  /** Registers handlers; register before start() to see the initial list as adds. */
  on(handlers: InformerHandlers<T>): void {
    if (handlers.add) this.inner.on("add", (o) => handlers.add?.(o));
    if (handlers.update) this.inner.on("update", (o) => handlers.update?.(o));
    if (handlers.delete) this.inner.on("delete", (o) => handlers.delete?.(o));
  }

  /**
   * Lists, fills the cache, starts watching; resolves when the cache is synced, or when the first
   * list failed (then it stays unsynced, and is retried with backoff until a list succeeds).
   */
  async start(): Promise<void> {
    this.stopped = false;
    this.attemptFailed = false;
    await this.inner.start();
    this.startedWatching();
  }

  private startedWatching(): void {
    // A failed attempt keeps backing off (a refused list is retried ever more slowly, up to 30 s).
    if (this.attemptFailed) return;
    this.restartDelay = 500;
    // Only a cache that was listed is the truth: an empty one after a refused list is not.
    if (this.listed && !this.isSynced) {
      this.isSynced = true;
      for (const w of this.syncedWaiters.splice(0)) {
        clearInterval(w.hold);
        w.resolve();
      }
    }
  }

  /**
   * Resolves once the cache holds a successful list (at once if it does); never rejects. While it
   * waits it holds the process open: the retry timer is unref'd (a stopped informer must not keep
   * a process alive), and a process waiting only for its caches would otherwise exit quietly.
   */
  whenSynced(): Promise<void> {
    if (this.isSynced) return Promise.resolve();
    return new Promise((resolve) => this.syncedWaiters.push({ resolve, hold: setInterval(() => undefined, 60_000) }));
  }

  /** Whether the cache holds a successful list (kept up to date by the watch since). */
  get synced(): boolean {
    return this.isSynced;
  }

  stop(): void {
    this.stopped = true;
    // Waiters stay pending (the cache never synced) but no longer hold the process open.
    for (const w of this.syncedWaiters) clearInterval(w.hold);
    void this.inner.stop();
  }

  get(name: string, namespace?: string): T | undefined {
    return this.inner.get(name, namespace);
  }

  list(namespace?: string): T[] {
    return [...this.inner.list(namespace)];
  }
}
