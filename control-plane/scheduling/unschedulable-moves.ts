// Replicas that cannot run move (issue 22; Karmada's descheduler, KubeFed's "no room"): a cluster
// whose pods for a Divided workload stay Unschedulable past the threshold gives those replicas up,
// the scheduler places them where the resource summaries say there is room, and the cluster takes
// no more of the workload for one threshold, and after that until its summary says it has more
// room than when the pods could not be placed (never straight back onto the same lie). The
// cluster keeps what it had until the moved replicas run Available elsewhere (add first, then
// remove; DESIGN §11), and it stays a target even at 0 replicas while the move is recorded: a move
// never removes a Work. Only for division by room (dynamicWeight AvailableReplicas, Aggregated),
// as Karmada's descheduler, and for static weights with KubeFed's `rebalance: true`. Pure.
import type { AggregatedStatusItem, ReplicaMove, ReplicaSchedulingStrategy, TargetCluster } from "../../shared/api/types.ts";
import { replacementAvailable } from "./graceful-eviction.ts";

/** The reason recorded on a move. */
export const UNSCHEDULABLE_REASON = "Unschedulable";

/**
 * Whether a strategy's replicas move off Unschedulable pods: division by the room clusters report
 * (dynamicWeight, Aggregated: Karmada's descheduler), and any Divided one with KubeFed's
 * `rebalance: true` (static weights then give a capped cluster's share to the others).
 */
export function movesReplicas(strategy: ReplicaSchedulingStrategy | undefined): boolean {
  if (strategy?.replicaSchedulingType !== "Divided") return false;
  return strategy.rebalance === true || strategy.replicaDivisionPreference === "Aggregated" || strategy.weightPreference?.dynamicWeight === "AvailableReplicas";
}

export interface MoveInput {
  strategy: ReplicaSchedulingStrategy | undefined;
  /** The binding's targets now. */
  current: readonly TargetCluster[];
  /** The binding's moves now. */
  moves: readonly ReplicaMove[];
  /** The binding's per-cluster status: each cluster's Unschedulable pods. */
  status: readonly AggregatedStatusItem[];
  now: number;
  /** How long pods stay Unschedulable before their replicas move, and how long a move lasts at least; 0 turns moves off. */
  thresholdMs: number;
  /** How many more replicas a cluster's resource summary says it holds now (undefined: it reports none). */
  freeNow(cluster: string): number | undefined;
}

export interface MovePlan {
  /** The moves in force: those not expired, and those decided now. */
  moves: ReplicaMove[];
  /** Cluster → the most replicas it takes while a move from it is in force. */
  caps: Map<string, number>;
  /** When to look again: a cluster's pods reach the threshold, or a move expires. */
  recheckAfterMs?: number;
}

/** The moves in force for a binding, with any new one its clusters' Unschedulable pods call for. */
export function planMoves(input: MoveInput): MovePlan {
  if (input.thresholdMs <= 0 || !movesReplicas(input.strategy)) return { moves: [], caps: new Map() };
  let recheck = Infinity;
  const inForce = input.moves.filter((m) => {
    const left = Date.parse(m.creationTimestamp) + input.thresholdMs - input.now;
    if (left > 0) {
      recheck = Math.min(recheck, left);
      return true;
    }
    // Past its window it lasts while the cluster says no more room than when its pods could not be
    // placed: that figure proved wrong (pods spread over nodes none of which fits one, a node
    // selector, a taint), and trusting it again would send the replicas straight back.
    // A summary change does not requeue the binding: it is looked at again every threshold.
    const free = input.freeNow(m.fromCluster);
    const lasts = m.freeAtMove !== undefined && free !== undefined && free <= m.freeAtMove;
    if (lasts) recheck = Math.min(recheck, input.thresholdMs);
    return lasts;
  });
  const moving = new Set(inForce.map((m) => m.fromCluster));
  const items = new Map(input.status.map((i) => [i.clusterName, i]));
  const fresh: ReplicaMove[] = [];
  for (const t of input.current) {
    const had = t.replicas ?? 0;
    const item = items.get(t.name);
    const stuck = Math.min(item?.unschedulableReplicas ?? 0, had);
    const since = Date.parse(item?.unschedulableSince ?? "");
    if (moving.has(t.name) || stuck <= 0 || Number.isNaN(since) || item?.applied !== true) continue;
    const left = since + input.thresholdMs - input.now;
    if (left > 0) {
      recheck = Math.min(recheck, left);
      continue;
    }
    const free = input.freeNow(t.name);
    fresh.push({
      fromCluster: t.name,
      replicas: stuck,
      had,
      keep: had - stuck,
      reason: UNSCHEDULABLE_REASON,
      creationTimestamp: new Date(input.now).toISOString(),
      ...(free === undefined ? {} : { freeAtMove: free }),
    });
    recheck = Math.min(recheck, input.thresholdMs);
  }
  const moves = [...inForce, ...fresh].sort((a, b) => (a.fromCluster < b.fromCluster ? -1 : a.fromCluster > b.fromCluster ? 1 : 0));
  return {
    moves,
    caps: new Map(moves.map((m) => [m.fromCluster, m.keep])),
    ...(recheck === Infinity ? {} : { recheckAfterMs: Math.max(1, Math.ceil(recheck)) }),
  };
}

export interface HeldMoves {
  targets: TargetCluster[];
  /** The moves to record: a move the schedule could not carry out (no room elsewhere) is dropped. */
  moves: ReplicaMove[];
}

/**
 * The targets to write after a schedule that honoured the moves' caps. A move not yet released
 * that the schedule could not carry out is dropped, so nothing is capped for nothing: the cluster
 * it leaves still got what it had (no capacity is reported), or replicas went unplaced (no other
 * cluster had room; a move never lowers what the fleet runs). Until a move is released, the cluster it leaves keeps
 * what it had; it is released once every other scheduled cluster runs its share Available. A
 * cluster a move is in force for stays a target, at 0 replicas if that is its share.
 */
export function holdMoved(scheduled: readonly TargetCluster[], unplaced: number, moves: readonly ReplicaMove[], status: readonly AggregatedStatusItem[]): HeldMoves {
  const targets = new Map(scheduled.map((t) => [t.name, { ...t }]));
  const kept: ReplicaMove[] = [];
  for (const m of moves) {
    const share = targets.get(m.fromCluster)?.replicas ?? 0;
    if (m.released !== true && (share >= m.had || unplaced > 0)) continue;
    kept.push(m);
    if (m.released === true) {
      if (!targets.has(m.fromCluster)) targets.set(m.fromCluster, { name: m.fromCluster, replicas: 0 });
      continue;
    }
    const elsewhere = scheduled.filter((t) => t.name !== m.fromCluster && (t.replicas ?? 0) > 0);
    if (elsewhere.length > 0 && replacementAvailable(elsewhere, status)) {
      kept[kept.length - 1] = { ...m, released: true };
      if (!targets.has(m.fromCluster)) targets.set(m.fromCluster, { name: m.fromCluster, replicas: 0 });
    } else {
      targets.set(m.fromCluster, { name: m.fromCluster, replicas: m.had });
    }
  }
  const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  return { targets: [...targets.values()].sort(byName), moves: kept };
}

/** What a binding's condition says about its moves (undefined when none is in force). */
export function movesMessage(moves: readonly ReplicaMove[]): string | undefined {
  if (moves.length === 0) return undefined;
  return moves
    .map((m) => {
      const state = m.released === true ? `they run elsewhere and it runs ${m.keep}` : `it keeps ${m.had} until they run Available elsewhere`;
      return `${m.replicas} of ${m.had} replicas moved from ${m.fromCluster} at ${m.creationTimestamp}, their pods Unschedulable there past --unschedulable-threshold: ${state}, and takes no more than ${m.keep} until one threshold after the move`;
    })
    .join("; ");
}

/**
 * What of a binding's status its moves depend on: each cluster's Unschedulable pods, and while a
 * move waits for its replicas to run elsewhere, each cluster's availability. The binding controller
 * looks at the binding again when this changes ("" for a binding whose replicas never move).
 */
export function movesSignal(spec: { placement?: { replicaScheduling?: ReplicaSchedulingStrategy }; replicaMoves?: ReplicaMove[] }, status: readonly AggregatedStatusItem[]): string {
  if (!movesReplicas(spec.placement?.replicaScheduling)) return "";
  const waiting = (spec.replicaMoves ?? []).some((m) => m.released !== true);
  return JSON.stringify(
    status.map((i) => [
      i.clusterName,
      i.unschedulableReplicas ?? 0,
      i.unschedulableSince ?? "",
      ...(waiting ? [i.applied === true, i.health ?? "", (i.status as { availableReplicas?: unknown } | undefined)?.availableReplicas ?? null] : []),
    ]),
  );
}
