// Issue 25: every cluster's aggregatedStatus entry of the bindings whose status no longer lists
// them all (over --binding-status-entries targets), as the status controller last computed them
// from the agents' reports. What reads a cluster's entry (explain, the Admin API, the dashboard,
// DNS, rollouts, evictions and moves) reads it here: the binding keeps only the clusters that are
// not as desired. Memory only: after a restart the binding's own entries stand in until the
// agents' reports arrive again.
import type { AggregatedStatusItem, ResourceBinding } from "../../shared/api/types.ts";
import { templateKeyOfBinding } from "../../shared/work-key.ts";

export class BindingEntries {
  private readonly full = new Map<string, AggregatedStatusItem[]>();

  /** Records a binding's every entry when its status leaves some out (bounded), forgets them when it lists them all. */
  set(key: string, entries: AggregatedStatusItem[], bounded: boolean): void {
    if (bounded) this.full.set(key, entries);
    else this.full.delete(key);
  }

  drop(key: string): void {
    this.full.delete(key);
  }

  /** Every cluster's entry of the binding: from memory when its status leaves some out, else its own list. */
  of(b: ResourceBinding | undefined): AggregatedStatusItem[] {
    if (b === undefined) return [];
    return this.full.get(templateKeyOfBinding(b)) ?? b.status?.aggregatedStatus ?? [];
  }

  /**
   * Whether this replica holds fewer reported target clusters' entries than the binding's summary
   * counted: after a restart, until the agents report again, the clusters its status left out are
   * known nowhere. What would remove something for a missing entry (DNS records) waits meanwhile.
   */
  incomplete(b: ResourceBinding | undefined): boolean {
    const reported = b?.status?.aggregatedSummary?.reported;
    if (b === undefined || reported === undefined) return false;
    const targets = new Set(b.spec.clusters.map((c) => c.name));
    const held = this.of(b).filter((i) => targets.has(i.clusterName) && i.reason !== "WaitingForRemoval" && i.reason !== "DeletionHeld").length;
    return held < reported;
  }

  /** The binding with every cluster's entry in its status (for what reads the binding whole). */
  complete(b: ResourceBinding): ResourceBinding;
  complete(b: ResourceBinding | undefined): ResourceBinding | undefined;
  complete(b: ResourceBinding | undefined): ResourceBinding | undefined {
    if (b?.status === undefined) return b;
    const entries = this.of(b);
    return entries === b.status.aggregatedStatus ? b : { ...b, status: { ...b.status, aggregatedStatus: entries } };
  }
}
