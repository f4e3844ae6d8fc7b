// A Cluster's readiness as its status says it (DESIGN §6): pure, read by the scheduler and by the hub.
import type { Cluster } from "./api/types.ts";

/** Whether the Cluster's Ready condition is True. */
export function clusterReady(c: Cluster): boolean {
  return c.status?.conditions?.find((x) => x.type === "Ready")?.status === "True";
}

/** Since when (ms since the epoch) the Cluster has been Ready, or undefined when it is not or its condition has no time. */
export function readySince(c: Cluster): number | undefined {
  const ready = c.status?.conditions?.find((x) => x.type === "Ready");
  if (ready?.status !== "True" || ready.lastTransitionTime === undefined) return undefined;
  const t = Date.parse(ready.lastTransitionTime);
  return Number.isNaN(t) ? undefined : t;
}
