// What propagateDeps parents need (issue 21: their kind's InterpretDependency), and which parents
// need a given object: the binding controller's dependency side, over the dependency index, the
// template caches and the bindings. No writes: the controller requeues and binds.
import { type KubeObject, LABELS, type ResourceBinding } from "../../shared/api/types.ts";
import type { InterpreterRegistry } from "../../shared/interpreter/registry.ts";
import { parseWorkKey, templateKey, templateKeyOfBinding } from "../../shared/work-key.ts";
import type { Caches } from "../caches/caches.ts";
import { isCurrentBinding, type RequiredBy } from "../scheduling/binding-spec.ts";
import { parentRequires, requiredClusters, resolveDependencies } from "./dependencies.ts";
import { DependencyIndex, type ParentRefs } from "./dependency-index.ts";
import type { KindRef, TemplateInformers } from "./template-informers.ts";
import { keepsEntry, parentOfBindingName, type UnboundParent } from "./unbound-parent.ts";

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
      needs.push({ name: parentBinding.name, clusters, ...(b.spec.conflictResolution ? { conflictResolution: b.spec.conflictResolution } : {}) });
    }
    // A parent whose binding is missing or deleted by hand still runs where it ran: its entry stays as it was (unbound-parent.ts).
    for (const [name, before] of requiredBefore) {
      if (standing.has(name) || needs.some((n) => n.name === name)) continue;
      if (keepsEntry(this.unboundParent(name, deleting.get(name), dep))) needs.push(before);
    }
    return needs;
  }

  /** What is known of the parent under a binding name that no standing binding has (`deleting`: its binding, being deleted). */
  private unboundParent(name: string, deleting: ResourceBinding | undefined, dep: KubeObject): UnboundParent {
    let ref: { apiVersion: string; kind: string; namespace?: string; name: string };
    if (deleting !== undefined) {
      // Released on purpose (no workload requires it): the parent let go.
      if (deleting.metadata.annotations?.[LABELS.releasedBecause] !== undefined) return { state: "gone" };
      ref = parseWorkKey(templateKeyOfBinding(deleting));
    } else {
      const found = dep.metadata.namespace === undefined ? undefined : parentOfBindingName(name, this.templates.kinds());
      if (found === undefined) return { state: "unknown" };
      ref = { apiVersion: found.kind.apiVersion, kind: found.kind.kind, namespace: dep.metadata.namespace, name: found.name };
    }
    if (!this.templates.watching(ref)) return { state: "unknown" };
    const parent = this.templates.get(ref);
    if (parent === undefined || parent.metadata.deletionTimestamp !== undefined) return { state: "gone" };
    const got = this.deps.refsOf(templateKey(parent), parent, this.interpreters.for(parent));
    return { state: "lives", refers: parentRequires({ refs: got.refs, settled: got.interpreterFailed === undefined }, dep, true) };
  }

  /** The template keys references name, from the template caches. */
  private resolve(refs: ParentRefs["refs"]): string[] {
    return resolveDependencies(refs, (k, namespace) => this.templates.list(k, namespace));
  }
}
