import type { ManifestStatus, WorkStatus } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { MAX_ENTRY_STATUS_BYTES } from "./aggregate-status.ts";

/** The default of --max-status-bytes-per-cluster: what one cluster's reports may hold in a replica's memory. */
export const DEFAULT_CLUSTER_STATUS_BYTES = 64 * 1024 * 1024;
/** A report kept past a cluster's budget: this many manifests, each message cut to this many characters, no object status. */
export const OVER_BUDGET_MANIFESTS = 16;
export const OVER_BUDGET_MESSAGE = 256;

/** About what a report costs in memory: its strings and object statuses (each manifest's fixed part counted as 64 bytes). */
export function reportBytes(s: WorkStatus): number {
  let n = s.workKey.length + s.observedHash.length + s.reason.length + s.message.length;
  for (const m of s.manifests) n += 64 + m.status.byteLength + m.reason.length + m.message.length + (m.resource ? m.resource.group.length + m.resource.version.length + m.resource.kind.length + m.resource.namespace.length + m.resource.name.length : 0);
  return n;
}

/**
 * A report as kept past its cluster's budget: the Work's words and health stay, and the template's
 * own object's status as far as a binding's entry holds it (MAX_ENTRY_STATUS_BYTES: what status
 * aggregation, rollouts, DNS and failover read); the other objects' statuses go, at most
 * OVER_BUDGET_MANIFESTS manifests stay, with messages cut. So one agent's reports cost memory in
 * proportion to the Works the hub sent it, whatever it says (issue 37).
 */
export function overBudget(s: WorkStatus, budget: number, why = `this cluster's reports hold more than ${budget} bytes, --max-status-bytes-per-cluster`): WorkStatus {
  const cut = (text: string) => (text.length > OVER_BUDGET_MESSAGE ? `${text.slice(0, OVER_BUDGET_MESSAGE)}…` : text);
  const kept = (m: ManifestStatus, i: number) => i === 0 && m.status.byteLength <= MAX_ENTRY_STATUS_BYTES;
  const manifests: ManifestStatus[] = s.manifests.slice(0, OVER_BUDGET_MANIFESTS).map((m, i) => ({ ...m, status: kept(m, i) ? m.status : Buffer.alloc(0), message: cut(m.message) }));
  const note = `(the status of its other objects is left out: ${why})`;
  return { ...s, message: s.message === "" ? note : `${cut(s.message)} ${note}`, manifests };
}

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
  /** cluster → reportBytes of the reports kept for it. */
  private readonly bytes = new Map<string, number>();
  private readonly budget: number;
  private readonly listeners: ((cluster: string, key: string) => void)[] = [];
  /** Reports kept without their objects' statuses because their cluster was over its budget. */
  overBudgetReports = 0;

  /** maxBytesPerCluster: --max-status-bytes-per-cluster. */
  constructor(opts: { maxBytesPerCluster?: number } = {}) {
    this.budget = opts.maxBytesPerCluster ?? DEFAULT_CLUSTER_STATUS_BYTES;
  }

  /** Calls fn after a cluster's report on a Work changed: a new one, or none any more (forgotten, or the Work dropped). */
  onChange(fn: (cluster: string, key: string) => void): void {
    this.listeners.push(fn);
  }

  /** What the reports kept for a cluster cost (reportBytes). */
  bytesOf(cluster: string): number {
    return this.bytes.get(cluster) ?? 0;
  }

  /** Records a report (without its objects' statuses when its cluster is over budget); returns false when it says nothing new. */
  set(cluster: string, reported: WorkStatus): boolean {
    let perCluster = this.byKey.get(reported.workKey);
    if (perCluster === undefined) {
      perCluster = new Map();
      this.byKey.set(reported.workKey, perCluster);
    }
    const before = perCluster.get(cluster);
    const others = this.bytesOf(cluster) - (before === undefined ? 0 : reportBytes(before));
    let status = reported;
    if (others + reportBytes(reported) > this.budget) {
      status = overBudget(reported, this.budget);
      this.overBudgetReports++;
    }
    this.bytes.set(cluster, others + reportBytes(status));
    perCluster.set(cluster, status);
    let keys = this.byCluster.get(cluster);
    if (keys === undefined) this.byCluster.set(cluster, (keys = new Set()));
    keys.add(status.workKey);
    const changed = before === undefined || JSON.stringify(before) !== JSON.stringify(status);
    if (changed) {
      this.changedAt.set(`${cluster}/${status.workKey}`, Date.now());
      this.changed(cluster, status.workKey);
    }
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
    const before = perCluster?.get(cluster);
    if (before === undefined || perCluster?.delete(cluster) !== true) return;
    this.release(cluster, before);
    this.changedAt.delete(`${cluster}/${key}`);
    if (perCluster.size === 0) this.byKey.delete(key);
    const keys = this.byCluster.get(cluster);
    keys?.delete(key);
    if (keys?.size === 0) this.byCluster.delete(cluster);
    this.changed(cluster, key);
  }

  /** Forgets a Work entirely (its binding is gone). */
  drop(key: string): void {
    const clusters = [...(this.byKey.get(key)?.keys() ?? [])];
    for (const cluster of clusters) this.forget(key, cluster);
  }

  private changed(cluster: string, key: string): void {
    for (const fn of this.listeners) fn(cluster, key);
  }

  private release(cluster: string, report: WorkStatus): void {
    const left = this.bytesOf(cluster) - reportBytes(report);
    if (left > 0) this.bytes.set(cluster, left);
    else this.bytes.delete(cluster);
  }
}
