// What propagateDeps parents need (issue 21: their kind's InterpretDependency), and which parents
// need a given object: the binding controller's dependency side, over the dependency index, the
// template caches and the bindings. No writes: the controller requeues and binds.
import { type KubeObject, LABELS, type ResourceBinding } from "../../shared/api/types.ts";
import type { InterpreterRegistry } from "../../shared/interpreter/registry.ts";
import { parseWorkKey, templateKey, templateKeyOfBinding, type WorkRef, workKey } from "../../shared/work-key.ts";
import type { Caches } from "../caches/caches.ts";
import { isCurrentBinding, type RequiredBy } from "../scheduling/binding-spec.ts";
import { parentRequires, requiredClusters, resolveDependencies } from "./dependencies.ts";
import { DependencyIndex, type ParentRefs } from "./dependency-index.ts";
import type { KindRef, TemplateInformers } from "./template-informers.ts";
import { keepsEntry, parentsOfBindingName, type UnboundParent } from "./unbound-parent.ts";

export class DependencyTracker {
  private readonly deps: DependencyIndex;
  private readonly caches: Caches;
  private readonly templates: TemplateInformers;
  private readonly interpreters: InterpreterRegistry;
  private kindsChanged: () => void = () => {};

  constructor(opts: { caches: Caches; templates: TemplateInformers; interpreters: InterpreterRegistry }) {
    this.caches = opts.caches;
    this.templates = opts.templates;
    this.interpreters = opts.interpreters;
    this.deps = new DependencyIndex(() => this.kindsChanged());
  }

  /** The kinds that parents' dependencies name, to be watched (wantedKinds). */
  kinds(): KindRef[] {
    return this.deps.kinds();
  }

  /** Called when kinds() may have changed. */
  onKindsChange(listener: () => void): void {
    this.kindsChanged = listener;
  }

  /** Whether some parent's dependencies name this kind. */
  refersToKind(ref: KindRef): boolean {
    return this.deps.refersToKind(ref);
  }

  /**
   * Whether a parent's references are followed: under a propagateDeps policy, and after it (its
   * policy changed to one without) while it still refers to any, because what it required then it
   * holds in the clusters that have it (requiredBy).
   */
  follows(parentKey: string, propagateDeps: boolean): boolean {
    return propagateDeps || this.deps.known(parentKey).length > 0;
  }

  /** The template keys a parent needed when last seen. */
  known(parentKey: string): string[] {
    return this.resolve(this.deps.known(parentKey));
  }

  /**
   * Remembers what a parent (a template under a propagateDeps policy; undefined: no longer one)
   * needs. Returns the template keys it needed before and needs now, and why its kind's
   * InterpretDependency failed, if it did (it then keeps what it needed before).
   */
  note(parentKey: string, template: KubeObject | undefined): { touched: string[]; failed?: string } {
    const before = this.known(parentKey);
    if (template === undefined) {
      this.deps.forget(parentKey);
      return { touched: before };
    }
    const got = this.deps.refsOf(parentKey, template, this.interpreters.for(template));
    const touched = [...new Set([...before, ...this.resolve(got.refs)])];
    return got.interpreterFailed === undefined ? { touched } : { touched, failed: got.interpreterFailed };
  }

  /**
   * The live bindings whose templates refer to this object, with their clusters: those under
   * propagateDeps, and those that required it before and still refer to it (issue 37: a workload
   * whose policy no longer propagates dependencies still mounts them). A binding without
   * propagateDeps only holds: it keeps the object in the clusters it had it in, and adds none.
   */
  requiredBy(dep: KubeObject, existing: ResourceBinding | undefined): RequiredBy[] {
    const requiredBefore = new Map((existing?.spec.requiredBy ?? []).map((r) => [r.name, r]));
    const depKey = templateKey(dep);
    const needs: RequiredBy[] = [];
    /** The bindings that stand (not being deleted) under the names the dependency was required by, and those being deleted. */
    const standing = new Set<string>();
    const deleting = new Map<string, ResourceBinding>();
    /** The templates of the parents counted above (an entry of one under an earlier name is not kept beside it). */
    const countedParents = new Set<string>();
    for (const b of this.caches.bindings.list(dep.metadata.namespace)) {
      const named = b.metadata.name ?? "";
      if (requiredBefore.has(named)) {
        if (b.metadata.deletionTimestamp === undefined) standing.add(named);
        else deleting.set(named, b);
      }
      const holdsOnly = b.spec.propagateDeps !== true;
      const before = requiredBefore.get(b.metadata.name ?? "");
      if (b.metadata.deletionTimestamp !== undefined || (holdsOnly && before === undefined)) continue;
      const parentKey = templateKeyOfBinding(b);
      if (parentKey === depKey) continue; // a script that names its own object adds nothing
      if (!isCurrentBinding(b) && this.caches.currentBindingOf(parseWorkKey(parentKey)) !== undefined) continue; // counted under its current name
      const parentRef = parseWorkKey(parentKey);
      const parent = this.templates.get(parentRef);
      // A parent of a kind that has not listed (its informer starting, or its list refused) still requires what it did.
      const unknown = parent === undefined && !this.templates.watching(parentRef);
      if (!unknown && (parent === undefined || parent.metadata.deletionTimestamp !== undefined)) continue;
      let refs: { refs: ParentRefs["refs"]; settled: boolean };
      if (parent === undefined) refs = { refs: this.deps.known(parentKey), settled: false };
      else {
        const got = this.deps.refsOf(parentKey, parent, this.interpreters.for(parent));
        refs = { refs: got.refs, settled: got.interpreterFailed === undefined };
      }
      const parentBinding = { name: b.metadata.name ?? "", propagateDeps: !holdsOnly, clusters: b.spec.clusters.map((c) => c.name) };
      const clusters = requiredClusters(parentBinding, before, parentRequires(refs, dep, before !== undefined));
      if (clusters === undefined) continue;
      // The entry names the parent's template too: found by it while its binding is missing, and its kind stays watched.
      needs.push({ name: parentBinding.name, clusters, ...(b.spec.conflictResolution ? { conflictResolution: b.spec.conflictResolution } : {}), resource: parentRef });
      countedParents.add(parentKey);
    }
    // A parent whose binding is missing or deleted by hand still runs where it ran: its entry stays as it was (unbound-parent.ts).
    const counted = new Set(needs.map((n) => n.name));
    for (const [name, before] of requiredBefore) {
      if (standing.has(name) || counted.has(name)) continue;
      const { parent, ref } = this.unboundParent(before, deleting.get(name), dep);
      const resource = before.resource ?? ref;
      if (resource !== undefined && countedParents.has(workKey(resource))) continue; // counted under its current binding's name
      if (keepsEntry(parent)) needs.push(resource === undefined ? before : { ...before, resource });
    }
    return needs;
  }

  /** What is known of the parent of an entry that no standing binding has (`deleting`: its binding, being deleted), and its template's ref when it lives. */
  private unboundParent(before: RequiredBy, deleting: ResourceBinding | undefined, dep: KubeObject): { parent: UnboundParent; ref?: WorkRef } {
    // Released on purpose (no workload requires it): the parent let go.
    if (deleting?.metadata.annotations?.[LABELS.releasedBecause] !== undefined) return { parent: { state: "gone" } };
    const namespace = dep.metadata.namespace;
    const candidates: WorkRef[] =
      deleting !== undefined
        ? [parseWorkKey(templateKeyOfBinding(deleting))]
        : before.resource !== undefined
          ? [before.resource]
          : namespace === undefined
            ? []
            : parentsOfBindingName(before.name, this.templates.kinds()).map((f) => ({ apiVersion: f.kind.apiVersion, kind: f.kind.kind, namespace, name: f.name }));
    // Gone only when every candidate's kind is watched and none lives; a kind not watched (yet) cannot
    // tell, nor can a name matched among the watched kinds (an earlier version's name of another group could read the same).
    let unknown = candidates.length === 0 || (deleting === undefined && before.resource === undefined);
    for (const ref of candidates) {
      if (!this.templates.watching(ref)) {
        unknown = true;
        continue;
      }
      const parent = this.templates.get(ref);
      if (parent === undefined || parent.metadata.deletionTimestamp !== undefined) continue;
      const got = this.deps.refsOf(templateKey(parent), parent, this.interpreters.for(parent));
      return { parent: { state: "lives", refers: parentRequires({ refs: got.refs, settled: got.interpreterFailed === undefined }, dep, true) }, ref };
    }
    return { parent: unknown ? { state: "unknown" } : { state: "gone" } };
  }

  /** The template keys references name, from the template caches. */
  private resolve(refs: ParentRefs["refs"]): string[] {
    return resolveDependencies(refs, (k, namespace) => this.templates.list(k, namespace));
  }
}
