// Replica division (DESIGN §3): how many of a workload's replicas each placed cluster runs. Pure:
// the scheduler passes the placed, schedulable clusters (Ready, tolerated), what it knows of their
// room and the last assignment, and writes the answer into the binding.
//
// Weighted division is KubeFed's ReplicaSchedulingPreference planner with exact arithmetic:
// minimums first (highest weight first), then the rest by weight with water-filling (a cluster whose
// share would pass its maximum is pinned there and the others share what is left), and the final
// share split by largest remainder (Hamilton), so the sum is exact and the same input always gives
// the same answer.

import type { Cluster, ReplicaSchedulingStrategy, StaticClusterWeight } from "../../shared/api/types.ts";
import { clusterMatches } from "./placement.ts";

/** What divideReplicas divides, and over which clusters. */
export interface DivisionInput {
  /** The template's replica field. */
  replicas: number;
  /** The placed, schedulable clusters, in any order. */
  clusters: Cluster[];
  /** Absent means Duplicated. */
  strategy?: ReplicaSchedulingStrategy;
  /**
   * Cluster name → replicas of this workload it can hold, for dynamicWeight and Aggregated. Count
   * the replicas the workload already runs there, or a full cluster would shed its own.
   */
  available?: Record<string, number>;
  /** Cluster name → the last assignment; equal remainders go where they were, so less moves. */
  previous?: Record<string, number>;
  /**
   * Cluster name → the most it takes under static weights (a cluster replicas moved away from:
   * unschedulable-moves.ts); it wins over a minReplicas. Dynamic weights and Aggregated read it
   * through `available`.
   */
  caps?: Record<string, number>;
}

/** One cluster's share. */
export interface ClusterReplicas {
  name: string;
  replicas: number;
}

/** Every given cluster's share, sorted by name; `message` is set exactly when `unplaced` > 0. */
export interface Division {
  assignments: ClusterReplicas[];
  unplaced: number;
  message?: string;
}

/** Malformed input (a negative or fractional count, an unknown mode); terminal: retrying cannot fix it. */
export class DivisionError extends Error {
  /** The offending field, e.g. `replicaScheduling.weightPreference.staticWeightList[1].weight`. */
  readonly field: string;
  constructor(field: string, reason: string) {
    super(`${field} ${reason}`);
    this.name = "DivisionError";
    this.field = field;
  }
}

const STRATEGY = "replicaScheduling";
const WEIGHTS = `${STRATEGY}.weightPreference.staticWeightList`;

/** Each cluster's replicas under the strategy; throws DivisionError on malformed input. */
export function divideReplicas(input: DivisionInput): Division {
  const { replicas, strategy } = input;
  const names = clusterNames(input.clusters);
  checkCount("replicas", replicas);
  const available = checkCounts("available", input.available);
  const previous = checkCounts("previous", input.previous);
  checkStrategy(strategy);

  if (strategy === undefined || strategy.replicaSchedulingType === "Duplicated") {
    return answer(names, new Map(names.map((name) => [name, replicas])), 0, replicas, "");
  }
  if (names.length === 0) return answer(names, new Map(), replicas, replicas, "no cluster to place them on");
  if (strategy.replicaDivisionPreference === "Aggregated") return aggregate(names, replicas, available);

  const preference = strategy.weightPreference;
  if (preference?.dynamicWeight === "AvailableReplicas") {
    // Karmada: dynamicWeight, when set, wins over staticWeightList.
    return dynamicWeights(names, replicas, available, previous);
  }
  const list = preference?.staticWeightList ?? [];
  if (list.length === 0) {
    // Karmada's default: Divided without a preference, or Weighted without weights, weighs every
    // cluster the same.
    const caps = checkCounts("caps", input.caps);
    const shares = names.map((name) => ({ name, weight: 1n, min: 0, max: caps.get(name) ?? Infinity }));
    const { given, unplaced } = divideByWeight(replicas, shares, previous);
    return answer(names, given, unplaced, replicas, "");
  }
  return staticWeights(input.clusters, names, replicas, list, previous, checkCounts("caps", input.caps));
}

// A cluster takes the first entry that matches it; one no entry matches gets weight 0 and no
// minimum, so nothing. `available` plays no part: static weights are static (Karmada's too), and
// capacity-aware division is what dynamicWeight is for.
function staticWeights(
  clusters: Cluster[],
  names: string[],
  replicas: number,
  list: StaticClusterWeight[],
  previous: Map<string, number>,
  caps: Map<string, number>,
): Division {
  const shares: Share[] = clusters.map((cluster) => {
    const name = cluster.metadata.name ?? "";
    const entry = list.find((e) => clusterMatches(e.targetCluster, cluster));
    if (entry === undefined) return { name, weight: 0n, min: 0, max: 0 };
    const max = Math.min(entry.maxReplicas ?? Infinity, caps.get(name) ?? Infinity);
    return { name, weight: BigInt(entry.weight), min: Math.min(entry.minReplicas ?? 0, max), max };
  });
  const { given, unplaced } = divideByWeight(replicas, shares, previous);
  const reason = shares.some((s) => s.weight > 0n)
    ? "every cluster with a weight is at its maxReplicas"
    : "no cluster has a weight above 0";
  return answer(names, given, unplaced, replicas, reason);
}

// Weights are the room each cluster reports (none reported → 0), and no cluster gets more than its
// room: Karmada refuses the whole division when the fleet cannot hold it; we place what fits and
// report the rest. When no cluster reports any room (capacity not yet known, or stale), the weights
// fall back to equal and nothing is capped, rather than taking a running workload to zero.
function dynamicWeights(names: string[], replicas: number, available: Map<string, number>, previous: Map<string, number>): Division {
  const room = (name: string): number => available.get(name) ?? 0;
  const anyRoom = names.some((name) => room(name) > 0);
  const shares: Share[] = names.map((name) =>
    anyRoom ? { name, weight: BigInt(room(name)), min: 0, max: room(name) } : { name, weight: 1n, min: 0, max: Infinity },
  );
  const { given, unplaced } = divideByWeight(replicas, shares, previous);
  return answer(names, given, unplaced, replicas, `the clusters can hold only ${replicas - unplaced} of them`);
}

// As few clusters as hold the replicas: most room first (name for ties), each filled to its room.
// A cluster with no report holds nothing; when none reports, everything goes to the first by name.
function aggregate(names: string[], replicas: number, available: Map<string, number>): Division {
  const given = new Map<string, number>();
  let left = replicas;
  if (!names.some((name) => available.has(name))) {
    given.set([...names].sort(compareStrings)[0] ?? "", replicas);
    left = 0;
  } else {
    const room = (name: string): number => available.get(name) ?? 0;
    const order = [...names].sort((a, b) => room(b) - room(a) || compareStrings(a, b));
    for (const name of order) {
      const take = Math.min(room(name), left);
      given.set(name, take);
      left -= take;
    }
  }
  return answer(names, given, left, replicas, `the clusters can hold only ${replicas - left} of them`);
}

interface Share {
  name: string;
  /** BigInt so replicas × weight stays exact for any safe-integer inputs. */
  weight: bigint;
  min: number;
  /** Infinity when the cluster has no maximum. */
  max: number;
}

interface Slot {
  share: Share;
  given: number;
}

function divideByWeight(replicas: number, shares: Share[], previous: Map<string, number>): { given: Map<string, number>; unplaced: number } {
  const byWeight = shares
    .map((share): Slot => ({ share, given: 0 }))
    .sort((a, b) => compareBigints(b.share.weight, a.share.weight) || compareStrings(a.share.name, b.share.name));

  // Minimums first, highest weight first, while replicas last. A weight-0 cluster gets only this.
  let left = replicas;
  for (const slot of byWeight) {
    slot.given = Math.min(slot.share.min, left);
    left -= slot.given;
  }

  let open = byWeight.filter((slot) => slot.share.weight > 0n && slot.given < slot.share.max);
  while (left > 0 && open.length > 0) {
    const total = BigInt(left);
    const weightSum = open.reduce((sum, slot) => sum + slot.share.weight, 0n);
    // Water-filling: whoever's exact share reaches its room is pinned at its maximum and leaves.
    // Pinning only raises the others' shares, so pinning all of them in one pass is safe; each pass
    // removes a cluster, so this ends.
    const full = open.filter(
      (slot) => slot.share.max !== Infinity && total * slot.share.weight >= BigInt(slot.share.max - slot.given) * weightSum,
    );
    if (full.length > 0) {
      for (const slot of full) {
        left -= slot.share.max - slot.given;
        slot.given = slot.share.max;
      }
      open = open.filter((slot) => !full.includes(slot));
      continue;
    }
    // Nobody's exact share reaches its room, so floor + 1 never passes a maximum either.
    const parts = open.map((slot) => {
      const product = total * slot.share.weight;
      const floor = Number(product / weightSum);
      slot.given += floor;
      left -= floor;
      return { slot, remainder: product % weightSum };
    });
    parts.sort(
      (a, b) =>
        compareBigints(b.remainder, a.remainder) ||
        keepsSeat(b.slot, previous) - keepsSeat(a.slot, previous) ||
        compareBigints(b.slot.share.weight, a.slot.share.weight) ||
        compareStrings(a.slot.share.name, b.slot.share.name),
    );
    for (const part of parts.slice(0, left)) part.slot.given += 1;
    left = 0;
  }
  return { given: new Map(byWeight.map((slot) => [slot.share.name, slot.given])), unplaced: left };
}

// 1 when the cluster had more than its floor last time, so the extra seat stays where it was.
function keepsSeat(slot: Slot, previous: Map<string, number>): number {
  return (previous.get(slot.share.name) ?? 0) > slot.given ? 1 : 0;
}

function answer(names: string[], given: Map<string, number>, unplaced: number, replicas: number, reason: string): Division {
  const assignments = [...names].sort(compareStrings).map((name) => ({ name, replicas: given.get(name) ?? 0 }));
  if (unplaced === 0) return { assignments, unplaced };
  return { assignments, unplaced, message: `${unplaced} of ${replicas} replicas unplaced: ${reason}` };
}

function clusterNames(clusters: Cluster[]): string[] {
  const seen = new Set<string>();
  clusters.forEach((cluster, i) => {
    const name = cluster.metadata.name;
    if (name === undefined || name === "") throw new DivisionError(`clusters[${i}].metadata.name`, "is required");
    if (seen.has(name)) throw new DivisionError("clusters", `name ${name} appears twice`);
    seen.add(name);
  });
  return [...seen];
}

function checkStrategy(strategy: ReplicaSchedulingStrategy | undefined): void {
  if (strategy === undefined) return;
  checkOneOf(`${STRATEGY}.replicaSchedulingType`, strategy.replicaSchedulingType, ["Duplicated", "Divided"]);
  if (strategy.replicaDivisionPreference !== undefined) {
    checkOneOf(`${STRATEGY}.replicaDivisionPreference`, strategy.replicaDivisionPreference, ["Aggregated", "Weighted"]);
  }
  const preference = strategy.weightPreference;
  if (preference === undefined) return;
  if (preference.dynamicWeight !== undefined) {
    checkOneOf(`${STRATEGY}.weightPreference.dynamicWeight`, preference.dynamicWeight, ["AvailableReplicas"]);
  }
  const list: unknown = preference.staticWeightList ?? [];
  if (!Array.isArray(list)) throw new DivisionError(WEIGHTS, "must be a list");
  list.forEach((entry: StaticClusterWeight, i) => {
    const field = `${WEIGHTS}[${i}]`;
    if (typeof entry?.targetCluster !== "object" || entry.targetCluster === null) {
      throw new DivisionError(`${field}.targetCluster`, "is required");
    }
    checkCount(`${field}.weight`, entry.weight);
    if (entry.minReplicas !== undefined) checkCount(`${field}.minReplicas`, entry.minReplicas);
    if (entry.maxReplicas !== undefined) checkCount(`${field}.maxReplicas`, entry.maxReplicas);
    if (entry.minReplicas !== undefined && entry.maxReplicas !== undefined && entry.minReplicas > entry.maxReplicas) {
      throw new DivisionError(`${field}.minReplicas`, `must not exceed maxReplicas (${entry.minReplicas} > ${entry.maxReplicas})`);
    }
  });
}

function checkOneOf(field: string, value: unknown, allowed: string[]): void {
  if (typeof value !== "string" || !allowed.includes(value)) {
    throw new DivisionError(field, `must be one of ${allowed.join(", ")}, got ${show(value)}`);
  }
}

function checkCounts(field: string, counts: Record<string, number> | undefined): Map<string, number> {
  const map = new Map<string, number>();
  for (const [name, count] of Object.entries(counts ?? {})) {
    checkCount(`${field}.${name}`, count);
    map.set(name, count);
  }
  return map;
}

function checkCount(field: string, value: unknown): void {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new DivisionError(field, `must be a non-negative integer, got ${show(value)}`);
  }
}

function show(value: unknown): string {
  return typeof value === "number" ? String(value) : JSON.stringify(value) ?? String(value);
}

function compareBigints(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
