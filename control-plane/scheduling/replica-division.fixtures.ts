// Test support for the replica division tests: clusters, strategies and the table runner.
import assert from "node:assert/strict";
import { it } from "node:test";
import type { Cluster, ClusterAffinity, ReplicaSchedulingStrategy, StaticClusterWeight } from "../../shared/api/types.ts";
import { divideReplicas } from "./replica-division.ts";

export function cluster(name: string, labels: Record<string, string> = {}): Cluster {
  return { apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name, labels }, spec: {} };
}

export const member1 = cluster("member1", { tier: "gold" });
export const member2 = cluster("member2", { tier: "gold" });
export const member3 = cluster("member3", { tier: "silver" });
export const fleet = [member1, member2, member3];

export const duplicated: ReplicaSchedulingStrategy = { replicaSchedulingType: "Duplicated" };
export const divided: ReplicaSchedulingStrategy = { replicaSchedulingType: "Divided" };
export const aggregated: ReplicaSchedulingStrategy = { replicaSchedulingType: "Divided", replicaDivisionPreference: "Aggregated" };
export const dynamic: ReplicaSchedulingStrategy = {
  replicaSchedulingType: "Divided",
  replicaDivisionPreference: "Weighted",
  weightPreference: { dynamicWeight: "AvailableReplicas" },
};

export function weighted(...staticWeightList: StaticClusterWeight[]): ReplicaSchedulingStrategy {
  return { replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted", weightPreference: { staticWeightList } };
}

/** A weight entry for the named clusters, or for every cluster (`{}`, KubeFed's "*") when none are named. */
export function entry(target: string[] | ClusterAffinity, weight: number, bounds: { min?: number; max?: number } = {}): StaticClusterWeight {
  const targetCluster = Array.isArray(target) ? (target.length > 0 ? { clusterNames: target } : {}) : target;
  return { targetCluster, weight, minReplicas: bounds.min, maxReplicas: bounds.max };
}
export const all: string[] = [];

export interface Case {
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

/** Runs each case with the clusters as given, reversed and rotated: the answer must not depend on order. */
export function runDivisionCases(cases: Case[]): void {
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
}
