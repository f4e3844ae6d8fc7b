// The latest workload summary each member's agent sent (issue 22), in memory: what a FederatedHPA
// run reads. A summary older than maxAgeMs is as good as none (the member is then counted as
// Kubernetes counts missing pods: no scale-down on missing data). Entries are never dropped: a
// workload no longer autoscaled, or a cluster gone, keeps its last entry (bounded by what was ever
// autoscaled; ages out of every read).
import type { WorkloadMetricsSummary } from "../autoscaling/workload-metrics.ts";

export class MetricsStore {
  private readonly byWorkload = new Map<string, Map<string, { summary: WorkloadMetricsSummary; at: number }>>();

  /**
   * A member's summary of a workload (by template key), received at `at`. The newer of two wins:
   * a summary collected from another replica may arrive after a fresher one the agent sent here.
   */
  set(cluster: string, workload: string, summary: WorkloadMetricsSummary, at: number): void {
    let m = this.byWorkload.get(workload);
    if (m === undefined) this.byWorkload.set(workload, (m = new Map()));
    if ((m.get(cluster)?.at ?? -Infinity) > at) return;
    m.set(cluster, { summary, at });
  }

  /** The summaries of a workload no older than maxAgeMs at `now`, by cluster. */
  summaries(workload: string, now: number, maxAgeMs: number): Map<string, WorkloadMetricsSummary> {
    const out = new Map<string, WorkloadMetricsSummary>();
    for (const [cluster, s] of this.byWorkload.get(workload) ?? []) if (now - s.at <= maxAgeMs) out.set(cluster, s.summary);
    return out;
  }
}
