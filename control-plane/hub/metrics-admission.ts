// Whether the hub takes an agent's workload summary (issue 22, DESIGN §7): pure. An agent speaks
// only for the workloads the hub's MetricsWanted lists for its cluster, and only for the metric
// keys listed for each: a summary of any other workload is dropped, an unlisted key left out.
import type { MetricsWanted, WorkloadMetrics } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { workloadKey } from "../../shared/workload-metrics-wire.ts";

/** workload key → the metric keys wanted for it. */
export type WantedIndex = ReadonlyMap<string, ReadonlySet<string>>;

export function wantedIndex(m: MetricsWanted): WantedIndex {
  return new Map(m.workloads.map((w) => [workloadKey(w.workload), new Set(w.metrics.map((x) => x.key))]));
}

export type MetricsVerdict = { accept: true; value: WorkloadMetrics; unwantedKeys: number } | { accept: false; reason: "NotWanted" };

/** The verdict on a summary already within bounds: taken (without unlisted keys), or dropped. */
export function admitWorkloadMetrics(m: WorkloadMetrics, wanted: WantedIndex): MetricsVerdict {
  const keys = wanted.get(workloadKey(m.workload));
  if (keys === undefined) return { accept: false, reason: "NotWanted" };
  const resources = m.resources.filter((e) => keys.has(e.key));
  const podsMetrics = m.podsMetrics.filter((e) => keys.has(e.key));
  const objectMetrics = m.objectMetrics.filter((e) => keys.has(e.key));
  const externalMetrics = m.externalMetrics.filter((e) => keys.has(e.key));
  const kept = resources.length + podsMetrics.length + objectMetrics.length + externalMetrics.length;
  const unwantedKeys = m.resources.length + m.podsMetrics.length + m.objectMetrics.length + m.externalMetrics.length - kept;
  return { accept: true, value: unwantedKeys === 0 ? m : { ...m, resources, podsMetrics, objectMetrics, externalMetrics }, unwantedKeys };
}
