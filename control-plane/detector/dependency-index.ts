// Which dependencies each parent template refers to (propagateDeps), remembered per parent so a
// parent's change or removal can tell what it used to need, and which kinds they are (those must
// be watched). Recomputed only when the parent's uid or resourceVersion changes, or its kind's
// InterpretDependency does: the registry makes a new function for a kind whose customizations
// changed, so comparing the function is comparing the customization.
import type { KubeObject } from "../../shared/api/types.ts";
import type { DependentObjectReference, KindInterpreter } from "../../shared/interpreter/interpreter.ts";
import { interpretDependencies, referencedKinds } from "./dependencies.ts";
import type { KindRef } from "./template-informers.ts";

/** What a parent refers to; `interpreterFailed`: its script failed, and `refs` are its last good answer. */
export interface ParentRefs {
  refs: DependentObjectReference[];
  interpreterFailed?: string;
}

interface Entry {
  version: string;
  interpret: KindInterpreter["getDependencies"];
  answer: ParentRefs;
}

const kindId = (k: KindRef) => `${k.apiVersion}|${k.kind}`;

export class DependencyIndex {
  private readonly byParent = new Map<string, Entry>();
  /** kindId → how many parents refer to the kind, and the kind. */
  private readonly kindCounts = new Map<string, { kind: KindRef; parents: number }>();
  private readonly onKindsChange: () => void;

  /** onKindsChange: called when a kind is referred to for the first time, or no longer at all. */
  constructor(onKindsChange: () => void = () => {}) {
    this.onKindsChange = onKindsChange;
  }

  /**
   * What the parent refers to, as its kind's interpreter says (memoised). A failing script keeps
   * the parent's last good answer and says why.
   */
  refsOf(parentKey: string, template: KubeObject, interpreter: KindInterpreter | undefined): ParentRefs {
    const version = `${template.metadata.uid ?? ""}/${template.metadata.resourceVersion ?? ""}`;
    const interpret = interpreter?.getDependencies;
    const known = this.byParent.get(parentKey);
    if (known !== undefined && known.version === version && version !== "/" && known.interpret === interpret) return known.answer;
    const got = interpretDependencies(template, interpreter);
    const answer: ParentRefs = "interpreterFailed" in got ? { refs: known?.answer.refs ?? [], interpreterFailed: got.interpreterFailed } : { refs: got.refs };
    this.set(parentKey, { version, interpret, answer });
    return answer;
  }

  /** What a parent referred to when last seen (for a parent that is gone or changed). */
  known(parentKey: string): DependentObjectReference[] {
    return this.byParent.get(parentKey)?.answer.refs ?? [];
  }

  forget(parentKey: string): void {
    this.set(parentKey, undefined);
  }

  /** Whether some known parent refers to objects of this kind. */
  refersToKind(k: KindRef): boolean {
    return this.kindCounts.has(kindId(k));
  }

  /** Every kind some known parent refers to. */
  kinds(): KindRef[] {
    return [...this.kindCounts.values()].map((c) => c.kind);
  }

  private set(parentKey: string, entry: Entry | undefined): void {
    const before = referencedKinds(this.byParent.get(parentKey)?.answer.refs ?? []);
    if (entry === undefined) this.byParent.delete(parentKey);
    else this.byParent.set(parentKey, entry);
    // The new answer's kinds are counted before the old one's are let go, so a kind both name never leaves.
    let changed = false;
    for (const k of referencedKinds(entry?.answer.refs ?? [])) {
      const c = this.kindCounts.get(kindId(k));
      if (c !== undefined) c.parents += 1;
      else {
        this.kindCounts.set(kindId(k), { kind: k, parents: 1 });
        changed = true;
      }
    }
    for (const k of before) {
      const c = this.kindCounts.get(kindId(k));
      if (c === undefined) continue;
      c.parents -= 1;
      if (c.parents === 0) {
        this.kindCounts.delete(kindId(k));
        changed = true;
      }
    }
    if (changed) this.onKindsChange();
  }
}
