// The last state of each binding deleted without intent (by hand, or lost to a restore this
// process watched) while its template lived, in memory until the binding is made again. The
// binding controller makes it again from it, as if it had stayed: a held policy or an exceeded
// quota keeps its clusters, the scheduler keeps the clusters it runs in (taints, spread,
// anti-affinity), and a dependency stays required by its workloads. Without it (another process
// saw the deletion, or this one restarted since) the binding is made again from nothing, and a
// placement that cannot be decided then is marked unknown (template-placement.ts).
import { LABELS, type ResourceBinding } from "../../shared/api/types.ts";
import { isCurrentBinding } from "../scheduling/binding-spec.ts";

export class LostBindings {
  private readonly lost = new Map<string, ResourceBinding>();

  /** A binding left the cache: remembered, unless it was released on purpose or is under an earlier version's name. */
  deleted(key: string, b: ResourceBinding): void {
    if (b.metadata.annotations?.[LABELS.releasedBecause] !== undefined || !isCurrentBinding(b)) return;
    this.lost.set(key, b);
  }

  /** The template's lost binding, if it bound this template (the same uid); a binding of an earlier template of that name is forgotten. */
  of(key: string, templateUid: string | undefined): ResourceBinding | undefined {
    const b = this.lost.get(key);
    if (b === undefined) return undefined;
    if (templateUid !== undefined && b.spec.resource.uid !== undefined && b.spec.resource.uid !== templateUid) {
      this.lost.delete(key);
      return undefined;
    }
    return b;
  }

  /** The binding is made again, or its template is gone: nothing to remember. */
  forget(key: string): void {
    this.lost.delete(key);
  }

  get size(): number {
    return this.lost.size;
  }
}
