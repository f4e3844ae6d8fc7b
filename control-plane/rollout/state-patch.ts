// How a rollout's state is written (issue 23): the leader's rollout controller and the Admin API's
// rollout commands each replace the binding's status.rollout whole, as a JSON merge patch on the
// status subresource that carries the resourceVersion it was computed from. The apiserver refuses
// it (409) when the binding changed since: a user's pause is never overwritten by a controller
// that had not seen it, nor the reverse. A merge patch merges maps, so every field the old state
// had and the new one has not is sent as null; lists (clusters, approvals) are replaced whole. Pure.
import type { RolloutState } from "../../shared/api/types.ts";

export interface RolloutStatePatch {
  metadata: { resourceVersion: string };
  status: { rollout: Record<string, unknown> | null };
}

/** The merge patch that makes status.rollout `next` (undefined: removes it) on the binding at `resourceVersion`. */
export function rolloutStatePatch(resourceVersion: string, previous: RolloutState | undefined, next: RolloutState | undefined): RolloutStatePatch {
  if (next === undefined) return { metadata: { resourceVersion }, status: { rollout: null } };
  const rollout: Record<string, unknown> = { ...next };
  for (const key of Object.keys(previous ?? {})) if (!(key in next)) rollout[key] = null;
  return { metadata: { resourceVersion }, status: { rollout } };
}

/** The content type of that patch. */
export const ROLLOUT_PATCH_CONTENT_TYPE = "application/merge-patch+json";
