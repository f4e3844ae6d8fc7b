// What the leader alone writes into a binding's status, in the same apply as its entries: the
// conditions, the summary over every cluster (issue 25), the scheduler's observed fields; and
// which of its entries the binding keeps. Pure.
import type { AggregatedStatusItem, ReplicaMove, ResourceBinding, ResourceBindingStatus } from "../../shared/api/types.ts";
import type { ScheduleOutcome } from "../scheduling/schedule-outcomes.ts";
import { movesMessage } from "../scheduling/unschedulable-moves.ts";
import { bindingConditions } from "./binding-conditions.ts";
import { type BoundedEntries, bindingSummary, boundedEntries } from "./binding-summary.ts";

export interface LeaderStatusInput {
  binding: ResourceBinding;
  deleting: boolean;
  /** The binding's target clusters (its spec's, deleting or not). */
  targets: string[];
  /** This replica's entries, every one (sorted). */
  entries: AggregatedStatusItem[];
  /** Every cluster's entry: this replica's and those other replicas wrote. */
  merged: AggregatedStatusItem[];
  /** The current Work's hash per target cluster. */
  expectedHash: Record<string, string>;
  outcome: ScheduleOutcome | undefined;
  /** --binding-status-entries. */
  limit: number;
  /**
   * Within the startup grace after this replica began to lead: the agents may not all have
   * reported again, and the clusters a bounded status left out are known nowhere until they do.
   */
  startingUp: boolean;
  now: string;
}

/** The status the leader applies, what the binding says of the same fields now, and which entries it keeps. */
export function leaderStatus(input: LeaderStatusInput): { status: ResourceBindingStatus; current: ResourceBindingStatus; bounded: BoundedEntries; held: boolean } {
  const { binding, deleting, targets, outcome } = input;
  const live = deleting ? [] : targets;
  const bounded = boundedEntries({ entries: input.entries, targets: live, expectedHash: input.expectedHash, limit: input.limit });
  const status: ResourceBindingStatus = { aggregatedStatus: bounded.entries };
  status.conditions = bindingConditions({
    clusters: live,
    aggregated: input.merged,
    expectedHash: input.expectedHash,
    ...(outcome?.error !== undefined ? { scheduleError: outcome.error } : {}),
    ...(outcome?.unschedulable !== undefined ? { unschedulable: outcome.unschedulable } : {}),
    ...(outcome?.unclaimed !== undefined ? { unclaimed: outcome.unclaimed } : {}),
    ...(outcome?.interpreterFailed !== undefined ? { interpreterFailed: outcome.interpreterFailed } : {}),
    ...(outcome?.held !== undefined ? { held: outcome.held } : {}),
    ...(outcome?.unacted !== undefined ? { unacted: outcome.unacted } : {}),
    ...(outcome?.quotaExceeded !== undefined ? { quotaExceeded: outcome.quotaExceeded } : {}),
    ...(deleting ? {} : withMoved(binding.spec.replicaMoves)),
    ...(deleting || binding.spec.rollout === undefined || binding.status?.rollout === undefined ? {} : { rollout: binding.status.rollout }),
    previous: binding.status?.conditions,
    now: input.now,
  });
  status.aggregatedSummary = bindingSummary({ targets: live, entries: input.merged, expectedHash: input.expectedHash, omittedEntries: bounded.omitted });
  // Fewer clusters known than the summary counted, while agents still come back: the conditions
  // and the summary stay as they were (no "waiting for the agent" for a cluster only unheard yet).
  const previous = binding.status?.aggregatedSummary;
  const heard = new Set(input.merged.map((i) => i.clusterName));
  const held = input.startingUp && !deleting && previous !== undefined && status.aggregatedSummary.reported < previous.reported && live.some((t) => !heard.has(t));
  if (held) {
    status.aggregatedSummary = previous;
    if (binding.status?.conditions !== undefined) status.conditions = binding.status.conditions;
  }
  if (binding.metadata.generation !== undefined) status.schedulerObservedGeneration = binding.metadata.generation;
  if (outcome?.affinityName !== undefined) status.schedulerObservedAffinityName = outcome.affinityName;
  const before = binding.status;
  const current: ResourceBindingStatus = {};
  if (before?.conditions !== undefined) current.conditions = before.conditions;
  if (before?.aggregatedSummary !== undefined) current.aggregatedSummary = before.aggregatedSummary;
  if (before?.schedulerObservedGeneration !== undefined) current.schedulerObservedGeneration = before.schedulerObservedGeneration;
  if (before?.schedulerObservedAffinityName !== undefined) current.schedulerObservedAffinityName = before.schedulerObservedAffinityName;
  return { status, current, bounded, held };
}

// The binding's replicaMoves as its ReplicasMoved condition says them.
function withMoved(moves: ReplicaMove[] | undefined): { moved?: string } {
  const moved = movesMessage(moves ?? []);
  return moved === undefined ? {} : { moved };
}
