// Divisions that move no running replica for nothing. Pure.
//
// A division by room (dynamicWeight, Aggregated) keeps its last assignment while that is still
// whole: the same clusters chosen, the same replicas in all. The room figures change with every
// heartbeat and lag the pods they count, so dividing again on each look would move running
// replicas for nothing (Karmada reschedules a binding only when its replicas or placement change).
//
// A scale change under a division by room starts from the last assignment, as Karmada's does
// (dynamicScaleUp, dynamicScaleDown): a scale-up keeps every replica where it runs and divides only
// the new ones (Aggregated: over the clusters it already uses first, then the others, each by its
// free room); a scale-down takes replicas off the clusters it uses, in proportion to what each has
// (Aggregated: the cluster with the most keeps its replicas longest). Dividing the whole afresh
// could move the workload whole to another cluster and remove the running copy before its
// replacement is up (issue 37, item 8).
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
  /**
   * Cluster → how many more replicas its summary says it holds beyond what it runs (dynamic
   * weights, Aggregated). A cluster that reports no room is absent.
   */
  free?: ReadonlyMap<string, number>;
}

/** The targets and unplaced replicas when the last assignment stands or only capped replicas move; undefined: divide afresh. */
export function stableDivision(input: StableInput): { targets: TargetCluster[]; unplaced: number; message?: string } | undefined {
  const { strategy, caps } = input;
  const byRoom = strategy?.replicaDivisionPreference === "Aggregated" || strategy?.weightPreference?.dynamicWeight === "AvailableReplicas";
  const chosen = new Set(input.chosen.map((c) => c.metadata.name ?? ""));
  const placed = input.previous.filter((t) => (t.replicas ?? 0) > 0);
  const had = (t: TargetCluster) => t.replicas ?? 0;
  if (!byRoom || placed.length === 0 || placed.some((t) => !chosen.has(t.name))) return undefined;
  const over = placed.filter((t) => had(t) > (caps.get(t.name) ?? Infinity));
  const total = placed.reduce((s, t) => s + had(t), 0);
  if (total !== input.replicas) return over.length === 0 ? rescaled(input, placed, total) : undefined;
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

type Answer = { targets: TargetCluster[]; unplaced: number; message?: string };

/** A scale change from the last assignment (all of whose clusters are still chosen, none over a cap). */
function rescaled(input: StableInput, placed: readonly TargetCluster[], total: number): Answer {
  const had = new Map(placed.map((t) => [t.name, t.replicas ?? 0]));
  const aggregated = input.strategy?.replicaDivisionPreference === "Aggregated";
  const result = new Map(had);
  if (input.replicas < total) {
    if (aggregated) {
      // Fewest clusters: the one with the most keeps its replicas longest.
      let left = input.replicas;
      for (const t of [...placed].sort((a, b) => (had.get(b.name) ?? 0) - (had.get(a.name) ?? 0) || compare(a.name, b.name))) {
        result.set(t.name, Math.min(had.get(t.name) ?? 0, left));
        left -= result.get(t.name) ?? 0;
      }
    } else {
      // In proportion to what each runs: static weights of the last assignment, none above it.
      const clusters = input.chosen.filter((c) => had.has(c.metadata.name ?? ""));
      const weights = clusters.map((c) => ({ targetCluster: { clusterNames: [c.metadata.name ?? ""] }, weight: had.get(c.metadata.name ?? "") ?? 0 }));
      const division = divideReplicas({
        replicas: input.replicas,
        clusters,
        strategy: { replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted", weightPreference: { staticWeightList: weights } },
        previous: Object.fromEntries(had),
      });
      for (const a of division.assignments) result.set(a.name, a.replicas);
    }
    return { targets: targetsOf(result), unplaced: 0 };
  }
  const extra = input.replicas - total;
  // A capped cluster (replicas moved off its Unschedulable pods) takes no new ones, as in the move itself.
  const open = input.chosen.filter((c) => !input.caps.has(c.metadata.name ?? ""));
  const free = new Map([...(input.free ?? new Map<string, number>())].filter(([name]) => !input.caps.has(name)));
  let unplaced: number;
  if (open.length === 0) {
    unplaced = extra;
  } else if (aggregated) {
    const room = (name: string): number => free.get(name) ?? 0;
    const byRoom = (a: string, b: string): number => room(b) - room(a) || compare(a, b);
    const names = open.map((c) => c.metadata.name ?? "");
    const order = [...names.filter((n) => had.has(n)).sort(byRoom), ...names.filter((n) => !had.has(n)).sort(byRoom)];
    let left = extra;
    if (!names.some((n) => free.has(n))) {
      // No cluster reports its room: the new replicas join the cluster that runs the most.
      const most = [...placed].filter((t) => names.includes(t.name)).sort((a, b) => (had.get(b.name) ?? 0) - (had.get(a.name) ?? 0) || compare(a.name, b.name))[0]?.name ?? order[0] ?? "";
      result.set(most, (result.get(most) ?? 0) + left);
      left = 0;
    }
    for (const name of order) {
      const take = Math.min(room(name), left);
      if (take > 0) result.set(name, (result.get(name) ?? 0) + take);
      left -= take;
    }
    unplaced = left;
  } else {
    const division = divideReplicas({
      replicas: extra,
      clusters: open,
      strategy: input.strategy as ReplicaSchedulingStrategy,
      available: Object.fromEntries(free),
      previous: Object.fromEntries(had),
    });
    for (const a of division.assignments) result.set(a.name, (result.get(a.name) ?? 0) + a.replicas);
    unplaced = division.unplaced;
  }
  if (unplaced === 0) return { targets: targetsOf(result), unplaced };
  return { targets: targetsOf(result), unplaced, message: `${unplaced} of ${input.replicas} replicas unplaced: the clusters can hold only ${input.replicas - unplaced} of them` };
}

function targetsOf(replicas: ReadonlyMap<string, number>): TargetCluster[] {
  return sorted([...replicas].filter(([, n]) => n > 0).map(([name, n]) => ({ name, replicas: n })));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sorted(targets: TargetCluster[]): TargetCluster[] {
  return targets.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
