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
import { bindingPolicyId } from "../scheduling/policy-match.ts";
import { requiresAnnotation } from "../../shared/workload-requires.ts";
import { holdMoved, planMoves } from "../scheduling/unschedulable-moves.ts";
import { activePolicy, followedPolicy, policyHold } from "../scheduling/policy-activation.ts";
import { unactedMessage } from "../scheduling/unacted-fields.ts";
import { type GroupPeers, workloadAffinityAllows } from "../scheduling/workload-affinity.ts";
import { failoverPlacement, type UnhealthySince } from "../scheduling/failover-placement.ts";

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
  /** Whether an override policy of the claiming policy's scope exists, by name (its dependentOverrides). */
  overrideExists?: (name: string) => boolean;
  /** A PriorityClass's value by name; undefined when it does not exist (schedulePriority). */
  priorityValue?: (name: string) => number | undefined;
  /** The clusters other workloads of a workloadAffinity group are on (detector/workload-groups.ts). */
  groupPeers?: GroupPeers;
  /** Application failover: when each cluster's copy was first seen Unhealthy (the caller's memory). */
  unhealthySince?: UnhealthySince;
  quotaGuard?: QuotaGuard;
  /** The template keys of the dependencies it refers to while they are followed (DependencyTracker.known: under propagateDeps, and after it while it still refers to them), stamped on its binding (LABELS.requires). */
  requires?: readonly string[];
}

export type Placed =
  | { desired: ResourceBinding; outcome?: ScheduleOutcome; availableSince?: ReplacementSeen; recheckAfterMs?: number; served?: string; unhealthySince?: UnhealthySince }
  | { interpreterFailed: string };

export function placeTemplate(input: PlacementInput): Placed {
  const { template, existing, interpreter } = input;
  const kept = keptWhileRequired(input);
  if (kept !== undefined) return kept;
  // How the claiming policy takes effect now (policy-activation.ts); a held one keeps what the binding has.
  const active = input.policy === undefined ? undefined : activePolicy(input.policy, template, existing);
  const hold = active === undefined ? undefined : policyHold(active.policy, input.overrideExists ?? (() => true), input.priorityValue);
  const unacted = input.policy === undefined ? undefined : unactedMessage(input.policy);
  const policy = active?.policy;
  const notes = { ...(hold ? { held: hold } : {}), ...(unacted ? { unacted } : {}) };
  try {
    if (hold !== undefined && policy !== undefined) {
      const kept = existing === undefined ? policy : followedPolicy(policy, existing);
      const desired = desiredBinding(template, kept, existing?.spec.clusters ?? [], input.requiredBy, existing?.spec.gracefulEvictionTasks ?? [], interpreter, existing?.spec.replicaMoves ?? []);
      if (existing?.spec.schedulePriority !== undefined) desired.spec.schedulePriority = existing.spec.schedulePriority;
      // A fresh reschedule asked for meanwhile is served by this write too (the controller records it served): no loop of requeues.
      return { desired: stamped(desired, existing?.metadata.annotations, input.freshTrigger ?? input.served, input.requires, unknownWhileKept(existing, hold.reason)), outcome: notes };
    }
    let targets: TargetCluster[] = [];
    let evictions: GracefulEvictionTask[] = [];
    let moves: ReplicaMove[] = [];
    let out: Omit<Extract<Placed, { desired: ResourceBinding }>, "desired"> = {};
    let schedulingFailed = false;
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
      const holding = new Set((existing?.spec.clusters ?? []).map((c) => c.name));
      const allows = workloadAffinityAllows(policy.spec.placement?.workloadAffinity, template, input.groupPeers ?? (() => new Set()), holding);
      const admitted = (live: Cluster[]) => admittedClusters(live, existing?.spec.clusters, input.requireAcceptance).filter((c) => allows === undefined || allows(c.metadata.name ?? ""));
      const scheduleOn = (live: Cluster[]) => scheduleTemplate(template, policy, admitted(live), previousTargets(existing), interpreter, plan.caps, fresh);
      const failover = failoverPlacement({ policy, existing, live: input.live, now: input.now, evictionPeriodMs: input.evictionPeriodMs, schedule: scheduleOn, ...(input.unhealthySince ? { unhealthySince: input.unhealthySince } : {}) });
      const { schedule } = failover;
      schedulingFailed = schedule.error !== undefined;
      const placed = failover.after(placementAfter({ schedule, existing: failover.existing, policy, live: input.live, now: input.now, evictionPeriodMs: input.evictionPeriodMs, ...(input.availableSince ? { availableSince: input.availableSince } : {}) }));
      const moved = holdMoved(placed.targets, schedule.unplaced, plan.moves.filter((m) => ready.has(m.fromCluster)), status);
      moves = moved.moves;
      const selected = (name: string) => input.live.some((c) => c.metadata.name === name && placementSelects(policy.spec.placement, c));
      const held = holdDroppedClusters({ fresh, existing, targets: moved.targets, evictions: placed.evictions, live: input.live, selected, now: input.now });
      ({ targets, evictions } = held);
      const recheck = Math.min(placed.recheckAfterMs ?? Infinity, plan.recheckAfterMs ?? Infinity, held.recheckAfterMs ?? Infinity, failover.recheckAfterMs ?? Infinity);
      out = {
        outcome: { ...outcomeOf(schedule, policy.metadata.name ?? "", targets.length > 0, failover.note), ...notes },
        ...(Object.keys(failover.unhealthySince).length === 0 ? {} : { unhealthySince: failover.unhealthySince }),
        ...(placed.availableSince === undefined ? {} : { availableSince: placed.availableSince }),
        ...(recheck === Infinity ? {} : { recheckAfterMs: recheck }),
      };
    }
    const desired = desiredBinding(template, policy, targets, input.requiredBy, evictions, interpreter, moves);
    const priorityClass = policy?.spec.schedulePriority?.priorityClassName;
    const priority = priorityClass === undefined ? undefined : input.priorityValue?.(priorityClass);
    if (priority !== undefined) desired.spec.schedulePriority = { priority };
    // Past a quota: the clusters keep what they run, nothing more is placed, the binding says why.
    const quotaExceeded = policy === undefined ? undefined : input.quotaGuard?.(template, existing, desired);
    // A policy that cannot be scheduled (an error) keeps the clusters the binding has: still undecided, if they were.
    let unknown = policy !== undefined && schedulingFailed ? unknownWhileKept(existing, "ScheduleFailed") : undefined;
    if (quotaExceeded !== undefined) {
      desired.spec.clusters = existing?.spec.clusters ?? [];
      unknown = unknownWhileKept(existing, "QuotaExceeded");
      out = { ...out, outcome: { ...out.outcome, quotaExceeded }, recheckAfterMs: Math.min(out.recheckAfterMs ?? QUOTA_RECHECK_MS, QUOTA_RECHECK_MS) };
    }
    // Served in the same write as the schedule it asked for (a failed script above serves nothing).
    const served = input.freshTrigger ?? input.served;
    const annotations = active?.stamp === undefined ? undefined : { [LABELS.templateStamp]: active.stamp };
    return { desired: stamped(desired, annotations, served, input.requires, unknown), ...out, ...(served === undefined ? {} : { served }) };
  } catch (err) {
    if (!(err instanceof InterpreterError)) throw err;
    return { interpreterFailed: err.message };
  }
}

/**
 * A binding a policy made whose template no policy claims now (the policy deleted, or no longer
 * selecting it) while workloads still require it (propagateDeps): it keeps its last placement, its
 * policy's labels and fields, as an unclaimed binding does (a lost claim is no intent, DESIGN §11),
 * and adds the clusters its workloads require now. Undefined for any other binding. Issue 37: the
 * deletion model found it cut to where its workloads were, removing the rest.
 */
function keptWhileRequired(input: PlacementInput): Placed | undefined {
  const { existing, template } = input;
  if (input.policy !== undefined || existing === undefined || bindingPolicyId(existing) === undefined) return undefined;
  const kept = existing.spec.clusters;
  const needed = desiredBinding(template, undefined, kept, input.requiredBy, existing.spec.gracefulEvictionTasks ?? [], input.interpreter, existing.spec.replicaMoves ?? []);
  const { resource, replicas, components, clusters, requiredBy } = needed.spec;
  const labels = Object.fromEntries([LABELS.policyName, LABELS.policyNamespace].flatMap((l) => (existing.metadata.labels?.[l] === undefined ? [] : [[l, existing.metadata.labels[l]]])));
  const desired: ResourceBinding = {
    ...needed,
    metadata: { ...needed.metadata, labels },
    spec: { ...existing.spec, resource, clusters, ...(replicas === undefined ? {} : { replicas }), ...(components === undefined ? {} : { components }), ...(requiredBy === undefined ? {} : { requiredBy }) },
  };
  const names = (requiredBy ?? []).map((r) => r.name).join(", ");
  const unclaimed = `no PropagationPolicy or ClusterPropagationPolicy selects this template; it keeps its last placement (${kept.map((c) => c.name).join(", ") || "no clusters"}) and follows the workloads that need it (${names})`;
  return { desired: stamped(desired, existing.metadata.annotations, input.freshTrigger ?? input.served, input.requires, existing.metadata.annotations?.[LABELS.placementUnknown]), outcome: { unclaimed } };
}

/**
 * The binding's placementUnknown annotation while it keeps the clusters it has: `why` when there is
 * no earlier binding (its empty list of clusters was never decided), what the earlier one says
 * otherwise. A binding made again while held would else tell every member holding the template
 * that its placement dropped them, and they would remove a running workload nobody asked to move.
 */
function unknownWhileKept(existing: ResourceBinding | undefined, why: string): string | undefined {
  return existing === undefined ? why : existing.metadata.annotations?.[LABELS.placementUnknown];
}

/** The binding with the annotations the binding controller owns: the Lazy stamp it keeps, the trigger served, what its workload requires, why its placement is unknown. */
function stamped(desired: ResourceBinding, kept: Record<string, string> | undefined, served: string | undefined, requires: readonly string[] = [], unknown?: string): ResourceBinding {
  const stamp = kept?.[LABELS.templateStamp];
  const needs = requiresAnnotation(requires);
  const annotations = {
    ...(stamp === undefined ? {} : { [LABELS.templateStamp]: stamp }),
    ...(served === undefined ? {} : { [LABELS.rescheduleServed]: served }),
    ...(needs === undefined ? {} : { [LABELS.requires]: needs }),
    ...(unknown === undefined ? {} : { [LABELS.placementUnknown]: unknown }),
  };
  if (Object.keys(annotations).length > 0) desired.metadata.annotations = annotations;
  return desired;
}

/**
 * What the binding's status should say about a schedule (beyond its targets). kept: the binding
 * keeps clusters although the schedule placed nothing (its last placement, while none is Ready).
 */
export function outcomeOf(schedule: Schedule, policyName: string, kept = false, note?: string): ScheduleOutcome {
  const said = schedule.message === undefined ? undefined : schedule.targets.length === 0 && kept ? `${schedule.message}; the clusters keep what they run` : schedule.message;
  const unschedulable = note === undefined ? said : said === undefined ? note : `${said}; ${note}`;
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
