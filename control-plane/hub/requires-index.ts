// Which workloads' bindings say that they refer to a template
// (flotilla.dev/requires, shared/workload-requires.ts): kept from the binding informer's events, so
// the deletion judge finds a dependency's workloads without scanning its namespace's bindings.
import type { ResourceBinding } from "../../shared/api/types.ts";
import { requiresOf } from "../../shared/workload-requires.ts";

const idOf = (b: ResourceBinding) => `${b.metadata.namespace ?? ""}/${b.metadata.name ?? ""}`;

export class RequiresIndex {
  /** Template key → the ids ("namespace/name") of the workload bindings that require it. */
  private readonly byTemplate = new Map<string, Set<string>>();
  /** Binding id → the template keys it requires (to unfile it). */
  private readonly byBinding = new Map<string, string[]>();

  set(b: ResourceBinding): void {
    this.delete(b);
    // Also while being deleted: a workload whose removal has not reached every member still stands in its dependencies' way there.
    const keys = requiresOf(b);
    if (keys.length === 0) return;
    const id = idOf(b);
    this.byBinding.set(id, keys);
    for (const k of keys) {
      const ids = this.byTemplate.get(k) ?? new Set<string>();
      ids.add(id);
      this.byTemplate.set(k, ids);
    }
  }

  delete(b: ResourceBinding): void {
    const id = idOf(b);
    for (const k of this.byBinding.get(id) ?? []) {
      const ids = this.byTemplate.get(k);
      ids?.delete(id);
      if (ids?.size === 0) this.byTemplate.delete(k);
    }
    this.byBinding.delete(id);
  }

  /** The workload bindings that require the template, as "namespace/name". */
  requiring(templateKey: string): string[] {
    return [...(this.byTemplate.get(templateKey) ?? [])];
  }
}
