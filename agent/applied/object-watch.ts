import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import { type KubeObject, LABELS } from "../../shared/api/types.ts";
import { Informer } from "../../shared/informer.ts";
import { KubeWatch } from "../../shared/kube-watch.ts";
import { WORK_KEY_ANNOTATION } from "../../shared/work-key.ts";
import { isKubeStatus, type KubeRest, objectPath, type ResourceInfo } from "../../shared/kube-rest.ts";

/**
 * Watches the member objects Flotilla applied (label flotilla.dev/work present), one informer per
 * kind, started the first time a Work applies that kind. Any change or deletion reports the
 * owning Work's key: that is how drift is seen and how status flows back.
 */
export class ObjectWatch {
  private readonly informers = new Map<string, Informer<KubeObject>>();
  /** Each informer's first list (resolves, never rejects: a failed start is logged and retried). */
  private readonly started = new Map<string, Promise<void>>();
  private readonly kc: KubeConfig;
  private readonly rest: KubeRest;
  private readonly log: Logger;
  private readonly onChange: (workKey: string) => void;

  constructor(opts: { kc: KubeConfig; rest: KubeRest; log: Logger; onChange: (workKey: string) => void }) {
    this.kc = opts.kc;
    this.rest = opts.rest;
    this.log = opts.log;
    this.onChange = opts.onChange;
  }

  /** Starts watching a kind (once). */
  ensure(resource: ResourceInfo): void {
    void this.synced(resource);
  }

  /** Starts watching a kind (once); resolves when its first list is in the cache, or its start failed. */
  synced(resource: ResourceInfo): Promise<void> {
    const id = `${resource.apiVersion}|${resource.kind}`;
    const started = this.started.get(id);
    if (started !== undefined) return started;
    const inf = new Informer<KubeObject>({ kc: this.kc, rest: this.rest, watch: new KubeWatch(this.kc), resource, labelSelector: LABELS.work, log: this.log });
    const report = (o: KubeObject) => {
      const key = o.metadata.annotations?.[WORK_KEY_ANNOTATION];
      if (key !== undefined) this.onChange(key);
    };
    inf.on({ add: report, update: report, delete: report });
    this.informers.set(id, inf);
    const start = inf.start().catch((err: unknown) => this.log.warn({ kind: id, err: String(err) }, "watching applied objects failed; the informer retries"));
    this.started.set(id, start);
    return start;
  }

  /** The member's object: from the cache once the kind's informer is synced, else from the apiserver. */
  async get(resource: ResourceInfo, namespace: string | undefined, name: string): Promise<KubeObject | undefined> {
    const inf = this.informers.get(`${resource.apiVersion}|${resource.kind}`);
    if (inf?.synced) {
      const cached = inf.get(name, resource.namespaced ? namespace : undefined);
      // The cache only holds labelled objects; an unlabelled one (a conflict) needs a real read.
      if (cached !== undefined) return cached;
    }
    return this.read(resource, namespace, name);
  }

  /** The object as the apiserver has it now (never the cache, which may lag a write of someone else's); undefined when absent. */
  async read(resource: ResourceInfo, namespace: string | undefined, name: string): Promise<KubeObject | undefined> {
    try {
      return await this.rest.get<KubeObject>(objectPath(resource, namespace, name));
    } catch (err) {
      if (isKubeStatus(err, 404)) return undefined;
      throw err;
    }
  }

  /**
   * Whether the kind's informer is synced and holds no such object: then it is not Flotilla's
   * (it may still exist, unlabelled, or be too new for the cache; create-only.ts).
   */
  unseen(resource: ResourceInfo, namespace: string | undefined, name: string): boolean {
    const inf = this.informers.get(`${resource.apiVersion}|${resource.kind}`);
    return inf?.synced === true && inf.get(name, resource.namespaced ? namespace : undefined) === undefined;
  }

  /** The Work that applied a member object, from the watch cache only (undefined when not cached). */
  cachedWorkKey(apiVersion: string, kind: string, namespace: string | undefined, name: string): string | undefined {
    return this.informers.get(`${apiVersion}|${kind}`)?.get(name, namespace)?.metadata.annotations?.[WORK_KEY_ANNOTATION];
  }

  /** The cached member objects of a kind in a namespace (none before its informer started). */
  cachedIn(apiVersion: string, kind: string, namespace: string): KubeObject[] {
    return this.informers.get(`${apiVersion}|${kind}`)?.list(namespace) ?? [];
  }

  stop(): void {
    for (const inf of this.informers.values()) inf.stop();
    this.informers.clear();
    this.started.clear();
  }
}
