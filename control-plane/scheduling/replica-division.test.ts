import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { StaticClusterWeight } from "../../shared/api/types.ts";
import { DivisionError, divideReplicas } from "./replica-division.ts";
import type { DivisionInput } from "./replica-division.ts";
import { type Case, all, divided, duplicated, dynamic, entry, fleet, member1, member2, runDivisionCases, weighted } from "./replica-division.fixtures.ts";

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

];

describe("divideReplicas: duplicated, static weights, bounds, equal weights, stability", () => runDivisionCases(cases));

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
