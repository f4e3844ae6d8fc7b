// Which deletions in the members nobody asked for. A deletion is intended when, between the time
// the deleted copy was first seen (less a lag allowance) and the deletion, the user's intent left
// that template off that cluster: the template was deleted, or its policy moved it away. Any
// other deletion or recreation of a wanted object is unintended, whatever the fault around it.

/** The intent after one churn operation, stamped with the time the operation was first sent. */
export interface IntentSnapshot {
  atMs: number;
  /** template id → the clusters it is wanted on */
  wanted: ReadonlyMap<string, ReadonlySet<string>>;
}

/** A member object that went away, or came back with a new uid. */
export interface ObservedDeletion {
  atMs: number;
  member: string;
  /** The template id the object belongs to. */
  id: string;
  /** When the watch first saw the copy that went. */
  firstSeenMs: number;
  how: "deleted" | "recreated" | "gone-while-unwatched";
}

/** How stale a copy may be: an agent may apply an old Work this long after the intent changed. */
export const INTENT_LAG_MS = 120_000;

/** The deletions no intent explains; history is in time order. */
export function unintendedDeletions(history: readonly IntentSnapshot[], deletions: readonly ObservedDeletion[]): ObservedDeletion[] {
  return deletions.filter((d) => {
    const from = d.firstSeenMs - INTENT_LAG_MS;
    let before: IntentSnapshot | undefined;
    const inWindow: IntentSnapshot[] = [];
    for (const s of history) {
      if (s.atMs > d.atMs) break;
      if (s.atMs < from) before = s;
      else inWindow.push(s);
    }
    const relevant = before === undefined ? inWindow : [before, ...inWindow];
    // Before the first operation nothing was wanted anywhere.
    if (relevant.length === 0) return false;
    return relevant.every((s) => s.wanted.get(d.id)?.has(d.member) === true);
  });
}
