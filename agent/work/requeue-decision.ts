// What a wanted Work's reconcile ends with, from its manifests' outcomes: done, looked at again
// later, or failed (the controller's backoff). Pure.
import type { ManifestOutcome } from "../status/work-status.ts";
import { isLeftAlone } from "../apply/work-manifests.ts";

/** How often a Work with a skipped manifest (a conflict) is looked at again. */
export const RECHECK_SKIPPED_MS = 15_000;

export interface AfterApply {
  /** Some manifest failed to apply (counted in flotilla_agent_apply_errors_total). */
  applyError: boolean;
  /** Why the reconcile fails (the controller retries with backoff); absent when it does not. */
  failure?: string;
  /** Look at the Work again after this long. */
  requeueAfterMs?: number;
}

/**
 * A manifest that failed (not applied, not deliberately left alone) fails the reconcile, unless
 * every failure waits for its namespace's deletion: then it is tried again on the namespace's own
 * clock. A skipped manifest (a conflict) is looked at again after RECHECK_SKIPPED_MS.
 */
export function afterApply(outcomes: readonly ManifestOutcome[]): AfterApply {
  const failed = outcomes.filter((o) => !o.applied && !isLeftAlone(o));
  if (failed.length > 0 && failed.every((o) => o.waitingForNamespaceMs !== undefined)) return { applyError: true, requeueAfterMs: Math.max(...failed.map((o) => o.waitingForNamespaceMs ?? 0)) };
  if (failed.length > 0) return { applyError: true, failure: outcomes.filter((o) => !o.applied).map((o) => o.message).join("; ") };
  return outcomes.some((o) => !o.applied) ? { applyError: false, requeueAfterMs: RECHECK_SKIPPED_MS } : { applyError: false };
}
