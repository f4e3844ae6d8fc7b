import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster, ClusterAffinity, ReplicaSchedulingStrategy, StaticClusterWeight } from "../../shared/api/types.ts";
import { DivisionError, divideReplicas } from "./replica-division.ts";
import type { DivisionInput } from "./replica-division.ts";

function cluster(name: string, labels: Record<string, string> = {}): Cluster {
  return { apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name, labels }, spec: {} };
}

const member1 = cluster("member1", { tier: "gold" });
const member2 = cluster("member2", { tier: "gold" });
const member3 = cluster("member3", { tier: "silver" });
const fleet = [member1, member2, member3];

const duplicated: ReplicaSchedulingStrategy = { replicaSchedulingType: "Duplicated" };
const divided: ReplicaSchedulingStrategy = { replicaSchedulingType: "Divided" };
const aggregated: ReplicaSchedulingStrategy = { replicaSchedulingType: "Divided", replicaDivisionPreference: "Aggregated" };
const dynamic: ReplicaSchedulingStrategy = {
  replicaSchedulingType: "Divided",
  replicaDivisionPreference: "Weighted",
  weightPreference: { dynamicWeight: "AvailableReplicas" },
};

function weighted(...staticWeightList: StaticClusterWeight[]): ReplicaSchedulingStrategy {
  return { replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted", weightPreference: { staticWeightList } };
}

/** A weight entry for the named clusters, or for every cluster (`{}`, KubeFed's "*") when none are named. */
function entry(target: string[] | ClusterAffinity, weight: number, bounds: { min?: number; max?: number } = {}): StaticClusterWeight {
  const targetCluster = Array.isArray(target) ? (target.length > 0 ? { clusterNames: target } : {}) : target;
  return { targetCluster, weight, minReplicas: bounds.min, maxReplicas: bounds.max };
}
const all: string[] = [];

interface Case {
  name: string;
  replicas: number;
  clusters?: Cluster[];
  strategy?: ReplicaSchedulingStrategy;
  available?: Record<string, number>;
  previous?: Record<string, number>;
  /** Written in name order: the answer must come back sorted, every cluster listed. */
  want: Record<string, number>;
  unplaced?: number;
  message?: RegExp;
}

const cases: Case[] = [
  // ---- Duplicated ----
  { name: "no strategy: every cluster gets every replica", replicas: 5, want: { member1: 5, member2: 5, member3: 5 } },
  { name: "Duplicated: every cluster gets every replica", replicas: 7, strategy: duplicated, want: { member1: 7, member2: 7, member3: 7 } },
  {
    name: "Duplicated ignores a weight preference",
    replicas: 4,
    strategy: { ...weighted(entry(["member1"], 1)), replicaSchedulingType: "Duplicated" },
    want: { member1: 4, member2: 4, member3: 4 },
  },
  { name: "Duplicated over no clusters: nothing assigned, nothing unplaced", replicas: 3, clusters: [], strategy: duplicated, want: {} },

  // ---- the example DESIGN §3 and issue 4 require ----
  {
    name: "DESIGN example: 9 replicas, member1 weight 1, member2 weight 2, no catch-all → 3, 6, 0",
    replicas: 9,
    strategy: weighted(entry(["member1"], 1), entry(["member2"], 2)),
    want: { member1: 3, member2: 6, member3: 0 },
  },

  // ---- static weights ----
  {
    name: "weights divide proportionally",
    replicas: 10,
    strategy: weighted(entry(["member1"], 1), entry(["member2"], 1), entry(["member3"], 3)),
    want: { member1: 2, member2: 2, member3: 6 },
  },
  {
    // 8 × 2/10 = 1.6, 8 × 3/10 = 2.4, 8 × 5/10 = 4.0: the spare replica goes to the largest fraction,
    // not to the heaviest cluster.
    name: "the spare replica goes to the largest remainder (Hamilton), so the sum is exact",
    replicas: 8,
    strategy: weighted(entry(["member1"], 2), entry(["member2"], 3), entry(["member3"], 5)),
    want: { member1: 2, member2: 2, member3: 4 },
  },
  {
    name: "equal remainders go to the higher weight",
    replicas: 2,
    strategy: weighted(entry(["member1"], 1), entry(["member2"], 3)),
    want: { member1: 0, member2: 2, member3: 0 },
  },
  {
    name: "equal remainders and weights go by name",
    replicas: 10,
    strategy: weighted(entry(all, 1)),
    want: { member1: 4, member2: 3, member3: 3 },
  },
  {
    name: "catch-all after a specific entry: the specific one wins for its cluster",
    replicas: 8,
    strategy: weighted(entry(["member1"], 2), entry(all, 1)),
    want: { member1: 4, member2: 2, member3: 2 },
  },
  {
    name: "first matching entry wins, even over a later one with a higher weight",
    replicas: 6,
    strategy: weighted(entry(all, 1), entry(["member1"], 5)),
    want: { member1: 2, member2: 2, member3: 2 },
  },
  {
    name: "entries select clusters by labels",
    replicas: 8,
    strategy: weighted(entry({ labelSelector: { matchLabels: { tier: "gold" } } }, 1), entry({ labelSelector: { matchLabels: { tier: "silver" } } }, 2)),
    want: { member1: 2, member2: 2, member3: 4 },
  },
  {
    name: "a cluster no entry matches takes nothing, not even what the others cannot hold",
    replicas: 4,
    strategy: weighted(entry(["member1"], 1, { max: 1 })),
    want: { member1: 1, member2: 0, member3: 0 },
    unplaced: 3,
    message: /^3 of 4 replicas unplaced: every cluster with a weight is at its maxReplicas$/,
  },
  {
    name: "an entry that matches no cluster changes nothing",
    replicas: 6,
    strategy: weighted(entry(["gone"], 100, { min: 5 }), entry(all, 1)),
    want: { member1: 2, member2: 2, member3: 2 },
  },

  // ---- minimums and maximums ----
  {
    name: "minimums first, then the rest by weight",
    replicas: 10,
    strategy: weighted(entry(["member1"], 1, { min: 4 }), entry(all, 1)),
    want: { member1: 6, member2: 2, member3: 2 },
  },
  {
    name: "minimums go out by weight, highest first, while replicas last",
    replicas: 5,
    strategy: weighted(entry(["member1"], 1, { min: 3 }), entry(["member2"], 3, { min: 3 }), entry(["member3"], 2, { min: 3 })),
    want: { member1: 0, member2: 3, member3: 2 },
  },
  {
    name: "minimums of equal weight go by name",
    replicas: 4,
    strategy: weighted(entry(all, 1, { min: 2 })),
    want: { member1: 2, member2: 2, member3: 0 },
  },
  {
    name: "weight 0 takes only its minimum",
    replicas: 10,
    strategy: weighted(entry(["member1"], 0, { min: 2 }), entry(all, 1)),
    want: { member1: 2, member2: 4, member3: 4 },
  },
  {
    name: "weight 0 without a minimum takes nothing",
    replicas: 6,
    strategy: weighted(entry(["member1"], 0), entry(all, 1)),
    want: { member1: 0, member2: 3, member3: 3 },
  },
  {
    name: "a capped cluster's overflow flows to the others",
    replicas: 12,
    strategy: weighted(entry(["member1"], 2, { max: 2 }), entry(all, 1)),
    want: { member1: 2, member2: 5, member3: 5 },
  },
  {
    // member1 capped at 1; the other 11 split 1:2 → 3.67, 7.33.
    name: "overflow flows by weight",
    replicas: 12,
    strategy: weighted(entry(["member1"], 1, { max: 1 }), entry(["member2"], 1), entry(["member3"], 2)),
    want: { member1: 1, member2: 4, member3: 7 },
  },
  {
    // First pass: 4 each, member1 capped at 1. Second pass: 5.5 each, member2 capped at 5.
    name: "overflow cascades: a cluster reaches its maximum only after another's overflow",
    replicas: 12,
    strategy: weighted(entry(["member1"], 1, { max: 1 }), entry(["member2"], 1, { max: 5 }), entry(["member3"], 1)),
    want: { member1: 1, member2: 5, member3: 6 },
  },
  {
    name: "the maximum counts the minimum",
    replicas: 9,
    strategy: weighted(entry(["member1"], 1, { min: 2, max: 3 }), entry(all, 1)),
    want: { member1: 3, member2: 3, member3: 3 },
  },
  {
    name: "minimum equal to maximum pins a cluster",
    replicas: 8,
    strategy: weighted(entry(["member1"], 5, { min: 2, max: 2 }), entry(all, 1)),
    want: { member1: 2, member2: 3, member3: 3 },
  },
  {
    name: "every cluster at its maximum: the rest stays unplaced and says so",
    replicas: 10,
    strategy: weighted(entry(all, 1, { max: 2 })),
    want: { member1: 2, member2: 2, member3: 2 },
    unplaced: 4,
    message: /^4 of 10 replicas unplaced: every cluster with a weight is at its maxReplicas$/,
  },
  {
    name: "weight-0 clusters keep only their minimum when the weighted ones are capped",
    replicas: 10,
    strategy: weighted(entry(["member1"], 1, { max: 2 }), entry(all, 0, { min: 1 })),
    want: { member1: 2, member2: 1, member3: 1 },
    unplaced: 6,
    message: /^6 of 10 replicas unplaced/,
  },
  {
    name: "no cluster has a weight: only minimums, the rest unplaced",
    replicas: 5,
    strategy: weighted(entry(all, 0, { min: 1 })),
    want: { member1: 1, member2: 1, member3: 1 },
    unplaced: 2,
    message: /^2 of 5 replicas unplaced: no cluster has a weight above 0$/,
  },
  {
    name: "no entry matches any cluster: everything unplaced",
    replicas: 3,
    strategy: weighted(entry(["gone"], 1)),
    want: { member1: 0, member2: 0, member3: 0 },
    unplaced: 3,
    message: /no cluster has a weight above 0/,
  },

  // ---- Divided without weights: equal weights (Karmada's default) ----
  { name: "Divided without a preference: equal weights", replicas: 7, strategy: divided, want: { member1: 3, member2: 2, member3: 2 } },
  {
    name: "Weighted without weightPreference: equal weights",
    replicas: 6,
    strategy: { replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted" },
    want: { member1: 2, member2: 2, member3: 2 },
  },
  { name: "empty staticWeightList: equal weights", replicas: 6, strategy: weighted(), want: { member1: 2, member2: 2, member3: 2 } },
  {
    name: "Divided over no clusters: everything unplaced",
    replicas: 5,
    clusters: [],
    strategy: divided,
    want: {},
    unplaced: 5,
    message: /^5 of 5 replicas unplaced: no cluster to place them on$/,
  },

  // ---- previous: equal remainders stay where they were ----
  {
    name: "previous: the spare replica stays where it was",
    replicas: 10,
    strategy: weighted(entry(all, 1)),
    previous: { member1: 3, member2: 3, member3: 4 },
    want: { member1: 3, member2: 3, member3: 4 },
  },
  {
    name: "previous: scaling 10 → 11 moves one replica only",
    replicas: 11,
    strategy: weighted(entry(all, 1)),
    previous: { member1: 3, member2: 4, member3: 3 },
    want: { member1: 4, member2: 4, member3: 3 },
  },
  {
    name: "previous beats weight among equal remainders",
    replicas: 2,
    strategy: weighted(entry(["member1"], 1), entry(["member2"], 3)),
    previous: { member1: 1, member2: 1 },
    want: { member1: 1, member2: 1, member3: 0 },
  },
  {
    name: "previous never beats a larger remainder",
    replicas: 8,
    strategy: weighted(entry(["member1"], 2), entry(["member2"], 3), entry(["member3"], 5)),
    previous: { member1: 1, member2: 2, member3: 5 },
    want: { member1: 2, member2: 2, member3: 4 },
  },
  {
    name: "previous for a cluster no longer placed is ignored",
    replicas: 10,
    strategy: divided,
    previous: { gone: 10 },
    want: { member1: 4, member2: 3, member3: 3 },
  },

  // ---- dynamic weights ----
  {
    name: "dynamicWeight: weights are the available replicas",
    replicas: 6,
    strategy: dynamic,
    available: { member1: 10, member2: 20, member3: 30 },
    want: { member1: 1, member2: 2, member3: 3 },
  },
  {
    name: "dynamicWeight wins over staticWeightList",
    replicas: 6,
    strategy: { ...dynamic, weightPreference: { dynamicWeight: "AvailableReplicas", staticWeightList: [entry(["member1"], 100)] } },
    available: { member1: 10, member2: 20, member3: 30 },
    want: { member1: 1, member2: 2, member3: 3 },
  },
  {
    name: "dynamicWeight: a cluster that reports nothing weighs 0",
    replicas: 6,
    strategy: dynamic,
    available: { member1: 4, member2: 8 },
    want: { member1: 2, member2: 4, member3: 0 },
  },
  {
    name: "dynamicWeight: never more than a cluster can hold; the rest is unplaced",
    replicas: 10,
    strategy: dynamic,
    available: { member1: 2, member2: 3, member3: 0 },
    want: { member1: 2, member2: 3, member3: 0 },
    unplaced: 5,
    message: /^5 of 10 replicas unplaced: the clusters can hold only 5 of them$/,
  },
  {
    name: "dynamicWeight: no cluster reports room → equal weights",
    replicas: 6,
    strategy: dynamic,
    want: { member1: 2, member2: 2, member3: 2 },
  },
  {
    name: "dynamicWeight: every cluster reports 0 → equal weights, uncapped",
    replicas: 7,
    strategy: dynamic,
    available: { member1: 0, member2: 0, member3: 0 },
    want: { member1: 3, member2: 2, member3: 2 },
  },

  // ---- Aggregated ----
  {
    name: "Aggregated: one cluster when the roomiest can hold them all",
    replicas: 10,
    strategy: aggregated,
    available: { member1: 4, member2: 12, member3: 8 },
    want: { member1: 0, member2: 10, member3: 0 },
  },
  {
    name: "Aggregated: fills the roomiest first, then the next",
    replicas: 15,
    strategy: aggregated,
    available: { member1: 4, member2: 12, member3: 8 },
    want: { member1: 0, member2: 12, member3: 3 },
  },
  {
    name: "Aggregated: equal room goes by name",
    replicas: 7,
    strategy: aggregated,
    available: { member1: 3, member2: 5, member3: 5 },
    want: { member1: 0, member2: 5, member3: 2 },
  },
  {
    name: "Aggregated: what no cluster can hold is unplaced",
    replicas: 30,
    strategy: aggregated,
    available: { member1: 4, member2: 12, member3: 8 },
    want: { member1: 4, member2: 12, member3: 8 },
    unplaced: 6,
    message: /^6 of 30 replicas unplaced: the clusters can hold only 24 of them$/,
  },
  {
    name: "Aggregated: a cluster that reports nothing holds nothing when others report",
    replicas: 10,
    strategy: aggregated,
    available: { member2: 4 },
    want: { member1: 0, member2: 4, member3: 0 },
    unplaced: 6,
    message: /^6 of 10 replicas unplaced/,
  },
  {
    name: "Aggregated: every cluster reports 0 → everything unplaced",
    replicas: 3,
    strategy: aggregated,
    available: { member1: 0, member2: 0, member3: 0 },
    want: { member1: 0, member2: 0, member3: 0 },
    unplaced: 3,
    message: /can hold only 0 of them/,
  },
  {
    name: "Aggregated: no cluster reports → everything on the first cluster by name",
    replicas: 10,
    strategy: aggregated,
    want: { member1: 10, member2: 0, member3: 0 },
  },
  {
    name: "Aggregated ignores weights",
    replicas: 5,
    strategy: { ...weighted(entry(["member3"], 10)), replicaDivisionPreference: "Aggregated" },
    available: { member1: 9, member2: 1 },
    want: { member1: 5, member2: 0, member3: 0 },
  },

  // ---- zero replicas ----
  { name: "0 replicas, Duplicated: all zeros", replicas: 0, strategy: duplicated, want: { member1: 0, member2: 0, member3: 0 } },
  {
    name: "0 replicas, Weighted with minimums: all zeros",
    replicas: 0,
    strategy: weighted(entry(all, 1, { min: 2 })),
    want: { member1: 0, member2: 0, member3: 0 },
  },
  {
    name: "0 replicas, dynamicWeight: all zeros",
    replicas: 0,
    strategy: dynamic,
    available: { member1: 5 },
    want: { member1: 0, member2: 0, member3: 0 },
  },
  { name: "0 replicas, Aggregated: all zeros", replicas: 0, strategy: aggregated, want: { member1: 0, member2: 0, member3: 0 } },
  { name: "0 replicas over no clusters: nothing unplaced", replicas: 0, clusters: [], strategy: divided, want: {} },

  // ---- sorting ----
  {
    name: "assignments sort by code unit, not by locale",
    replicas: 4,
    clusters: [cluster("b"), cluster("B"), cluster("a"), cluster("A")],
    strategy: divided,
    want: { A: 1, B: 1, a: 1, b: 1 },
  },
];

describe("divideReplicas", () => {
  for (const c of cases) {
    const clusters = c.clusters ?? fleet;
    const orders: [string, Cluster[]][] = [
      ["", clusters],
      [" (clusters reversed)", [...clusters].reverse()],
      [" (clusters rotated)", [...clusters.slice(1), ...clusters.slice(0, 1)]],
    ];
    for (const [suffix, order] of orders) {
      it(c.name + suffix, () => {
        const got = divideReplicas({ replicas: c.replicas, clusters: order, strategy: c.strategy, available: c.available, previous: c.previous });
        assert.deepEqual(
          got.assignments,
          Object.entries(c.want).map(([name, replicas]) => ({ name, replicas })),
        );
        assert.equal(got.unplaced, c.unplaced ?? 0);
        if (c.message === undefined) assert.equal(got.message, undefined);
        else assert.match(got.message ?? "", c.message);
      });
    }
  }

  it("does not modify its input", () => {
    const input: DivisionInput = {
      replicas: 12,
      clusters: fleet,
      strategy: weighted(entry(["member1"], 1, { min: 1, max: 1 }), entry(all, 2)),
      available: { member1: 3 },
      previous: { member2: 6 },
    };
    const before = structuredClone(input);
    divideReplicas(input);
    assert.deepEqual(input, before);
  });

  it("stays exact when replicas × weight passes 2^53", () => {
    const replicas = 2 ** 31 - 1;
    const weights = [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER - 1, 7];
    const got = divideReplicas({
      replicas,
      clusters: fleet,
      strategy: weighted(...weights.map((w, i) => entry([`member${i + 1}`], w))),
    });
    const sum = weights.reduce((s, w) => s + BigInt(w), 0n);
    assert.equal(got.assignments.reduce((s, a) => s + a.replicas, 0), replicas);
    got.assignments.forEach((a, i) => {
      const floor = (BigInt(replicas) * BigInt(weights[i] ?? 0)) / sum;
      assert.ok(BigInt(a.replicas) === floor || BigInt(a.replicas) === floor + 1n, `${a.name} got ${a.replicas}, exact share ${floor}.x`);
    });
  });

  // Seeded, so a failure reproduces: the totals always add up, and no cluster passes its bounds.
  it("holds its invariants over many random weight lists", () => {
    let seed = 42;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const names = ["m0", "m1", "m2", "m3", "m4"];
    const clusters = names.map((name) => cluster(name));
    let unplacedRounds = 0;
    for (let round = 0; round < 2000; round++) {
      const list: StaticClusterWeight[] = [];
      for (const name of names) {
        if (random(5) === 0) continue; // unmatched
        const min = random(3) === 0 ? random(4) : undefined;
        const max = random(3) === 0 ? (min ?? 0) + random(5) : undefined;
        list.push(entry([name], random(4), { min, max }));
      }
      const replicas = random(30);
      const got = divideReplicas({ replicas, clusters, strategy: weighted(...list) });
      const label = JSON.stringify({ replicas, list });
      const placed = got.assignments.reduce((sum, a) => sum + a.replicas, 0);
      assert.equal(placed + got.unplaced, replicas, label);
      assert.deepEqual(divideReplicas({ replicas, clusters: [...clusters].reverse(), strategy: weighted(...list) }), got, label);
      if (got.unplaced > 0) unplacedRounds++;
      for (const a of got.assignments) {
        const e = list.find((x) => x.targetCluster.clusterNames?.includes(a.name));
        if (e === undefined) {
          if (list.length > 0) assert.equal(a.replicas, 0, label);
          continue;
        }
        if (e.maxReplicas !== undefined) assert.ok(a.replicas <= e.maxReplicas, label);
        if (e.weight === 0) assert.ok(a.replicas <= (e.minReplicas ?? 0), label);
        // Something unplaced means every weighted cluster is full.
        if (got.unplaced > 0 && e.weight > 0) assert.equal(a.replicas, e.maxReplicas, label);
        // Minimums are met whenever any replica is left over.
        if (got.unplaced > 0) assert.ok(a.replicas >= (e.minReplicas ?? 0), label);
      }
    }
    assert.ok(unplacedRounds > 100, `only ${unplacedRounds} rounds left replicas unplaced`);
  });
});

describe("divideReplicas refuses malformed input", () => {
  const list = `replicaScheduling.weightPreference.staticWeightList`;
  const cases: { name: string; input: DivisionInput; field: string }[] = [
    { name: "negative replicas", input: { replicas: -1, clusters: fleet }, field: "replicas" },
    { name: "fractional replicas", input: { replicas: 1.5, clusters: fleet, strategy: divided }, field: "replicas" },
    { name: "NaN replicas", input: { replicas: NaN, clusters: fleet }, field: "replicas" },
    { name: "replicas beyond a safe integer", input: { replicas: 2 ** 60, clusters: fleet }, field: "replicas" },
    { name: "negative weight", input: { replicas: 3, clusters: fleet, strategy: weighted(entry(["member1"], 1), entry(all, -1)) }, field: `${list}[1].weight` },
    { name: "fractional weight", input: { replicas: 3, clusters: fleet, strategy: weighted(entry(all, 0.5)) }, field: `${list}[0].weight` },
    { name: "negative minReplicas", input: { replicas: 3, clusters: fleet, strategy: weighted(entry(all, 1, { min: -1 })) }, field: `${list}[0].minReplicas` },
    { name: "fractional maxReplicas", input: { replicas: 3, clusters: fleet, strategy: weighted(entry(all, 1, { max: 2.5 })) }, field: `${list}[0].maxReplicas` },
    { name: "minReplicas above maxReplicas", input: { replicas: 3, clusters: fleet, strategy: weighted(entry(all, 1, { min: 3, max: 2 })) }, field: `${list}[0].minReplicas` },
    {
      name: "an entry without targetCluster",
      input: { replicas: 3, clusters: fleet, strategy: weighted({ weight: 1 } as StaticClusterWeight) },
      field: `${list}[0].targetCluster`,
    },
    { name: "bad weights are refused even for 0 replicas", input: { replicas: 0, clusters: fleet, strategy: weighted(entry(all, -2)) }, field: `${list}[0].weight` },
    { name: "negative available", input: { replicas: 3, clusters: fleet, strategy: dynamic, available: { member1: -1 } }, field: "available.member1" },
    { name: "fractional previous", input: { replicas: 3, clusters: fleet, strategy: divided, previous: { member2: 1.5 } }, field: "previous.member2" },
    {
      name: "unknown replicaSchedulingType",
      input: { replicas: 3, clusters: fleet, strategy: { replicaSchedulingType: "Split" as "Divided" } },
      field: "replicaScheduling.replicaSchedulingType",
    },
    {
      name: "unknown replicaDivisionPreference",
      input: { replicas: 3, clusters: fleet, strategy: { replicaSchedulingType: "Divided", replicaDivisionPreference: "Packed" as "Weighted" } },
      field: "replicaScheduling.replicaDivisionPreference",
    },
    {
      name: "unknown dynamicWeight",
      input: { replicas: 3, clusters: fleet, strategy: { ...dynamic, weightPreference: { dynamicWeight: "Cpu" as "AvailableReplicas" } } },
      field: "replicaScheduling.weightPreference.dynamicWeight",
    },
    { name: "a cluster without a name", input: { replicas: 3, clusters: [member1, { ...member2, metadata: {} }] }, field: "clusters[1].metadata.name" },
    { name: "a cluster listed twice", input: { replicas: 3, clusters: [member1, member2, member1] }, field: "clusters" },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.throws(
        () => divideReplicas(c.input),
        (err: unknown) => {
          assert.ok(err instanceof DivisionError, String(err));
          assert.equal(err.field, c.field);
          assert.ok(err.message.startsWith(`${c.field} `), err.message);
          return true;
        },
      );
    });
  }
});
