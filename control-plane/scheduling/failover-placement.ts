// Application failover within a template's placement (issue 26): the clusters whose copy has been
// Unhealthy past tolerationSeconds get a task (application-failover.ts), the schedule runs without
// the clusters that have one (Karmada's scheduler leaves evicted clusters out), graceful eviction
// judges the rest of the binding as before, and the tasks' purge modes decide which old copies stay
// meanwhile. A workload no other cluster takes is not moved: it stays, and the binding says why.
// Directly means the two copies never run together (Karmada's binding controller waits for the
// old Works to be gone before it makes new ones): while the cluster it left, Ready, has not
// confirmed the removal (its entry still in the binding's status), no cluster is added. Pure.
import type { Cluster, GracefulEvictionTask, PropagationPolicy, ResourceBinding, TargetCluster } from "../../shared/api/types.ts";
import { APPLICATION_FAILURE_REASON, assessApplicationTasks, detectApplicationFailures, followApplicationPolicy, type UnhealthySince } from "./application-failover.ts";
import { EVICTION_RECHECK_MS, placementSelects } from "./graceful-eviction.ts";
import { clusterReady } from "./placement.ts";
import type { Schedule } from "./schedule.ts";

export type { UnhealthySince } from "./application-failover.ts";

/** How soon to look again at a workload that could not move for want of another cluster. */
export const NOWHERE_RECHECK_MS = 30_000;

interface Placed {
  targets: TargetCluster[];
  evictions: GracefulEvictionTask[];
  recheckAfterMs?: number;
}

export interface FailoverPlacement {
  /** The schedule, without the clusters an application failover holds out. */
  schedule: Schedule;
  /** The binding as graceful eviction should see it: without those clusters and their tasks. */
  existing: ResourceBinding | undefined;
  /** Graceful eviction's answer with the application failover's tasks and held copies added. */
  after<P extends Placed>(placed: P): P;
  unhealthySince: UnhealthySince;
  recheckAfterMs?: number;
  /** Why a workload Unhealthy past its toleration did not move, or waits (for the binding's status; after `after`). */
  note?: string;
}

export function failoverPlacement(input: {
  policy: PropagationPolicy;
  existing: ResourceBinding | undefined;
  /** Placeable clusters (not leaving). */
  live: Cluster[];
  now: number;
  evictionPeriodMs: number;
  /** The policy's schedule over some clusters. */
  schedule(live: Cluster[]): Schedule;
  unhealthySince?: UnhealthySince;
  /** false: judge no copy's health (a plan starts no failover; it shows the tasks in flight). */
  detect?: boolean;
}): FailoverPlacement {
  const { existing, policy, live } = input;
  const allTasks = existing?.spec.gracefulEvictionTasks ?? [];
  const app = policy.spec.failover?.application;
  const older = allTasks.filter((t) => t.reason === APPLICATION_FAILURE_REASON).map((t) => followApplicationPolicy(t, app));
  if (app === undefined && older.length === 0) return { schedule: input.schedule(live), existing, after: (p) => p, unhealthySince: {} };
  const byName = new Map(live.map((c) => [c.metadata.name ?? "", c]));
  const isReady = (name: string) => byName.get(name) !== undefined && clusterReady(byName.get(name) as Cluster);
  const status = existing?.status?.aggregatedStatus ?? [];
  const detected = detectApplicationFailures({
    now: input.now,
    failover: input.detect === false ? undefined : app,
    current: existing?.spec.clusters ?? [],
    tasks: allTasks,
    status,
    ready: isReady,
    ...(input.unhealthySince === undefined ? {} : { unhealthySince: input.unhealthySince }),
  });
  const without = (names: Set<string>) => live.filter((c) => !names.has(c.metadata.name ?? ""));
  const olderNames = new Set(older.map((t) => t.fromCluster));
  let fresh = detected.tasks;
  let schedule = input.schedule(without(new Set([...olderNames, ...fresh.map((t) => t.fromCluster)])));
  let note: string | undefined;
  const unhealthySince = { ...detected.unhealthySince };
  let recheck = detected.recheckAfterMs ?? Infinity;
  if (fresh.length > 0 && schedule.targets.length === 0) {
    // Nowhere to go: moving would only remove the copy. It stays, and is judged again.
    note = `Unhealthy in ${fresh.map((t) => t.fromCluster).join(", ")} past tolerationSeconds, but no other cluster takes it: it stays where it is`;
    for (const t of fresh) unhealthySince[t.fromCluster] = input.unhealthySince?.[t.fromCluster] ?? input.now;
    fresh = [];
    schedule = input.schedule(without(olderNames));
    recheck = Math.min(recheck, NOWHERE_RECHECK_MS);
  }
  const tasks = [...older, ...fresh];
  const out = new Set(tasks.map((t) => t.fromCluster));
  const seen: ResourceBinding | undefined =
    existing === undefined || out.size === 0
      ? existing
      : { ...existing, spec: { ...existing.spec, clusters: existing.spec.clusters.filter((c) => !out.has(c.name)), gracefulEvictionTasks: allTasks.filter((t) => !out.has(t.fromCluster)) } };
  const result: FailoverPlacement = { schedule, existing: seen, after: (p) => p, unhealthySince, ...(recheck === Infinity ? {} : { recheckAfterMs: recheck }), ...(note === undefined ? {} : { note }) };
  result.after = <P extends Placed>(placed: P): P => {
    if (tasks.length === 0) return placed;
    const evicting = new Set(placed.evictions.map((t) => t.fromCluster));
    const assessed = assessApplicationTasks({
      now: input.now,
      periodMs: input.evictionPeriodMs,
      tasks,
      scheduled: placed.targets.filter((t) => !evicting.has(t.name)),
      status,
      selected: (name) => byName.get(name) !== undefined && placementSelects(policy.spec.placement, byName.get(name) as Cluster),
    });
    const removing = assessed.tasks.filter((t) => t.purgeMode === "Directly" && status.some((i) => i.clusterName === t.fromCluster) && isReady(t.fromCluster)).map((t) => t.fromCluster);
    const before = new Set((existing?.spec.clusters ?? []).map((c) => c.name));
    const targets = [...placed.targets, ...assessed.held.filter((h) => !placed.targets.some((t) => t.name === h.name))]
      .filter((t) => removing.length === 0 || before.has(t.name))
      .sort(byKey((t) => t.name));
    if (removing.length > 0) result.note = `waiting for ${removing.join(", ")} to remove the copy it had (purgeMode Directly) before the workload is placed elsewhere`;
    const evictions = [...placed.evictions, ...assessed.tasks].sort(byKey((t) => t.fromCluster));
    const next = Math.min(placed.recheckAfterMs ?? Infinity, assessed.recheckAfterMs ?? Infinity, removing.length > 0 ? EVICTION_RECHECK_MS : Infinity);
    return { ...placed, targets, evictions, ...(next === Infinity ? {} : { recheckAfterMs: next }) };
  };
  return result;
}

function byKey<T>(key: (t: T) => string): (a: T, b: T) => number {
  return (a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
}
