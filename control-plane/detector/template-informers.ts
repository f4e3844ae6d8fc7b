import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import { GROUP, type KubeObject } from "../../shared/api/types.ts";
import type { Discovery } from "../../shared/discovery.ts";
import { Informer } from "../../shared/informer.ts";
import type { KubeRest } from "../../shared/kube-rest.ts";
import { templateKey, type WorkRef } from "../../shared/work-key.ts";

/** A kind by apiVersion and kind. */
export interface KindRef {
  apiVersion: string;
  kind: string;
}

const kindId = (k: KindRef) => `${k.apiVersion}|${k.kind}`;

/** Kinds never propagated: Flotilla's own, and kinds that only make sense in their own cluster. */
export function isPropagatable(k: KindRef): boolean {
  const group = k.apiVersion.includes("/") ? k.apiVersion.split("/")[0] : "";
  if (group === GROUP) return false;
  if (group === "" && ["Event", "Node", "Pod", "Binding", "ComponentStatus", "Endpoints"].includes(k.kind)) return false;
  if (group === "events.k8s.io" || group === "coordination.k8s.io" || group === "discovery.k8s.io") return false;
  return true;
}

/**
 * Informers on exactly the kinds some policy selects or some binding references: started as
 * policies come, stopped as they go. Templates of any kind, built-in or CRD-defined, with no
 * per-kind code. Each template change reports the template's key (its work key).
 */
export class TemplateInformers {
  private readonly informers = new Map<string, Informer<KubeObject>>();
  private readonly unresolved = new Set<string>();
  private readonly kc: KubeConfig;
  private readonly rest: KubeRest;
  private readonly discovery: Discovery;
  private readonly log: Logger;
  private readonly onChange: (key: string) => void;

  constructor(opts: { kc: KubeConfig; rest: KubeRest; discovery: Discovery; log: Logger; onChange: (key: string) => void }) {
    this.kc = opts.kc;
    this.rest = opts.rest;
    this.discovery = opts.discovery;
    this.log = opts.log.child({ component: "template-informers" });
    this.onChange = opts.onChange;
  }

  /**
   * Makes the set of watched kinds exactly `kinds`; resolves when every new informer is synced.
   * Kinds the apiserver does not serve (yet) are skipped and reported by unresolvedKinds().
   */
  async ensure(kinds: KindRef[]): Promise<void> {
    const wanted = new Map(kinds.filter(isPropagatable).map((k) => [kindId(k), k]));
    for (const [id, inf] of this.informers) {
      if (!wanted.has(id)) {
        inf.stop();
        this.informers.delete(id);
        this.log.info({ kind: id }, "stopped watching templates");
      }
    }
    this.unresolved.clear();
    const starts: Promise<void>[] = [];
    for (const [id, k] of wanted) {
      if (this.informers.has(id)) continue;
      const resource = await this.discovery.resourceFor(k.apiVersion, k.kind);
      if (resource === undefined) {
        this.unresolved.add(id);
        continue;
      }
      const inf = new Informer<KubeObject>({ kc: this.kc, rest: this.rest, resource, log: this.log });
      const report = (o: KubeObject) => this.onChange(templateKey(o));
      inf.on({ add: report, update: report, delete: report });
      this.informers.set(id, inf);
      starts.push(inf.start());
      this.log.info({ kind: id, resource: resource.plural }, "watching templates");
    }
    await Promise.all(starts);
  }

  /** Kinds asked for that the apiserver does not serve. */
  unresolvedKinds(): string[] {
    return [...this.unresolved];
  }

  get synced(): boolean {
    return [...this.informers.values()].every((i) => i.synced);
  }

  get(ref: WorkRef): KubeObject | undefined {
    return this.informers.get(kindId(ref))?.get(ref.name, ref.namespace);
  }

  /** Whether the kind is watched and its cache is synced (only then does "absent" mean gone). */
  watching(k: KindRef): boolean {
    return this.informers.get(kindId(k))?.synced ?? false;
  }

  /** The kinds watched, whose caches are synced. */
  kinds(): KindRef[] {
    return [...this.informers.values()].filter((i) => i.synced).map((i) => ({ apiVersion: i.resource.apiVersion, kind: i.resource.kind }));
  }

  /** Every template of a kind, or of a kind in one namespace (empty when it is not watched). */
  list(k: KindRef, namespace?: string): KubeObject[] {
    return this.informers.get(kindId(k))?.list(namespace) ?? [];
  }

  /** The ResourceInfo of a watched kind. */
  resource(k: KindRef) {
    return this.informers.get(kindId(k))?.resource;
  }

  stop(): void {
    for (const inf of this.informers.values()) inf.stop();
    this.informers.clear();
  }
}
