// The Event a rollout's change of phase tells on its template (issue 23): pure.
import type { RolloutState } from "../../shared/api/types.ts";
import type { Failure } from "../status/event-recorder.ts";

const WARNING = new Set(["Paused", "RollingBack", "RolledBack", "Aborted"]);

/** Rollout<Phase> when the phase (or the revision rolled out) changed; undefined otherwise. */
export function rolloutEvent(previous: RolloutState | undefined, next: RolloutState): Failure | undefined {
  if (previous === undefined && next.phase === "Succeeded") return undefined; // the first revision: nothing rolled out
  if (previous !== undefined && previous.phase === next.phase && previous.revision === next.revision && previous.waitingFor === next.waitingFor) return undefined;
  const at = next.clusters.filter((c) => c.revision === next.revision).length;
  const message = next.message ?? `revision ${next.revision}: ${next.phase}, ${at}/${next.clusters.length} clusters told it`;
  return { reason: `Rollout${next.phase}`, message, type: WARNING.has(next.phase) && next.paused !== true ? "Warning" : "Normal" };
}
