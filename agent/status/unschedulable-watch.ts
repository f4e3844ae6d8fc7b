// Which pods are Unschedulable now, as the pod cache's events tell it: a pod that becomes so, or
// stops being so (placed, deleted), changes its workload's report, so its Works report again.
import type { SummaryPod } from "../metrics/metrics-summary.ts";
import { unschedulableSince } from "./unschedulable-pods.ts";

export class UnschedulablePodWatch {
  /** namespace/name → since, for the pods Unschedulable now. */
  private readonly since = new Map<string, string>();
  private readonly changed: (namespace: string, labels: Record<string, string> | undefined) => void;

  constructor(changed: (namespace: string, labels: Record<string, string> | undefined) => void) {
    this.changed = changed;
  }

  /** A pod event from the cache; `deleted` for a delete. Calls back only when the pod's state changed. */
  seen(pod: SummaryPod & { metadata: { namespace?: string } }, deleted: boolean): void {
    const namespace = pod.metadata.namespace ?? "";
    const key = `${namespace}/${pod.metadata.name ?? ""}`;
    const now = deleted ? undefined : unschedulableSince(pod);
    if (now === this.since.get(key)) return;
    if (now === undefined) this.since.delete(key);
    else this.since.set(key, now);
    this.changed(namespace, pod.metadata.labels);
  }

  /** How many pods are Unschedulable now (for tests and metrics). */
  get size(): number {
    return this.since.size;
  }
}
