// Where a claimed template goes, as its binding should say: the policy's schedule over the
// admitted clusters, not-Ready clusters' copies held by graceful eviction, and what the binding's
// status should say about it. Pure; the binding controller writes the result. A customization's
// script that fails (InterpreterError) is an answer too: the binding keeps what it has. A fresh
// reschedule (scheduling/fresh-reschedule.ts) schedules once without the previous assignment, holds
// the Ready clusters it drops until the new placement is Available, and records what it served.
import { type Cluster, type GracefulEvictionTask, LABELS, type PropagationPolicy, type ReplicaMove, type ResourceBinding, type TargetCluster } from "../../shared/api/types.ts";
import { InterpreterError, type KindInterpreter } from "../../shared/interpreter/interpreter.ts";
import type { KubeObject } from "../../shared/api/types.ts";
import { admittedClusters } from "../scheduling/acceptance.ts";
import { desiredBinding, type RequiredBy } from "../scheduling/binding-spec.ts";
import { holdDroppedClusters, previousTargets } from "../scheduling/fresh-reschedule.ts";
import { placementAfter, placementSelects, type ReplacementSeen } from "../scheduling/graceful-eviction.ts";
import type { ScheduleOutcome } from "../scheduling/schedule-outcomes.ts";
import { perReplicaRequest, type Schedule, scheduleTemplate } from "../scheduling/schedule.ts";
import { freeReplicas, type ResourceAmounts } from "../scheduling/capacity.ts";
import { clusterReady } from "../scheduling/placement.ts";
import { holdMoved, planMoves } from "../scheduling/unschedulable-moves.ts";

/**
 * Why a schedule may not be written (issue 26: a FederatedResourceQuota it would take the namespace
 * past; control-plane/quota/), or undefined. Injected: the detector imports no quota code.
 */
export type QuotaGuard = (template: KubeObject, existing: ResourceBinding | undefined, desired: ResourceBinding) => string | undefined;

/** How soon a binding held by a quota is scheduled again (another workload may have freed room). */
export const QUOTA_RECHECK_MS = 30_000;

export interface PlacementInput {
  template: KubeObject;
  /** The policy that claims it; undefined for a dependency placed only with its parents. */
  policy: PropagationPolicy | undefined;
  existing: ResourceBinding | undefined;
  /** Placeable clusters (not leaving). */
  live: Cluster[];
  requireAcceptance: boolean;
  now: number;
  evictionPeriodMs: number;
  /** Pods Unschedulable this long move their replicas, for as long (unschedulable-moves.ts); 0: never. */
  unschedulableThresholdMs?: number;
  availableSince?: ReplacementSeen;
  requiredBy: RequiredBy[];
  interpreter: KindInterpreter | undefined;
  /** A fresh reschedule to serve now (freshRescheduleDue): its spec.rescheduleTriggeredAt. */
  freshTrigger?: string;
  /** The trigger served last (the binding's annotation, or later in this process): carried on. */
  served?: string;
  quotaGuard?: QuotaGuard;
}

export type Placed =
  | { desired: ResourceBinding; outcome?: ScheduleOutcome; availableSince?: ReplacementSeen; recheckAfterMs?: number; served?: string }
  | { interpreterFailed: string };

export function placeTemplate(input: PlacementInput): Placed {
  const { template, policy, existing, interpreter } = input;
  try {
    let targets: TargetCluster[] = [];
    let evictions: GracefulEvictionTask[] = [];
    let moves: ReplicaMove[] = [];
    let out: Omit<Extract<Placed, { desired: ResourceBinding }>, "desired"> = {};
    const fresh = input.freshTrigger !== undefined;
    if (policy !== undefined) {
      const status = existing?.status?.aggregatedStatus ?? [];
      // Moves only out of Ready clusters still placeable: a not-Ready one is graceful eviction's, a leaving one goes at once.
      const ready = new Set(input.live.filter((c) => clusterReady(c)).map((c) => c.metadata.name ?? ""));
      const plan = planMoves({
        strategy: policy.spec.placement?.replicaScheduling,
        current: existing?.spec.clusters ?? [],
        moves: (existing?.spec.replicaMoves ?? []).filter((m) => ready.has(m.fromCluster)),
        status,
        now: input.now,
        thresholdMs: input.unschedulableThresholdMs ?? 0,
        freeNow: freeNowOf(template, interpreter, input.live),
      });
      const schedule = scheduleTemplate(template, policy, admittedClusters(input.live, existing?.spec.clusters, input.requireAcceptance), previousTargets(existing), interpreter, plan.caps, fresh);
      const placed = placementAfter({ schedule, existing, policy, live: input.live, now: input.now, evictionPeriodMs: input.evictionPeriodMs, ...(input.availableSince ? { availableSince: input.availableSince } : {}) });
      const moved = holdMoved(placed.targets, schedule.unplaced, plan.moves.filter((m) => ready.has(m.fromCluster)), status);
      moves = moved.moves;
      const selected = (name: string) => input.live.some((c) => c.metadata.name === name && placementSelects(policy.spec.placement, c));
      const held = holdDroppedClusters({ fresh, existing, targets: moved.targets, evictions: placed.evictions, live: input.live, selected, now: input.now });
      ({ targets, evictions } = held);
      const recheck = Math.min(placed.recheckAfterMs ?? Infinity, plan.recheckAfterMs ?? Infinity, held.recheckAfterMs ?? Infinity);
      out = {
        outcome: outcomeOf(schedule, policy.metadata.name ?? "", targets.length > 0),
        ...(placed.availableSince === undefined ? {} : { availableSince: placed.availableSince }),
        ...(recheck === Infinity ? {} : { recheckAfterMs: recheck }),
      };
    }
    const desired = desiredBinding(template, policy, targets, input.requiredBy, evictions, interpreter, moves);
    // Past a quota: the clusters keep what they run, nothing more is placed, the binding says why.
    const quotaExceeded = policy === undefined ? undefined : input.quotaGuard?.(template, existing, desired);
    if (quotaExceeded !== undefined) {
      desired.spec.clusters = existing?.spec.clusters ?? [];
      out = { ...out, outcome: { ...out.outcome, quotaExceeded }, recheckAfterMs: Math.min(out.recheckAfterMs ?? QUOTA_RECHECK_MS, QUOTA_RECHECK_MS) };
    }
    // Served in the same write as the schedule it asked for (a failed script above serves nothing).
    const served = input.freshTrigger ?? input.served;
    if (served !== undefined) desired.metadata.annotations = { [LABELS.rescheduleServed]: served };
    return { desired, ...out, ...(served === undefined ? {} : { served }) };
  } catch (err) {
    if (!(err instanceof InterpreterError)) throw err;
    return { interpreterFailed: err.message };
  }
}

/**
 * What the binding's status should say about a schedule (beyond its targets). kept: the binding
 * keeps clusters although the schedule placed nothing (its last placement, while none is Ready).
 */
export function outcomeOf(schedule: Schedule, policyName: string, kept = false): ScheduleOutcome {
  const unschedulable = schedule.message === undefined ? undefined : schedule.targets.length === 0 && kept ? `${schedule.message}; the clusters keep what they run` : schedule.message;
  return {
    ...(schedule.error !== undefined ? { error: `policy ${policyName}: ${schedule.error}` } : {}),
    ...(schedule.error === undefined && unschedulable !== undefined ? { unschedulable } : {}),
    ...(schedule.affinityName !== undefined ? { affinityName: schedule.affinityName } : {}),
  };
}

// How many more replicas each cluster's summary says it holds, asked only when a move is judged
// (the per-replica request may be a customization's Lua call).
function freeNowOf(template: KubeObject, interpreter: KindInterpreter | undefined, live: readonly Cluster[]): (cluster: string) => number | undefined {
  let perReplica: ResourceAmounts | undefined | null = null;
  return (name) => {
    if (perReplica === null) perReplica = perReplicaRequest(template, interpreter);
    const c = live.find((x) => x.metadata.name === name);
    return c === undefined || perReplica === undefined ? undefined : freeReplicas(c, perReplica);
  };
}
