// Whether the agent may apply a manifest over what the member already has: pure.
import { type KubeObject, LABELS } from "../shared/api/types.ts";

export type ApplyDecision =
  | { action: "apply" }
  | { action: "skip"; reason: "AlreadyExists" | "ManagedLabelFalse"; message: string };

/**
 * live: the member's object (undefined when absent); workLabel: the label value that marks
 * objects of this Work. An object labelled flotilla.dev/managed=false is never touched; an
 * object Flotilla did not create is taken over only with conflictResolution Overwrite.
 */
export function decideApply(live: KubeObject | undefined, workLabel: string, conflictResolution: string): ApplyDecision {
  if (live === undefined) return { action: "apply" };
  const labels = live.metadata.labels ?? {};
  if (labels[LABELS.managed] === "false") {
    return { action: "skip", reason: "ManagedLabelFalse", message: `the member's object is labelled ${LABELS.managed}=false; Flotilla leaves it alone` };
  }
  if (labels[LABELS.work] === workLabel) return { action: "apply" };
  if (conflictResolution === "Overwrite") return { action: "apply" };
  const owner = labels[LABELS.work] ? "another Flotilla Work" : "something other than Flotilla";
  return {
    action: "skip",
    reason: "AlreadyExists",
    message: `the member already has this object, created by ${owner}; set conflictResolution: Overwrite in the policy to take it over`,
  };
}

/** Whether every field of want is present with the same value in have (have may hold more: defaults, status). */
export function containsFields(have: unknown, want: unknown): boolean {
  if (want === null || typeof want !== "object") return have === want || (want === undefined);
  if (Array.isArray(want)) {
    if (!Array.isArray(have) || have.length !== want.length) return false;
    return want.every((w, i) => containsFields(have[i], w));
  }
  if (have === null || typeof have !== "object" || Array.isArray(have)) return false;
  return Object.entries(want).every(([k, v]) => containsFields((have as Record<string, unknown>)[k], v));
}
