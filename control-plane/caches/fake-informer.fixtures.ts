// Stand-ins for informers, fed events by hand: what per-event tests count is what the controllers'
// handlers do with an event, with no apiserver behind them.
import type { KubeObject } from "../../shared/api/types.ts";
import type { Informer, InformerHandlers } from "../../shared/informer.ts";
import type { ResourceInfo } from "../../shared/kube-rest.ts";

export class FakeInformer<T extends KubeObject> {
  readonly resource: ResourceInfo;
  readonly synced = true;
  private readonly objects = new Map<string, T>();
  private readonly handlers: InformerHandlers<T>[] = [];
  /** Objects handed out by list() and get() since the last reset: what reading the cache cost. */
  read = 0;

  constructor(resource: ResourceInfo) {
    this.resource = resource;
  }

  on(h: InformerHandlers<T>): void {
    this.handlers.push(h);
  }

  async start(): Promise<void> {}

  async whenSynced(): Promise<void> {}

  stop(): void {}

  get(name: string, namespace?: string): T | undefined {
    const o = this.objects.get(`${namespace ?? ""}/${name}`);
    if (o !== undefined) this.read++;
    return o;
  }

  list(namespace?: string): T[] {
    const all = [...this.objects.values()].filter((o) => namespace === undefined || o.metadata.namespace === namespace);
    this.read += all.length;
    return all;
  }

  /** Puts the object in the cache and calls the add or update handlers, as an informer does. */
  put(o: T): void {
    const id = `${o.metadata.namespace ?? ""}/${o.metadata.name ?? ""}`;
    const verb = this.objects.has(id) ? "update" : "add";
    this.objects.set(id, o);
    for (const h of this.handlers) h[verb]?.(o);
  }

  remove(o: T): void {
    this.objects.delete(`${o.metadata.namespace ?? ""}/${o.metadata.name ?? ""}`);
    for (const h of this.handlers) h.delete?.(o);
  }
}

/** Makes FakeInformers for Caches and keeps them by plural, to feed them. */
export function fakeInformers(): { make: (r: ResourceInfo) => Informer<unknown>; of: <T extends KubeObject>(plural: string) => FakeInformer<T> } {
  const made = new Map<string, FakeInformer<KubeObject>>();
  return {
    make: (r) => {
      const f = new FakeInformer<KubeObject>(r);
      made.set(r.plural, f);
      return f as unknown as Informer<unknown>;
    },
    of: <T extends KubeObject>(plural: string) => made.get(plural) as unknown as FakeInformer<T>,
  };
}
