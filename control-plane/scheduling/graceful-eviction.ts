// Graceful eviction (DESIGN §11, Karmada's gracefulEvictionTasks): a cluster the schedule drops
// because it is not Ready keeps its copy until the replacement elsewhere is Available and a
// grace period has passed since the eviction began. Readiness is never the user's intent; a
// placement that no longer selects the cluster, or an unjoin, is, and takes effect at once. A
// workload that fails back to an earlier clusterAffinities group keeps its copy in the group it
// leaves until the new group's is Available (add first, then remove). Pure.
import type { AggregatedStatusItem, Cluster, GracefulEvictionTask, Placement, PropagationPolicy, ResourceBinding, TargetCluster } from "../../shared/api/types.ts";
import { clusterMatches, clusterReady } from "./placement.ts";
import { type Schedule, targetsAfter } from "./schedule.ts";

/** How often a binding with a pending eviction is looked at again while its replacement comes up. */
export const EVICTION_RECHECK_MS = 5_000;

/** The reason recorded on a task. */
export const EVICTION_REASON = "ClusterNotReady";

/**
 * The reason of a task that holds a Ready cluster's copy while the workload moves back to an
 * earlier `clusterAffinities` group that recovered (failback): add first, then remove.
 */
export const FAILBACK_REASON = "ClusterAffinityChanged";

export interface EvictionInput {
  now: number;
  /** The least time between an eviction's start and the removal of the evicted copy. */
  periodMs: number;
  /** The binding's targets now (they include clusters being evicted). */
  current: readonly TargetCluster[];
  /** The binding's eviction tasks now. */
  tasks: readonly GracefulEvictionTask[];
  /** What the scheduler wants now. */
  scheduled: readonly TargetCluster[];
  /** The clusters that can be placed on (not leaving). */
  clusters: readonly Cluster[];
  /** Whether the policy still selects the cluster (by names, labels or fields). */
  selected(cluster: string): boolean;
  /** The binding's per-cluster status, to judge whether the replacement is Available. */
  status: readonly AggregatedStatusItem[];
  /** The schedule moved to another clusterAffinities group: Ready clusters it dropped keep their copy until the new group's is Available. */
  groupChanged?: boolean;
}

export interface EvictionResult {
  /** The targets to write: the schedule's, plus each cluster still being evicted with what it had. */
  targets: TargetCluster[];
  tasks: GracefulEvictionTask[];
  /** When to look again (a task is pending); undefined when none is. */
  recheckAfterMs?: number;
}

export function gracefulEviction(input: EvictionInput): EvictionResult {
  const scheduled = new Set(input.scheduled.map((t) => t.name));
  const byName = new Map(input.clusters.map((c) => [c.metadata.name ?? "", c]));
  const oldTasks = new Map(input.tasks.map((t) => [t.fromCluster, t]));
  const available = replacementAvailable(input.scheduled, input.status);
  const tasks: GracefulEvictionTask[] = [];
  let recheck: number | undefined;
  for (const t of input.current) {
    const cluster = byName.get(t.name);
    // Back in the schedule (it recovered), leaving, or no longer selected: no eviction to hold.
    if (scheduled.has(t.name) || cluster === undefined || !input.selected(t.name)) continue;
    // A Ready cluster is held only while the workload fails back to another group (add first).
    const failback = input.groupChanged === true || oldTasks.get(t.name)?.reason === FAILBACK_REASON;
    if (clusterReady(cluster) && !failback) continue;
    const task = oldTasks.get(t.name) ?? {
      fromCluster: t.name,
      ...(t.replicas === undefined ? {} : { replicas: t.replicas }),
      reason: clusterReady(cluster) ? FAILBACK_REASON : EVICTION_REASON,
      creationTimestamp: new Date(input.now).toISOString(),
    };
    const waited = input.now - Date.parse(task.creationTimestamp);
    // A failback waits for the new group's copy alone: the cluster it leaves is healthy.
    const period = task.reason === FAILBACK_REASON ? 0 : input.periodMs;
    if (available && waited >= period) continue;
    tasks.push(task);
    const next = available ? period - waited : EVICTION_RECHECK_MS;
    recheck = Math.min(recheck ?? Infinity, Math.max(next, 1));
  }
  const held = tasks.map((t) => (t.replicas === undefined ? { name: t.fromCluster } : { name: t.fromCluster, replicas: t.replicas }));
  const targets = [...input.scheduled, ...held].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  tasks.sort((a, b) => (a.fromCluster < b.fromCluster ? -1 : 1));
  return { targets, tasks, ...(recheck === undefined ? {} : { recheckAfterMs: recheck }) };
}

/**
 * Whether every scheduled cluster runs its share: applied, Healthy, and (for a workload with
 * replicas) at least its replicas available. No scheduled cluster means no replacement at all.
 */
export function replacementAvailable(scheduled: readonly TargetCluster[], status: readonly AggregatedStatusItem[]): boolean {
  if (scheduled.length === 0) return false;
  const items = new Map(status.map((i) => [i.clusterName, i]));
  return scheduled.every((t) => {
    const item = items.get(t.name);
    if (item === undefined || item.applied !== true || item.health !== "Healthy") return false;
    if (t.replicas === undefined) return true;
    const availableReplicas = (item.status as { availableReplicas?: unknown } | undefined)?.availableReplicas;
    return typeof availableReplicas === "number" ? availableReplicas >= t.replicas : t.replicas === 0;
  });
}

/** Whether a placement selects the cluster at all (any of its affinity groups), Ready or not. */
export function placementSelects(placement: Placement | undefined, cluster: Cluster): boolean {
  const terms = placement?.clusterAffinities !== undefined && placement.clusterAffinities.length > 0 ? placement.clusterAffinities : [placement?.clusterAffinity];
  return terms.some((affinity) => affinity === undefined || clusterMatches(affinity, cluster));
}

/**
 * Where a template goes after a schedule, as its binding should say: the schedule's targets (or,
 * when the policy cannot be scheduled, what the binding has), with not-Ready clusters' copies
 * held by graceful eviction. The binding controller writes it; plan previews it.
 */
export function placementAfter(input: {
  schedule: Schedule;
  existing: ResourceBinding | undefined;
  policy: PropagationPolicy;
  /** Placeable clusters (not leaving). */
  live: Cluster[];
  now: number;
  evictionPeriodMs: number;
}): { targets: TargetCluster[]; evictions: GracefulEvictionTask[]; recheckAfterMs?: number } {
  const scheduled = targetsAfter(input.schedule, input.existing?.spec.clusters, input.live);
  const byName = new Map(input.live.map((c) => [c.metadata.name ?? "", c]));
  const r = gracefulEviction({
    now: input.now,
    periodMs: input.evictionPeriodMs,
    current: input.existing?.spec.clusters ?? [],
    tasks: input.existing?.spec.gracefulEvictionTasks ?? [],
    scheduled,
    clusters: input.live,
    selected: (name) => {
      const c = byName.get(name);
      return c !== undefined && placementSelects(input.policy.spec.placement, c);
    },
    status: input.existing?.status?.aggregatedStatus ?? [],
    groupChanged: groupChanged(input.schedule.affinityName, input.existing?.status?.schedulerObservedAffinityName),
  });
  return { targets: r.targets, evictions: r.tasks, ...(r.recheckAfterMs === undefined ? {} : { recheckAfterMs: r.recheckAfterMs }) };
}

/** Whether the schedule uses another clusterAffinities group than the binding's status last observed. */
function groupChanged(now: string | undefined, observed: string | undefined): boolean {
  return now !== undefined && observed !== undefined && now !== observed;
}
