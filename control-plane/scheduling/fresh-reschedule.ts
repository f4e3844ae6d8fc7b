// A fresh reschedule (Karmada's binding spec.rescheduleTriggeredAt, which a WorkloadRebalancer
// writes): the template is scheduled once without regard to where its replicas are now, and never
// again for the same request. Pure. What was served is the annotation LABELS.rescheduleServed,
// written by the binding controller in the same apply as the fresh schedule's clusters: Karmada
// compares the trigger with status.lastScheduledTime, but a status write cannot go with the spec's,
// so a crash between the two would serve one request twice (or lose it).
//
// Safety (DESIGN §11): a fresh schedule may drop a Ready cluster entirely (another cluster now
// holds more, a spread constraint picks another group). That cluster keeps its copy, with the
// replicas it had, as a graceful-eviction task of reason FreshReschedule, until every scheduled
// cluster runs its new share Available: add first, then remove. Graceful eviction
// (graceful-eviction.ts) holds only not-Ready clusters and failbacks; this holds the rest.
import { type Cluster, type GracefulEvictionTask, LABELS, type ResourceBinding, type TargetCluster } from "../../shared/api/types.ts";
import { EVICTION_RECHECK_MS, replacementAvailable } from "./graceful-eviction.ts";
import { clusterReady } from "./placement.ts";

/** The reason of a task that holds a Ready cluster's copy a fresh reschedule dropped. */
export const FRESH_RESCHEDULE_REASON = "FreshReschedule";

/** Whether RFC 3339 time a is later than b (an unreadable a is never later). */
export function isLater(a: string, b: string): boolean {
  const [ta, tb] = [Date.parse(a), Date.parse(b)];
  return !Number.isNaN(ta) && (Number.isNaN(tb) || ta > tb);
}

/** The later of two RFC 3339 times, either possibly absent. */
export function laterOf(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return isLater(b, a) ? b : a;
}

/** The trigger a binding's last fresh reschedule served, as written on it. */
export function servedTrigger(b: ResourceBinding | undefined): string | undefined {
  return b?.metadata.annotations?.[LABELS.rescheduleServed];
}

/**
 * The trigger to serve now: the binding's spec.rescheduleTriggeredAt when it is later than what
 * was served (on the binding, or by this process since: servedHere, as its cache may lag).
 */
export function freshRescheduleDue(b: ResourceBinding | undefined, servedHere?: string): string | undefined {
  const trigger = b?.spec.rescheduleTriggeredAt;
  if (trigger === undefined) return undefined;
  const served = laterOf(servedTrigger(b), servedHere);
  return served === undefined || isLater(trigger, served) ? trigger : undefined;
}

/** A fresh reschedule this process served: the trigger, and when its schedule was written. */
export interface ServedHere {
  trigger: string;
  at: number;
}

/**
 * How long after writing a fresh schedule the binding cache may still show the binding from
 * before it. Within it a cache without the served trigger is behind: a schedule computed from it
 * would build on the old clusters and undo the fresh one. After it, the cache is the truth.
 */
export const CACHE_LAG_MS = 10_000;

/** Whether the cached binding is older than this process' last fresh schedule of it (then wait for the cache). */
export function cacheBehind(current: ResourceBinding | undefined, servedHere: ServedHere | undefined, now: number): boolean {
  if (current === undefined || servedHere === undefined || now - servedHere.at >= CACHE_LAG_MS) return false;
  const onBinding = servedTrigger(current);
  return onBinding === undefined || isLater(servedHere.trigger, onBinding);
}

/**
 * Whether a rebalancer requested at requestedAt must write it on a binding whose trigger is
 * current: none yet, or an earlier one (Karmada's rule: a later request is never set back).
 */
export function triggerNeeded(requestedAt: string, current: string | undefined): boolean {
  return current === undefined || isLater(requestedAt, current);
}

/** The binding's targets a schedule builds on: its clusters, less those a fresh reschedule only holds. */
export function previousTargets(existing: ResourceBinding | undefined): TargetCluster[] | undefined {
  if (existing === undefined) return undefined;
  const held = new Set(freshTasks(existing).map((t) => t.fromCluster));
  return existing.spec.clusters.filter((t) => !held.has(t.name));
}

export interface HoldInput {
  /** This schedule is a fresh reschedule. */
  fresh: boolean;
  existing: ResourceBinding | undefined;
  /** What graceful eviction made of the schedule: its targets (with held clusters) and tasks. */
  targets: TargetCluster[];
  evictions: GracefulEvictionTask[];
  /** Placeable clusters (not leaving). */
  live: readonly Cluster[];
  /** Whether the policy still selects the cluster (a cluster it no longer selects goes at once). */
  selected(cluster: string): boolean;
  now: number;
}

/**
 * The targets and tasks to write once the Ready clusters a fresh reschedule dropped are held (see
 * the top of this file). A held cluster is released once the replacement is Available, or when it
 * is no longer selected, leaves, or stops being Ready (then graceful eviction holds it).
 */
export function holdDroppedClusters(input: HoldInput): { targets: TargetCluster[]; evictions: GracefulEvictionTask[]; recheckAfterMs?: number } {
  const { existing } = input;
  if (existing === undefined) return { targets: input.targets, evictions: input.evictions };
  const placed = new Set(input.targets.map((t) => t.name));
  const evicted = new Set(input.evictions.map((t) => t.fromCluster));
  const scheduled = input.targets.filter((t) => !evicted.has(t.name));
  const tasks = new Map(freshTasks(existing).map((t) => [t.fromCluster, t]));
  const byName = new Map(input.live.map((c) => [c.metadata.name ?? "", c]));
  const available = replacementAvailable(scheduled, existing.status?.aggregatedStatus ?? []);
  const targets = [...input.targets];
  const evictions = [...input.evictions];
  for (const t of existing.spec.clusters) {
    const task = tasks.get(t.name);
    if (placed.has(t.name) || (!input.fresh && task === undefined)) continue;
    const cluster = byName.get(t.name);
    if (available || cluster === undefined || !clusterReady(cluster) || !input.selected(t.name)) continue;
    targets.push(t.replicas === undefined ? { name: t.name } : { name: t.name, replicas: t.replicas });
    evictions.push(
      task ?? { fromCluster: t.name, ...(t.replicas === undefined ? {} : { replicas: t.replicas }), reason: FRESH_RESCHEDULE_REASON, creationTimestamp: new Date(input.now).toISOString() },
    );
  }
  const held = evictions.length > input.evictions.length;
  targets.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  evictions.sort((a, b) => (a.fromCluster < b.fromCluster ? -1 : 1));
  return { targets, evictions, ...(held ? { recheckAfterMs: EVICTION_RECHECK_MS } : {}) };
}

function freshTasks(b: ResourceBinding): GracefulEvictionTask[] {
  return (b.spec.gracefulEvictionTasks ?? []).filter((t) => t.reason === FRESH_RESCHEDULE_REASON);
}
