import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { StaticClusterWeight } from "../../shared/api/types.ts";
import { divideReplicas } from "./replica-division.ts";
import type { DivisionInput } from "./replica-division.ts";
import { type Case, aggregated, all, cluster, divided, duplicated, dynamic, entry, fleet, runDivisionCases, weighted } from "./replica-division.fixtures.ts";

const cases: Case[] = [
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

describe("divideReplicas: dynamic weights, Aggregated, zero replicas, sorting", () => {
  runDivisionCases(cases);

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
