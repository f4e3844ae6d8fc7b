// Graceful eviction (DESIGN §11, Karmada's gracefulEvictionTasks): a cluster the schedule drops
// because it is not Ready keeps its copy until the replacement elsewhere is Available and a
// grace period has passed twice over: since the eviction began, and since the replacement was
// first seen Available without a break (a report that says Available at the period's last moment,
// or one that flaps, releases nothing). Readiness is never the user's intent; a placement that no
// longer selects the cluster, or an unjoin, is, and takes effect at once. A workload that fails
// back to an earlier clusterAffinities group keeps its copy in the group it leaves until the new
// group's is Available (add first, then remove); so does a Ready cluster dropped for an untolerated
// NoExecute taint (only under --enable-no-execute-taint-eviction: no-execute.ts), for the grace
// period too. Pure: the caller keeps when the replacement was first seen Available
// (availableSince) between calls. The policy's failover.cluster.purgeMode (issue 26) chooses:
// Gracefully (the above, the default), Directly (the copy is not held: the user's policy says two
// copies must not run together; a removal still reaches the cluster only once it is Ready again and
// is judged against the placement it returned to), Never (held until the cluster returns, or a
// person changes the policy's purge mode: the task then follows it).
import type { AggregatedStatusItem, Cluster, ClusterFailoverBehavior, GracefulEvictionTask, Placement, PropagationPolicy, ResourceBinding, TargetCluster } from "../../shared/api/types.ts";
import { clusterMatches, clusterReady } from "./placement.ts";
import { purgeModeOf } from "./purge-mode.ts";
import { type Schedule, targetsAfter, untoleratedTaint } from "./schedule.ts";
import { statePreserved } from "./state-preservation.ts";

/** How often a binding with a pending eviction is looked at again while its replacement comes up. */
export const EVICTION_RECHECK_MS = 5_000;

/** The reason recorded on a task. */
export const EVICTION_REASON = "ClusterNotReady";

/**
 * The reason of a task that holds a Ready cluster's copy while the workload moves back to an
 * earlier `clusterAffinities` group that recovered (failback): add first, then remove.
 */
export const FAILBACK_REASON = "ClusterAffinityChanged";

/** The reason of a task that holds a Ready cluster's copy the schedule dropped for an untolerated NoExecute taint (Karmada's). */
export const TAINT_REASON = "TaintUntolerated";

/**
 * When the replacement was first seen Available, and which clusters it was: a replacement made of
 * other clusters starts the clock again (its clusters were not the ones seen Available).
 */
export interface ReplacementSeen {
  /** The scheduled clusters' names, sorted. */
  clusters: string[];
  since: number;
}

export interface EvictionInput {
  now: number;
  /** The least time between an eviction's start, and between the replacement's first being seen Available, and the removal of the evicted copy. */
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
  /** Whether the cluster carries a NoExecute taint the policy does not tolerate: a Ready cluster so dropped keeps its copy until the replacement is Available. */
  untolerated?(cluster: string): boolean;
  /** What the previous call returned for this binding (undefined: not seen Available yet). */
  availableSince?: ReplacementSeen;
  /** The policy's spec.failover.cluster: purge mode and state preservation of new ClusterNotReady tasks. */
  clusterFailover?: ClusterFailoverBehavior;
}

export interface EvictionResult {
  /** The targets to write: the schedule's, plus each cluster still being evicted with what it had. */
  targets: TargetCluster[];
  tasks: GracefulEvictionTask[];
  /** When to look again (a task is pending); undefined when none is. */
  recheckAfterMs?: number;
  /** To pass to the next call: set while the replacement is Available and a task pends; undefined resets the clock. */
  availableSince?: ReplacementSeen;
}

export function gracefulEviction(input: EvictionInput): EvictionResult {
  const scheduled = new Set(input.scheduled.map((t) => t.name));
  const byName = new Map(input.clusters.map((c) => [c.metadata.name ?? "", c]));
  const oldTasks = new Map(input.tasks.map((t) => [t.fromCluster, t]));
  const available = replacementAvailable(input.scheduled, input.status);
  const names = [...scheduled].sort();
  const previous = input.availableSince;
  // Not Available now resets the clock; Available with other clusters than last time restarts it.
  const seen = !available ? undefined : previous !== undefined && sameNames(previous.clusters, names) ? previous : { clusters: names, since: input.now };
  const availableFor = seen === undefined ? 0 : input.now - seen.since;
  const tasks: GracefulEvictionTask[] = [];
  let recheck: number | undefined;
  for (const t of input.current) {
    const cluster = byName.get(t.name);
    // Back in the schedule (it recovered), leaving, or no longer selected: no eviction to hold.
    if (scheduled.has(t.name) || cluster === undefined || !input.selected(t.name)) continue;
    // A Ready cluster is held only while the workload fails back to another group (add first).
    const failback = input.groupChanged === true || oldTasks.get(t.name)?.reason === FAILBACK_REASON;
    const tainted = input.untolerated?.(t.name) === true;
    if (clusterReady(cluster) && !failback && !tainted) continue;
    const task = followPolicy(oldTasks.get(t.name) ?? newTask(input, t, !clusterReady(cluster) ? EVICTION_REASON : tainted ? TAINT_REASON : FAILBACK_REASON), input.clusterFailover);
    // Never: until the cluster comes back or the policy's purge mode changes (followPolicy); false: released by another writer.
    if (task.suppressDeletion === false) continue;
    if (task.suppressDeletion === true) {
      tasks.push(task);
      continue;
    }
    const waited = input.now - Date.parse(task.creationTimestamp);
    // A failback waits for the new group's copy alone: the cluster it leaves is healthy. Directly
    // holds no copy: its task lasts only until the replacement is Available (it carries the state).
    const period = task.reason === FAILBACK_REASON || task.purgeMode === "Directly" ? 0 : input.periodMs;
    if (available && waited >= period && availableFor >= period) continue;
    tasks.push(task);
    // While the clock runs, look at least every EVICTION_RECHECK_MS: "without a break" is judged at
    // each look, so a replacement that stops being Available between two looks is caught.
    const next = available ? Math.min(Math.max(period - waited, period - availableFor), EVICTION_RECHECK_MS) : EVICTION_RECHECK_MS;
    recheck = Math.min(recheck ?? Infinity, Math.max(next, 1));
  }
  const held = tasks.filter((t) => t.purgeMode !== "Directly").map((t) => (t.replicas === undefined ? { name: t.fromCluster } : { name: t.fromCluster, replicas: t.replicas }));
  const targets = [...input.scheduled, ...held].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  tasks.sort((a, b) => (a.fromCluster < b.fromCluster ? -1 : 1));
  return {
    targets,
    tasks,
    ...(recheck === undefined ? {} : { recheckAfterMs: recheck }),
    // Nothing pends: nothing to remember (a later eviction starts its own clock).
    ...(seen === undefined || tasks.length === 0 ? {} : { availableSince: seen }),
  };
}

// A task for a cluster the schedule dropped, with the policy's cluster failover behaviour.
function newTask(input: EvictionInput, t: TargetCluster, reason: string): GracefulEvictionTask {
  const base = { fromCluster: t.name, ...(t.replicas === undefined ? {} : { replicas: t.replicas }), reason, creationTimestamp: new Date(input.now).toISOString() };
  const behavior = input.clusterFailover;
  if (reason !== EVICTION_REASON || behavior === undefined) return base;
  const purgeMode = purgeModeOf(behavior.purgeMode) ?? "Gracefully";
  const state = statePreserved(behavior.statePreservation, input.status.find((i) => i.clusterName === t.name));
  const before = input.current.map((c) => c.name).filter((n) => n !== t.name && !input.tasks.some((x) => x.fromCluster === n)).sort();
  return {
    ...base,
    purgeMode,
    ...(purgeMode === "Never" ? { suppressDeletion: true } : {}),
    ...(state.message === undefined ? {} : { message: state.message }),
    ...(state.labels === undefined ? {} : { preservedLabelState: state.labels, clustersBeforeFailover: before }),
  };
}

// A Never task whose policy now says another purge mode follows it (the person's way to let it go:
// a removed task would only be made again while the cluster is not Ready).
function followPolicy(task: GracefulEvictionTask, behavior: ClusterFailoverBehavior | undefined): GracefulEvictionTask {
  const mode = purgeModeOf(behavior?.purgeMode) ?? "Gracefully";
  if (task.reason !== EVICTION_REASON || task.suppressDeletion !== true || mode === "Never") return task;
  const { suppressDeletion: _kept, ...rest } = task;
  return { ...rest, purgeMode: mode };
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((n, i) => n === b[i]);
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
  const terms = placement?.clusterAffinities !== undefined && placement.clusterAffinities.length > 0 ? placement.clusterAffinities.flatMap((t) => [t, ...(t.overflowAffinities ?? [])]) : [placement?.clusterAffinity];
  // An overflow tier selects its clusters too: a cluster the workload overflowed to is no intent to remove.
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
  /** What the previous call returned for this binding (the caller's memory; none after a restart). */
  availableSince?: ReplacementSeen;
}): { targets: TargetCluster[]; evictions: GracefulEvictionTask[]; recheckAfterMs?: number; availableSince?: ReplacementSeen } {
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
    untolerated: (name) => {
      const c = byName.get(name);
      return c !== undefined && untoleratedTaint(c, "NoExecute", input.policy.spec.placement?.clusterTolerations);
    },
    ...(input.policy.spec.failover?.cluster === undefined ? {} : { clusterFailover: input.policy.spec.failover.cluster }),
    ...(input.availableSince === undefined ? {} : { availableSince: input.availableSince }),
  });
  return {
    targets: r.targets,
    evictions: r.tasks,
    ...(r.recheckAfterMs === undefined ? {} : { recheckAfterMs: r.recheckAfterMs }),
    ...(r.availableSince === undefined ? {} : { availableSince: r.availableSince }),
  };
}

/** Whether the schedule uses another clusterAffinities group than the binding's status last observed. */
function groupChanged(now: string | undefined, observed: string | undefined): boolean {
  return now !== undefined && observed !== undefined && now !== observed;
}
