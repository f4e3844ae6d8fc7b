// Divisions that move no running replica for nothing. Pure.
//
// A division by room (dynamicWeight, Aggregated) keeps its last assignment while that is still
// whole: the same clusters chosen, the same replicas in all. The room figures change with every
// heartbeat and lag the pods they count, so dividing again on each look would move running
// replicas for nothing (Karmada reschedules a binding only when its replicas or placement change).
//
// A move off Unschedulable pods (unschedulable-moves.ts) caps a cluster below what it has: under a
// division by room only the replicas over the cap move. The others keep theirs, and what the
// capped clusters give up is divided over the other clusters alone by their free room (none free:
// unplaced), as Karmada's scale-up divides only the new replicas. Static weights (with rebalance)
// divide afresh with the caps: they read no room figure, so nothing moves for nothing.
import type { Cluster, ReplicaSchedulingStrategy, TargetCluster } from "../../shared/api/types.ts";
import { divideReplicas } from "./replica-division.ts";

export interface StableInput {
  strategy: ReplicaSchedulingStrategy | undefined;
  /** The binding's targets now. */
  previous: readonly TargetCluster[];
  /** The clusters the spread constraints chose, schedulable. */
  chosen: readonly Cluster[];
  replicas: number;
  /** Cluster → the most it takes (moves in force). */
  caps: ReadonlyMap<string, number>;
  /** Cluster → how many more replicas its summary says it holds beyond what it runs (dynamic weights, Aggregated). */
  free?: ReadonlyMap<string, number>;
}

/** The targets and unplaced replicas when the last assignment stands or only capped replicas move; undefined: divide afresh. */
export function stableDivision(input: StableInput): { targets: TargetCluster[]; unplaced: number; message?: string } | undefined {
  const { strategy, caps } = input;
  const byRoom = strategy?.replicaDivisionPreference === "Aggregated" || strategy?.weightPreference?.dynamicWeight === "AvailableReplicas";
  const chosen = new Set(input.chosen.map((c) => c.metadata.name ?? ""));
  const placed = input.previous.filter((t) => (t.replicas ?? 0) > 0);
  const had = (t: TargetCluster) => t.replicas ?? 0;
  if (placed.length === 0 || placed.some((t) => !chosen.has(t.name)) || placed.reduce((s, t) => s + had(t), 0) !== input.replicas) return undefined;
  if (!byRoom) return undefined;
  const over = placed.filter((t) => had(t) > (caps.get(t.name) ?? Infinity));
  if (over.length === 0) {
    // Dynamic weights spread over every cluster chosen: one newly chosen gets its share by dividing again.
    if (strategy?.replicaDivisionPreference !== "Aggregated" && placed.length !== chosen.size) return undefined;
    return { targets: sorted(placed.map((t) => ({ name: t.name, replicas: had(t) }))), unplaced: 0 };
  }
  const base = new Map(placed.map((t) => [t.name, Math.min(had(t), caps.get(t.name) ?? Infinity)]));
  const moving = over.reduce((s, t) => s + had(t) - (base.get(t.name) ?? 0), 0);
  // The others take the moving replicas: not a capped cluster, each at most its free room.
  const others = input.chosen.filter((c) => !caps.has(c.metadata.name ?? "") && (input.free?.get(c.metadata.name ?? "") ?? 0) > 0);
  if (others.length === 0) {
    return { targets: sorted([...base].filter(([, n]) => n > 0).map(([name, replicas]) => ({ name, replicas }))), unplaced: moving, message: `${moving} of ${input.replicas} replicas unplaced: no other cluster has room for the replicas moved off Unschedulable pods` };
  }
  const division = divideReplicas({
    replicas: moving,
    clusters: others,
    strategy: strategy as ReplicaSchedulingStrategy,
    available: Object.fromEntries(others.map((c) => [c.metadata.name ?? "", input.free?.get(c.metadata.name ?? "") ?? 0])),
    previous: Object.fromEntries(placed.filter((t) => !caps.has(t.name)).map((t) => [t.name, had(t)])),
  });
  for (const a of division.assignments) base.set(a.name, (base.get(a.name) ?? 0) + a.replicas);
  return {
    targets: sorted([...base].filter(([, n]) => n > 0).map(([name, replicas]) => ({ name, replicas }))),
    unplaced: division.unplaced,
    ...(division.message === undefined ? {} : { message: division.message }),
  };
}

function sorted(targets: TargetCluster[]): TargetCluster[] {
  return targets.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
