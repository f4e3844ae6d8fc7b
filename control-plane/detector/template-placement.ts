// Where a claimed template goes, as its binding should say: the policy's schedule over the
// admitted clusters, not-Ready clusters' copies held by graceful eviction, and what the binding's
// status should say about it. Pure; the binding controller writes the result. A customization's
// script that fails (InterpreterError) is an answer too: the binding keeps what it has.
import type { Cluster, GracefulEvictionTask, PropagationPolicy, ResourceBinding, TargetCluster } from "../../shared/api/types.ts";
import { InterpreterError, type KindInterpreter } from "../../shared/interpreter/interpreter.ts";
import type { KubeObject } from "../../shared/api/types.ts";
import { admittedClusters } from "../scheduling/acceptance.ts";
import { desiredBinding, type RequiredBy } from "../scheduling/binding-spec.ts";
import { placementAfter, type ReplacementSeen } from "../scheduling/graceful-eviction.ts";
import type { ScheduleOutcome } from "../scheduling/schedule-outcomes.ts";
import { type Schedule, scheduleTemplate } from "../scheduling/schedule.ts";

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
  availableSince?: ReplacementSeen;
  requiredBy: RequiredBy[];
  interpreter: KindInterpreter | undefined;
}

export type Placed =
  | { desired: ResourceBinding; outcome?: ScheduleOutcome; availableSince?: ReplacementSeen; recheckAfterMs?: number }
  | { interpreterFailed: string };

export function placeTemplate(input: PlacementInput): Placed {
  const { template, policy, existing, interpreter } = input;
  try {
    let targets: TargetCluster[] = [];
    let evictions: GracefulEvictionTask[] = [];
    let out: Omit<Extract<Placed, { desired: ResourceBinding }>, "desired"> = {};
    if (policy !== undefined) {
      const schedule = scheduleTemplate(template, policy, admittedClusters(input.live, existing?.spec.clusters, input.requireAcceptance), existing?.spec.clusters, interpreter);
      const placed = placementAfter({ schedule, existing, policy, live: input.live, now: input.now, evictionPeriodMs: input.evictionPeriodMs, ...(input.availableSince ? { availableSince: input.availableSince } : {}) });
      ({ targets, evictions } = placed);
      out = {
        outcome: outcomeOf(schedule, policy.metadata.name ?? "", targets.length > 0),
        ...(placed.availableSince === undefined ? {} : { availableSince: placed.availableSince }),
        ...(placed.recheckAfterMs === undefined ? {} : { recheckAfterMs: placed.recheckAfterMs }),
      };
    }
    return { desired: desiredBinding(template, policy, targets, input.requiredBy, evictions, interpreter), ...out };
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
