// What the agent may prune after applying a new version of a Work, and whether that version now
// counts as applied: pure. DESIGN §11: the only intent that prunes here is the user's removal of
// a manifest from the Work, and it counts only once the new version has applied. A failed apply
// of any kind (a refusal, a conflict, a timeout) prunes nothing and keeps the old record, so the
// objects it names stay until a later version applies.
import { type AppliedRecord, type AppliedResource, resourceId } from "./applied-record.ts";

/** One manifest of the new version, and how its apply ended. */
export interface ManifestResult {
  resource: AppliedResource;
  /** Applied (or already as wanted). */
  applied: boolean;
  /** Deliberately not applied: the object belongs to someone else (AlreadyExists, ManagedLabelFalse). */
  leftAlone: boolean;
}

export interface PruneDecision {
  /** The objects to delete (if still this Work's): in the previous record, absent from the new version. */
  prune: AppliedResource[];
  /** The new record, when the version counts as applied; undefined keeps the previous one. */
  record: AppliedResource[] | undefined;
}

export function decidePrune(previous: readonly AppliedResource[], results: readonly ManifestResult[]): PruneDecision {
  if (!results.every((r) => r.applied || r.leftAlone)) return { prune: [], record: undefined };
  const wanted = new Set(results.map((r) => resourceId(r.resource)));
  return {
    prune: previous.filter((r) => !wanted.has(resourceId(r))),
    // Only what was applied is claimed: an object left alone is not ours to delete later.
    record: results.filter((r) => r.applied).map((r) => r.resource),
  };
}

/**
 * The record after the same version applied again: it becomes whole (held by hash after a restart)
 * once nothing was skipped (a conflict cleared, or a record of an older agent), it follows the
 * binding's preserveResourcesOnDeletion, and it takes the uid of each object applied (one deleted
 * by hand and applied again is another object) and the cluster's registration it was given under.
 * `applied` carries a uid only for what was applied.
 * Undefined when it does not change.
 */
export function recordAgain(record: AppliedRecord, applied: readonly AppliedResource[], skipped: boolean, preserve: boolean, registration?: string): AppliedRecord | undefined {
  let next = registration !== undefined && record.registration !== registration ? { ...record, registration } : record;
  const uids = new Map(applied.filter((r) => r.uid !== undefined).map((r) => [resourceId(r), r.uid]));
  if (record.resources.some((r) => uids.has(resourceId(r)) && uids.get(resourceId(r)) !== r.uid)) {
    next = { ...next, resources: next.resources.map((r) => (uids.has(resourceId(r)) ? { ...r, uid: uids.get(resourceId(r)) as string } : r)) };
  }
  if (record.whole !== true && !skipped) {
    const ids = new Set(next.resources.map(resourceId));
    next = { ...next, resources: [...next.resources, ...applied.filter((r) => !ids.has(resourceId(r)))], whole: true };
  }
  if ((record.preserve === true) !== preserve) {
    const { preserve: _dropped, ...rest } = next;
    next = preserve ? { ...rest, preserve: true } : rest;
  }
  return next === record ? undefined : next;
}
