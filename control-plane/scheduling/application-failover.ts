// Application failover (Karmada's spec.failover.application): a workload its agent reports
// Unhealthy in a cluster for decisionConditions.tolerationSeconds gets an eviction task there
// (reason ApplicationFailure); the cluster is left out of the workload's schedule while the task
// lasts, and the purge mode says what becomes of the copy it had:
// - Directly: removed at once (the policy asks that two copies never run together); the task stays,
//   holding the cluster out, until the replacement is Healthy or --graceful-eviction-period passed;
// - Gracefully: kept until the replacement is Healthy or gracePeriodSeconds (default 600) passed;
// - Never: kept (suppressDeletion) until a person changes the policy's purge mode (the task then
//   follows it, as graceful eviction's Never tasks do).
// The policy is the user's lasting intent about this workload (DESIGN §11); faults are not: a
// report that is not Unhealthy (Progressing, Unknown, none) stops the clock, a cluster that is not
// Ready is graceful eviction's, and nothing is evicted when no other cluster takes the workload,
// nor removed after a grace period while nothing replaces it. Pure: the caller keeps when each
// cluster was first seen Unhealthy (unhealthySince) between calls, as Karmada does in memory.
import type { AggregatedStatusItem, ApplicationFailoverBehavior, GracefulEvictionTask, PurgeMode, TargetCluster } from "../../shared/api/types.ts";
import { EVICTION_RECHECK_MS, replacementAvailable } from "./graceful-eviction.ts";
import { purgeModeOf } from "./purge-mode.ts";
import { statePreserved } from "./state-preservation.ts";

/** The reason of an application failover's task (Karmada's EvictionReasonApplicationFailure). */
export const APPLICATION_FAILURE_REASON = "ApplicationFailure";

/** Karmada's defaults: tolerationSeconds 300, gracePeriodSeconds 600. */
export const DEFAULT_TOLERATION_SECONDS = 300;
export const DEFAULT_GRACE_PERIOD_SECONDS = 600;

/** Cluster → when its copy was first seen Unhealthy (ms), without a break. */
export type UnhealthySince = Record<string, number>;

export interface DetectInput {
  now: number;
  failover: ApplicationFailoverBehavior | undefined;
  /** The binding's targets now. */
  current: readonly TargetCluster[];
  /** The binding's eviction tasks now (a cluster that has one is not judged again). */
  tasks: readonly GracefulEvictionTask[];
  status: readonly AggregatedStatusItem[];
  /** The clusters that are Ready (a not-Ready cluster's copy is graceful eviction's). */
  ready(cluster: string): boolean;
  unhealthySince?: UnhealthySince;
}

export interface DetectResult {
  /** New tasks: clusters Unhealthy past tolerationSeconds. */
  tasks: GracefulEvictionTask[];
  /** To pass to the next call. */
  unhealthySince: UnhealthySince;
  /** When the next cluster's toleration runs out. */
  recheckAfterMs?: number;
}

/** Which clusters' copies have been Unhealthy for tolerationSeconds (Karmada's detectFailure). */
export function detectApplicationFailures(input: DetectInput): DetectResult {
  const app = input.failover;
  if (app === undefined) return { tasks: [], unhealthySince: {} };
  const tolerationMs = (app.decisionConditions?.tolerationSeconds ?? DEFAULT_TOLERATION_SECONDS) * 1000;
  const tasked = new Set(input.tasks.map((t) => t.fromCluster));
  const items = new Map(input.status.map((i) => [i.clusterName, i]));
  const before = input.current.map((t) => t.name).filter((n) => !tasked.has(n)).sort();
  const since: UnhealthySince = {};
  const tasks: GracefulEvictionTask[] = [];
  let recheck = Infinity;
  for (const target of input.current) {
    const item = items.get(target.name);
    if (tasked.has(target.name) || item?.health !== "Unhealthy" || !input.ready(target.name)) continue;
    const first = input.unhealthySince?.[target.name] ?? input.now;
    const waited = input.now - first;
    if (waited < tolerationMs) {
      since[target.name] = first;
      recheck = Math.min(recheck, tolerationMs - waited);
      continue;
    }
    tasks.push(applicationTask(app, target, item, before, input.now, waited));
  }
  return { tasks, unhealthySince: since, ...(recheck === Infinity ? {} : { recheckAfterMs: Math.max(recheck, 1) }) };
}

function applicationTask(app: ApplicationFailoverBehavior, target: TargetCluster, item: AggregatedStatusItem, before: string[], now: number, waited: number): GracefulEvictionTask {
  const purgeMode: PurgeMode = purgeModeOf(app.purgeMode) ?? "Gracefully";
  const state = statePreserved(app.statePreservation, item);
  const message = `Unhealthy for ${Math.round(waited / 1000)}s${item.message ? ` (${item.message})` : ""}${state.message === undefined ? "" : `; ${state.message}`}`;
  return {
    fromCluster: target.name,
    ...(target.replicas === undefined ? {} : { replicas: target.replicas }),
    reason: APPLICATION_FAILURE_REASON,
    creationTimestamp: new Date(now).toISOString(),
    purgeMode,
    message: message.slice(0, 1024),
    ...(purgeMode === "Gracefully" ? { gracePeriodSeconds: app.gracePeriodSeconds ?? DEFAULT_GRACE_PERIOD_SECONDS } : {}),
    ...(purgeMode === "Never" ? { suppressDeletion: true } : {}),
    ...(state.labels === undefined ? {} : { preservedLabelState: state.labels, clustersBeforeFailover: before }),
  };
}

export interface AssessInput {
  now: number;
  /** --graceful-eviction-period: how long a Directly task holds its cluster out without a Healthy replacement. */
  periodMs: number;
  /** The binding's ApplicationFailure tasks (older and new). */
  tasks: readonly GracefulEvictionTask[];
  /** What the scheduler placed, without the tasks' clusters. */
  scheduled: readonly TargetCluster[];
  status: readonly AggregatedStatusItem[];
  /** Whether the policy still selects the cluster and it is not leaving (else the task goes at once). */
  selected(cluster: string): boolean;
}

export interface AssessResult {
  /** The tasks still in force. */
  tasks: GracefulEvictionTask[];
  /** The clusters whose copy stays meanwhile (Gracefully, Never), with the replicas they had. */
  held: TargetCluster[];
  recheckAfterMs?: number;
}

/** Which ApplicationFailure tasks still stand, and which copies they keep (Karmada's assessEvictionTasks). */
export function assessApplicationTasks(input: AssessInput): AssessResult {
  const replaced = replacementAvailable(input.scheduled, input.status);
  // A Directly task's replacement is made only once the old copy's removal is confirmed, which can
  // take longer than the period: until a replacement has applied, the task (and the state its
  // labels carry to the new copy) stands whatever its age.
  const applied = new Set(input.status.filter((i) => i.applied === true).map((i) => i.clusterName));
  const replacementApplied = input.scheduled.some((t) => applied.has(t.name));
  const tasks: GracefulEvictionTask[] = [];
  let recheck = Infinity;
  for (const task of input.tasks) {
    if (!input.selected(task.fromCluster)) continue;
    // A person released it (Karmada's SuppressDeletion set to false): the copy goes now.
    if (task.suppressDeletion === false) continue;
    if (task.suppressDeletion !== true) {
      const timeoutMs = task.purgeMode === "Directly" ? input.periodMs : (task.gracePeriodSeconds ?? DEFAULT_GRACE_PERIOD_SECONDS) * 1000;
      const left = Date.parse(task.creationTimestamp) + timeoutMs - input.now;
      // Nothing runs elsewhere: the copy stays past its grace period, whatever it is (DESIGN §11).
      const timedOut = left <= 0 && (task.purgeMode !== "Directly" || replacementApplied);
      if (input.scheduled.length > 0 && (replaced || timedOut)) continue;
      recheck = Math.min(recheck, left > 0 ? Math.min(left, EVICTION_RECHECK_MS) : EVICTION_RECHECK_MS);
    }
    tasks.push(task);
  }
  const held = tasks.filter((t) => t.purgeMode !== "Directly").map((t) => (t.replicas === undefined ? { name: t.fromCluster } : { name: t.fromCluster, replicas: t.replicas }));
  return { tasks, held, ...(recheck === Infinity ? {} : { recheckAfterMs: Math.max(recheck, 1) }) };
}

/**
 * A Never task whose policy now says another purge mode (or no application failover) follows it:
 * the person's way to let a kept copy go. Removing the task would not do: the cluster would take
 * part in the schedule again and, still Unhealthy, fail over once more.
 */
export function followApplicationPolicy(task: GracefulEvictionTask, app: ApplicationFailoverBehavior | undefined): GracefulEvictionTask {
  const mode = purgeModeOf(app?.purgeMode) ?? "Gracefully";
  if (task.suppressDeletion !== true || mode === "Never") return task;
  const { suppressDeletion: _kept, ...rest } = task;
  return { ...rest, purgeMode: mode, ...(mode === "Gracefully" ? { gracePeriodSeconds: app?.gracePeriodSeconds ?? DEFAULT_GRACE_PERIOD_SECONDS } : {}) };
}

/** The clusters an application failover holds out of the workload's schedule. */
export function applicationFailureClusters(tasks: readonly GracefulEvictionTask[] | undefined): Set<string> {
  return new Set((tasks ?? []).filter((t) => t.reason === APPLICATION_FAILURE_REASON).map((t) => t.fromCluster));
}
