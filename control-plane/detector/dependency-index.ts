// Which dependencies each workload template needs (propagateDeps), remembered per template so a
// parent's change or removal can tell the dependencies it used to need. Recomputed only when the
// template's resourceVersion changes.
import type { KubeObject } from "../../shared/api/types.ts";
import { templateKey } from "../../shared/work-key.ts";
import { dependenciesOf } from "./dependencies.ts";

export class DependencyIndex {
  private readonly byParent = new Map<string, { version: string; deps: string[] }>();

  /** The template keys of the objects a template refers to (memoised by resourceVersion). */
  depsOf(parentKey: string, template: KubeObject): string[] {
    const version = `${template.metadata.uid ?? ""}/${template.metadata.resourceVersion ?? ""}`;
    const known = this.byParent.get(parentKey);
    if (known !== undefined && known.version === version && version !== "/") return known.deps;
    const deps = dependenciesOf(template).map((d) => templateKey({ apiVersion: d.apiVersion, kind: d.kind, metadata: { name: d.name, namespace: d.namespace } }));
    this.byParent.set(parentKey, { version, deps });
    return deps;
  }

  /** What a parent needed when last seen (for a parent that is gone or changed). */
  known(parentKey: string): string[] {
    return this.byParent.get(parentKey)?.deps ?? [];
  }

  forget(parentKey: string): void {
    this.byParent.delete(parentKey);
  }
}
