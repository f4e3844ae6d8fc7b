// Which deletions in the members nobody asked for. A deletion is intended when, between the time
// the deleted copy was first seen (less a lag allowance) and the deletion, the user's intent left
// that template off that cluster: the template was deleted, or its policy moved it away. Any
// other deletion or recreation of a wanted object is unintended, whatever the fault around it
// (a ResourceBinding or a PropagationPolicy deleted by hand is no intent: DESIGN §11), with one
// exception that is not Flotilla's doing: the copies Kubernetes deletes with a member namespace a
// fault deleted. Those are counted apart, and each one still wanted must be back at the end.

import type { UserObject } from "./object-faults.ts";

/** How long after a user's delete-and-apply the watch may report the old copy gone. */
const USER_WRITE_LAG_MS = 30_000;

/** Whether a user deleted this copy (user-recreate: deleted and applied again by hand): not Flotilla's doing. */
export function deletedByUser(d: ObservedDeletion, users: readonly UserObject[]): boolean {
  return users.some((u) => u.how === "recreate" && u.member === d.member && u.id === d.id && d.firstSeenMs <= u.atMs && d.atMs >= u.atMs - 1_000 && d.atMs <= u.atMs + USER_WRITE_LAG_MS);
}

/**
 * The user's copies (user-copy) that are not in their member at the end as they were made (the same
 * uid): Flotilla took them. A copy whose member namespace a fault deleted after it was made went
 * with the namespace.
 */
export function userCopiesGone(users: readonly UserObject[], uidNow: (member: string, id: string) => string | undefined, namespaces: readonly NamespaceDeletion[] = []): UserObject[] {
  return users.filter((u) => u.how === "copy" && uidNow(u.member, u.id) !== u.uid && !namespaces.some((n) => n.member === u.member && n.fromMs >= u.atMs));
}

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

/** A member namespace that a fault deleted: from the request until it was seen gone (or replaced). */
export interface NamespaceDeletion {
  member: string;
  fromMs: number;
  goneMs: number;
}

/**
 * Whether Kubernetes' namespace controller took this copy with its namespace: it is on the
 * namespace's member, it existed before the namespace was gone, and it went after the deletion
 * was asked for; a copy that existed then cannot outlive its namespace. Honest limit: while the
 * namespace terminates, a deletion Flotilla itself made of such a copy looks the same, so the
 * judge cannot blame it; what it can check is that every such copy still wanted comes back.
 */
export function deletedWithNamespace(d: ObservedDeletion, namespaces: readonly NamespaceDeletion[]): boolean {
  return namespaces.some((n) => n.member === d.member && d.firstSeenMs < n.goneMs && d.atMs >= n.fromMs);
}

export interface DeletionJudgement {
  /** Deletions no intent and no namespace deletion explains: Flotilla's, and never allowed. */
  unintended: ObservedDeletion[];
  /** Copies Kubernetes deleted with a member namespace that a fault deleted. */
  withNamespace: ObservedDeletion[];
  /** Of those, the ones still wanted on their member at the end that are not back there. */
  notBack: ObservedDeletion[];
}

/**
 * Judges every deletion seen: intended by the user, taken with a deleted member namespace (a
 * repair: what is still wanted must be back at the end, `present` says what a member holds then),
 * or unintended.
 */
export function judgeDeletions(
  history: readonly IntentSnapshot[],
  deletions: readonly ObservedDeletion[],
  namespaces: readonly NamespaceDeletion[],
  present: (member: string, id: string) => boolean,
  /** What users made by hand (user-copy, user-recreate): the copies a user deleted themselves are theirs to delete. */
  users: readonly UserObject[] = [],
): DeletionJudgement {
  const withNamespace = deletions.filter((d) => deletedWithNamespace(d, namespaces));
  const unintended = unintendedDeletions(history, deletions).filter((d) => !withNamespace.includes(d) && !deletedByUser(d, users));
  const last = history.at(-1);
  const wantedAtEnd = (d: ObservedDeletion) => last?.wanted.get(d.id)?.has(d.member) === true;
  const notBack = withNamespace.filter((d, i) => wantedAtEnd(d) && !present(d.member, d.id) && withNamespace.findIndex((x) => x.member === d.member && x.id === d.id) === i);
  return { unintended, withNamespace, notBack };
}
