// A rollout's waves over the clusters a template is scheduled to (issue 23): the policy's groups
// resolved to cluster names, counts and percentages resolved to numbers. Pure.
import type { Cluster, IntOrPercent, ResourceBinding, RolloutStrategy } from "../../shared/api/types.ts";
import { parseDuration } from "../../shared/duration.ts";
import { matchesLabelSelector } from "../../shared/label-selector.ts";

/** The name of the last group: the clusters no group names. */
export const REST_GROUP = "rest";

export interface PlannedGroup {
  name: string;
  /** Its clusters, by name. */
  clusters: string[];
  /** How many of them update at once (≥ 1). */
  maxConcurrency: number;
  approval: "None" | "BeforeGroup" | "AfterGroup";
}

/** The whole plan a rollout follows. */
export interface RolloutPlan {
  groups: PlannedGroup[];
  minSuccessMs: number;
  progressDeadlineMs: number;
  /** Failed clusters tolerated. */
  maxFailures: number;
  /** Clusters that may be unhealthy at once while more start. */
  maxUnavailable: number;
  onFailure: "Pause" | "Rollback";
}

export const DEFAULT_PROGRESS_DEADLINE_MS = 10 * 60_000;

/**
 * A count, or a percentage of `of` rounded up (so "10%" of 3 is 1, never 0 unless it is "0%").
 * Undefined gives `fallback`. Throws on anything else (the CRD refuses it at apply time).
 */
export function resolveCount(value: IntOrPercent | undefined, of: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value === "number") {
    if (!Number.isInteger(value) || value < 0) throw new Error(`${value} is not a count`);
    return value;
  }
  const m = /^(\d{1,3})%$/.exec(value);
  if (m === null || Number(m[1]) > 100) throw new Error(`${JSON.stringify(value)} is neither a count nor a percentage`);
  return Math.ceil((Number(m[1]) * of) / 100);
}

/**
 * The plan for a strategy over the scheduled clusters. With `groups`, a cluster belongs to the
 * first group that names it or whose selector matches it, and clusters no group takes form a
 * last group ("rest"); empty groups are left out. With `clustersPerGroup`, waves of that many
 * clusters in name order. With neither, one wave of all of them.
 */
export function planOf(strategy: RolloutStrategy, clusters: readonly Cluster[]): RolloutPlan {
  const names = clusters.map((c) => c.metadata.name ?? "").sort();
  const groups: PlannedGroup[] = [];
  const concurrency = (value: IntOrPercent | undefined, size: number) => Math.max(1, Math.min(size, resolveCount(value, size, size)));
  if (strategy.groups !== undefined && strategy.groups.length > 0) {
    const taken = new Set<string>();
    for (const g of strategy.groups) {
      const members = clusters
        .filter((c) => {
          const name = c.metadata.name ?? "";
          if (taken.has(name)) return false;
          return (g.clusterNames ?? []).includes(name) || (g.clusterSelector !== undefined && matchesLabelSelector(g.clusterSelector, c.metadata.labels));
        })
        .map((c) => c.metadata.name ?? "")
        .sort();
      for (const n of members) taken.add(n);
      if (members.length > 0) groups.push({ name: g.name, clusters: members, maxConcurrency: concurrency(g.maxConcurrency, members.length), approval: g.approval ?? "None" });
    }
    const rest = names.filter((n) => !taken.has(n));
    if (rest.length > 0) groups.push({ name: REST_GROUP, clusters: rest, maxConcurrency: rest.length, approval: "None" });
  } else if (strategy.clustersPerGroup !== undefined && names.length > 0) {
    const size = Math.max(1, resolveCount(strategy.clustersPerGroup, names.length, names.length));
    for (let i = 0; i < names.length; i += size) {
      const members = names.slice(i, i + size);
      groups.push({ name: `group-${i / size + 1}`, clusters: members, maxConcurrency: members.length, approval: "None" });
    }
  } else if (names.length > 0) {
    groups.push({ name: "all", clusters: names, maxConcurrency: names.length, approval: "None" });
  }
  return {
    groups,
    minSuccessMs: strategy.minSuccessTime === undefined ? 0 : parseDuration(strategy.minSuccessTime),
    progressDeadlineMs: strategy.progressDeadline === undefined ? DEFAULT_PROGRESS_DEADLINE_MS : parseDuration(strategy.progressDeadline),
    maxFailures: resolveCount(strategy.maxFailures, names.length, 0),
    maxUnavailable: resolveCount(strategy.maxUnavailable, names.length, names.length),
    onFailure: strategy.onFailure ?? "Pause",
  };
}

/**
 * The plan of a binding's rollout over its target clusters, each as the cache has it; a cluster
 * gone from the cache keeps its place by name (no selector matches it).
 */
export function planOfBinding(strategy: RolloutStrategy, binding: ResourceBinding, clusterNamed: (name: string) => Cluster | undefined): RolloutPlan {
  const clusters = binding.spec.clusters.map((t): Cluster => clusterNamed(t.name) ?? { apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name: t.name }, spec: {} });
  return planOf(strategy, clusters);
}
