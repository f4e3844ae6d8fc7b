// The absences the hub's judge kept (DESIGN §11: a Work merely missing from the store is not
// deleted), remembered per key and cluster and judged again when the key's state can decide
// them. Nothing else marks such an absence: the work cache forgets a placement once it has taken
// the Works out of the store. Two faults left Works in members until their agent reconnected:
// - issue 42: a template created, updated and deleted within one watch lag of its new binding
//   (the judge kept the removals while the binding was ahead): judged again once the informer
//   shows the leader's write (the end of the ahead entry);
// - a binding deleted by hand while its template lives (kept: no intent), and the template
//   deleted before the binding was made again: judged again once the template is known gone and
//   the binding missing or being deleted (`decides`), when the judge can only answer
//   TemplateDeleted. A binding made again is not such a moment: made without its history (a held
//   policy or an exceeded quota writes no clusters), its placement is left to the work cache and
//   the agent's next Hello, as before.
import type { ResourceBinding } from "../../shared/api/types.ts";
import { templateKeyOfBinding } from "../../shared/work-key.ts";

/** What judging again on a key's changes needs of the caches and the template informers. */
export interface KeyChanges {
  /** The end of a binding written ahead of the informer (caches/bindings-ahead.ts). */
  bindingsAhead: { onEnd(listener: (key: string) => void): void };
  /** The binding informers (namespaced and cluster-scoped). */
  bindings: readonly { on(handlers: { add: (b: ResourceBinding) => void; update: (b: ResourceBinding) => void; delete: (b: ResourceBinding) => void }): void }[];
  /** A template was added, updated or deleted (by key). */
  onTemplateChanged(listener: (key: string) => void): void;
  /** Whether the key's state now decides its kept absences whatever the cluster (deletion-intent.ts templateDeletionDecided). */
  decides(key: string): boolean;
}

export class KeptAbsences {
  /** key → the clusters whose absence of it the judge kept. */
  private readonly byKey = new Map<string, Set<string>>();
  /** cluster → the keys kept for it (to forget them when its session ends). */
  private readonly byCluster = new Map<string, Set<string>>();
  private readonly recheck: (cluster: string, key: string) => void;

  /** recheck(cluster, key): judge that absence again (the cluster's session, if it is connected). */
  constructor(recheck: (cluster: string, key: string) => void) {
    this.recheck = recheck;
  }

  /** Judges kept absences again when their key's binding ahead ends, or when its template or binding changes and `decides` says it now decides them. */
  follow(changes: KeyChanges): this {
    changes.bindingsAhead.onEnd((key) => this.judgeAgain(key));
    const changed = (key: string) => {
      if (this.byKey.has(key) && changes.decides(key)) this.judgeAgain(key);
    };
    changes.onTemplateChanged(changed);
    const bindingChanged = (b: ResourceBinding) => changed(templateKeyOfBinding(b));
    for (const inf of changes.bindings) inf.on({ add: bindingChanged, update: bindingChanged, delete: bindingChanged });
    return this;
  }

  /** The judge kept the cluster's absence of key: it is judged again when the key can decide it (returns the judge's answer: none). */
  keep(cluster: string, key: string): undefined {
    add(this.byKey, key, cluster);
    add(this.byCluster, cluster, key);
    return undefined;
  }

  /** Judges each kept absence of the key again, once (the judge keeps it again if it still has no intent). */
  judgeAgain(key: string): void {
    const clusters = this.byKey.get(key);
    if (clusters === undefined) return;
    this.byKey.delete(key);
    for (const c of clusters) remove(this.byCluster, c, key);
    for (const c of clusters) this.recheck(c, key);
  }

  /** The cluster's session here ended: its next Hello judges everything its agent holds afresh. */
  forgetCluster(cluster: string): void {
    const keys = this.byCluster.get(cluster);
    if (keys === undefined) return;
    this.byCluster.delete(cluster);
    for (const k of keys) remove(this.byKey, k, cluster);
  }

  /** Keys with absences kept (for tests and metrics). */
  get size(): number {
    return this.byKey.size;
  }
}

function add(map: Map<string, Set<string>>, k: string, v: string): void {
  const set = map.get(k);
  if (set === undefined) map.set(k, new Set([v]));
  else set.add(v);
}

function remove(map: Map<string, Set<string>>, k: string, v: string): void {
  const set = map.get(k);
  if (set === undefined) return;
  set.delete(v);
  if (set.size === 0) map.delete(k);
}
