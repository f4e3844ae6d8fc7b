// State preservation at render time (Karmada's injectReservedLabelState): the labels an eviction
// task read from the cluster a workload left go on the copy in the cluster it moved to. As
// Karmada: only when the workload runs in one cluster, the latest task's purge mode is Directly
// (the old copy is gone, so the new one takes over its state), and the cluster is not one it ran
// in before the move. The labels last as long as the task. Pure.
import type { KubeObject, ResourceBindingSpec } from "../../shared/api/types.ts";

/** The labels to add to the copy in a cluster, or undefined. */
export function preservedLabelsFor(spec: ResourceBindingSpec): (cluster: string) => Record<string, string> | undefined {
  const tasks = spec.gracefulEvictionTasks ?? [];
  const latest = [...tasks].sort((a, b) => Date.parse(a.creationTimestamp) - Date.parse(b.creationTimestamp) || (a.fromCluster < b.fromCluster ? -1 : 1)).at(-1);
  const labels = latest?.preservedLabelState;
  if (latest?.purgeMode !== "Directly" || labels === undefined || Object.keys(labels).length === 0) return () => undefined;
  const tasked = new Set(tasks.map((t) => t.fromCluster));
  const running = spec.clusters.filter((c) => !tasked.has(c.name));
  const before = new Set(latest.clustersBeforeFailover ?? []);
  return (cluster) => (running.length === 1 && running[0]?.name === cluster && !before.has(cluster) ? labels : undefined);
}

/** The object with the labels added (they win over the template's own). */
export function withPreservedLabels(obj: KubeObject, labels: Record<string, string> | undefined): KubeObject {
  return labels === undefined ? obj : { ...obj, metadata: { ...obj.metadata, labels: { ...obj.metadata.labels, ...labels } } };
}
