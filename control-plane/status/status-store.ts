import type { WorkStatus } from "../../shared/gen/flotilla/v1alpha1/agent.ts";

/**
 * The latest WorkStatus each agent reported, per Work and cluster (soft state: agents report
 * again after they reconnect). A status with deleted=true stays as a tombstone: the agent
 * confirmed the removal.
 */
export class StatusStore {
  private readonly byKey = new Map<string, Map<string, WorkStatus>>();
  /** cluster → the keys it reported on, for what one agent's reconnect must look at. */
  private readonly byCluster = new Map<string, Set<string>>();
  /** "cluster/key" → when its report last said something new (ms), for explain's "applied 12s ago". */
  private readonly changedAt = new Map<string, number>();

  /** Records a report; returns false when it says nothing new. */
  set(cluster: string, status: WorkStatus): boolean {
    let perCluster = this.byKey.get(status.workKey);
    if (perCluster === undefined) {
      perCluster = new Map();
      this.byKey.set(status.workKey, perCluster);
    }
    const before = perCluster.get(cluster);
    perCluster.set(cluster, status);
    let keys = this.byCluster.get(cluster);
    if (keys === undefined) this.byCluster.set(cluster, (keys = new Set()));
    keys.add(status.workKey);
    const changed = before === undefined || JSON.stringify(before) !== JSON.stringify(status);
    if (changed) this.changedAt.set(`${cluster}/${status.workKey}`, Date.now());
    return changed;
  }

  /** When a cluster's report on a Work last said something new (ms since the epoch), if this replica heard one. */
  reportedAt(key: string, cluster: string): number | undefined {
    return this.byKey.get(key)?.has(cluster) === true ? this.changedAt.get(`${cluster}/${key}`) : undefined;
  }

  /** cluster → last report, for one Work. */
  get(key: string): ReadonlyMap<string, WorkStatus> {
    return this.byKey.get(key) ?? new Map();
  }

  /** The Works a cluster reported on (tombstones included). */
  keysOf(cluster: string): string[] {
    return [...(this.byCluster.get(cluster) ?? [])];
  }

  /** Forgets one cluster's report on a Work (it is stale: the agent reconnected and reports again). */
  forget(key: string, cluster: string): void {
    const perCluster = this.byKey.get(key);
    if (perCluster?.delete(cluster) !== true) return;
    this.changedAt.delete(`${cluster}/${key}`);
    if (perCluster.size === 0) this.byKey.delete(key);
    const keys = this.byCluster.get(cluster);
    keys?.delete(key);
    if (keys?.size === 0) this.byCluster.delete(cluster);
  }

  /** Forgets a Work entirely (its binding is gone). */
  drop(key: string): void {
    for (const cluster of this.byKey.get(key)?.keys() ?? []) {
      this.changedAt.delete(`${cluster}/${key}`);
      const keys = this.byCluster.get(cluster);
      keys?.delete(key);
      if (keys?.size === 0) this.byCluster.delete(cluster);
    }
    this.byKey.delete(key);
  }
}
