// Whether NoExecute evicts (--enable-no-execute-taint-eviction, off by default as in Karmada).
// Off, the scheduler is shown a NoExecute taint as NoSchedule: nothing new goes to the cluster and
// nothing leaves it. On, the scheduler drops the cluster and graceful eviction holds its copy until
// the replacement is Available (graceful-eviction.ts, reason TaintUntolerated). Pure.
import type { Cluster } from "../../shared/api/types.ts";

/** The cluster as placement sees it while NoExecute does not evict (the same object when it has no NoExecute taint). */
export function noExecuteAsNoSchedule(c: Cluster): Cluster {
  const taints = c.spec?.taints;
  if (taints === undefined || !taints.some((t) => t.effect === "NoExecute")) return c;
  const seen = new Set<string>();
  const shown = taints
    .map((t) => (t.effect === "NoExecute" ? { ...t, effect: "NoSchedule" as const } : t))
    .filter((t) => {
      const id = `${t.key}\0${t.value ?? ""}\0${t.effect}`;
      return !seen.has(id) && (seen.add(id), true);
    });
  return { ...c, spec: { ...c.spec, taints: shown } };
}
