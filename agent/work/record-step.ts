// After a wanted Work's manifests were applied: prune what its new version dropped (only once the
// version applied in full: judge/prune-decision.ts), and record what it applied. Never deletes
// but through the deleter, on the judge's verdict.
import type { AppliedStore } from "../applied/applied-store.ts";
import type { MemberDeletion } from "../applied/member-deletion.ts";
import { appliedResource, inDeleteOrder, isLeftAlone } from "../apply/work-manifests.ts";
import type { AppliedRecord, AppliedResource } from "../judge/applied-record.ts";
import { decidePrune, recordAgain } from "../judge/prune-decision.ts";
import type { ManifestOutcome } from "../status/work-status.ts";
import type { DesiredWork } from "./work-message.ts";

/** Why the agent deletes an object a Work no longer has: the new version dropped it. */
const PRUNED = "PrunedFromWork";

export interface RecordStepAccess {
  applied: AppliedStore;
  deletion: MemberDeletion;
  /** The cluster's registration this agent runs under (the record keeps it), when its certificate names one. */
  registration: string | undefined;
}

/**
 * `full`: the Work's hash differs from its record's (a new version). `record`: the record before
 * this reconcile. `label`: the Work's label value.
 */
export async function recordApplied(s: RecordStepAccess, want: DesiredWork, record: AppliedRecord | undefined, outcomes: readonly ManifestOutcome[], label: string, full: boolean): Promise<void> {
  const skipped = outcomes.some((o) => !o.applied);
  const registered = s.registration === undefined ? {} : { registration: s.registration };
  if (full) {
    const results = outcomes.map((o) => ({ resource: appliedResource(o), applied: o.applied, leftAlone: isLeftAlone(o) }));
    const decision = decidePrune(record?.resources ?? [], results);
    // A pruned Namespace or CRD that is kept (it holds objects Flotilla does not manage) stays in the record: tried again later.
    const kept: AppliedResource[] = [];
    // Only what is pruned with it counts as a pruned Namespace's or CRD's own: what the new version still applies holds it.
    for (const r of inDeleteOrder(decision.prune)) if ((await s.deletion.deleteIfOurs(want.key, r, label, PRUNED, decision.prune)) !== undefined) kept.push(r);
    if (decision.record !== undefined) s.applied.set({ key: want.key, hash: want.hash, resources: [...decision.record, ...kept], ...(skipped ? {} : { whole: true }), ...(want.preserve === true ? { preserve: true } : {}), ...registered });
    else if (record !== undefined) {
      // The version did not apply in full: its record stays, but an object it made again is the one to delete later.
      const next = recordAgain(record, outcomes.map(appliedResource), true, record.preserve === true);
      if (next !== undefined) s.applied.set(next);
    }
  } else if (record !== undefined) {
    const next = recordAgain(record, outcomes.map(appliedResource), skipped, want.preserve === true, s.registration);
    if (next !== undefined) s.applied.set(next);
  }
}
