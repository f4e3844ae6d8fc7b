// The last spec of each binding deleted without intent (by hand, or lost to a restore this
// process watched) while its template lived, in memory until the binding is made again. The
// binding controller makes it again from it, as if it had stayed: a held policy or an exceeded
// quota keeps its clusters, the scheduler keeps the clusters it runs in (taints, spread,
// anti-affinity), and a dependency stays required by its workloads. Without it (another process
// saw the deletion, or this one restarted since) the binding is made again from nothing, and a
// placement that cannot be decided then is marked unknown (template-placement.ts). Every replica
// follows the bindings, so a new leader remembers what went while it stood by.
import { LABELS, type ResourceBinding } from "../../shared/api/types.ts";
import type { Informer } from "../../shared/informer.ts";
import { parseWorkKey, templateKeyOfBinding } from "../../shared/work-key.ts";
import { isCurrentBinding } from "../scheduling/binding-spec.ts";
import type { TemplateInformers } from "./template-informers.ts";

/** The most bindings remembered; past it the oldest is forgotten (it is then made again from nothing). */
export const MAX_LOST_BINDINGS = 10_000;

export class LostBindings {
  private readonly lost = new Map<string, ResourceBinding>();
  private readonly max: number;

  constructor(max = MAX_LOST_BINDINGS) {
    this.max = max;
  }

  /**
   * Follows the binding informers (`templates`: the template caches): a binding that goes while its
   * template lives, or while its kind has not listed (not known gone), is remembered; one added or
   * changed is forgotten.
   */
  follow(informers: Iterable<Informer<ResourceBinding>>, templates: Pick<TemplateInformers, "get" | "watching">): void {
    const keyOf = (b: ResourceBinding) => templateKeyOfBinding(b);
    const seen = (b: ResourceBinding) => this.lost.size > 0 && this.lost.has(keyOf(b)) && isCurrentBinding(b) && this.forget(keyOf(b));
    const knownGone = (key: string) => {
      const ref = parseWorkKey(key);
      const t = templates.get(ref);
      return t === undefined ? templates.watching(ref) : t.metadata.deletionTimestamp !== undefined;
    };
    for (const inf of informers) inf.on({ add: seen, update: seen, delete: (b) => this.deleted(keyOf(b), b, !knownGone(keyOf(b))) });
  }

  /**
   * A binding left the cache: remembered (its spec and metadata, not its status: the agents report
   * again) unless its template is known gone, it was released on purpose or it is under an earlier
   * version's name; otherwise what was remembered of the template is forgotten.
   */
  deleted(key: string, b: ResourceBinding, templateMayLive: boolean): void {
    if (!templateMayLive || b.metadata.annotations?.[LABELS.releasedBecause] !== undefined || !isCurrentBinding(b)) {
      if (isCurrentBinding(b)) this.lost.delete(key);
      return;
    }
    this.lost.delete(key); // to the end of the insertion order: the oldest goes first
    this.lost.set(key, { apiVersion: b.apiVersion, kind: b.kind, metadata: b.metadata, spec: b.spec });
    for (const oldest of this.lost.keys()) {
      if (this.lost.size <= this.max) break;
      this.lost.delete(oldest);
    }
  }

  /** The template's lost binding, if it bound this template (the same uid); a binding of an earlier template of that name is forgotten. */
  of(key: string, templateUid: string | undefined): ResourceBinding | undefined {
    const b = this.lost.get(key);
    if (b === undefined) return undefined;
    if (templateUid === undefined || b.spec.resource.uid === undefined || b.spec.resource.uid !== templateUid) {
      this.lost.delete(key);
      return undefined;
    }
    return b;
  }

  /** The binding is made again, or its template is gone: nothing to remember. True. */
  forget(key: string): true {
    this.lost.delete(key);
    return true;
  }

  get size(): number {
    return this.lost.size;
  }
}
