// What each cluster reports of a rolled-out object, read for the wave planner (issue 23): the
// revision it applied (only when its report's hash is the hash of the Work rendered at that
// revision: a report on an older Work says nothing about the new one), whether it is healthy there
// (the kind's interpreter's health, which includes observedGeneration), and whether the apply
// failed (UpdateFailed). Pure.
import type { AggregatedStatusItem } from "../../shared/api/types.ts";
import type { Observed } from "./wave-plan.ts";

/** The Work the hub holds for a cluster: its content hash and the revision it was rendered at. */
export interface RenderedWork {
  hash: string;
  revision: string;
}

export function observedOf(items: readonly AggregatedStatusItem[], workOf: (cluster: string) => RenderedWork | undefined): Map<string, Observed> {
  const out = new Map<string, Observed>();
  for (const item of items) {
    const work = workOf(item.clusterName);
    const current = work !== undefined && item.observedHash === work.hash;
    const failed = item.applied === false && item.reason === "UpdateFailed";
    out.set(item.clusterName, {
      ...(current ? { revision: work.revision } : {}),
      healthy: current && item.applied === true && (item.reason ?? "") === "" && item.health === "Healthy",
      ...(current && failed ? { failed: item.message ?? "the apply failed" } : {}),
    });
  }
  return out;
}
