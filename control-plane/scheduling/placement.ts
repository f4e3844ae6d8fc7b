// Which clusters a placement's clusterAffinity selects (Karmada's util.ClusterMatches): every
// criterion given must hold. Readiness and taints are applied later, by the scheduler.

import { clusterReady } from "../../shared/cluster-ready.ts";
import type { Cluster, ClusterAffinity, ClusterSpec, FieldSelector } from "../../shared/api/types.ts";
import { matchesLabelSelector } from "../../shared/label-selector.ts";

const FIELD_KEYS: readonly string[] = ["provider", "region", "zone"];

/** Names of the clusters the affinity selects (all when it is undefined), sorted ascending. */
export function selectClusters(affinity: ClusterAffinity | undefined, clusters: Cluster[]): string[] {
  const selected = new Set<string>();
  for (const cluster of clusters) {
    const name = cluster.metadata.name;
    if (!name) continue;
    if (affinity === undefined || clusterMatches(affinity, cluster)) selected.add(name);
  }
  return [...selected].sort(compareStrings);
}

/** Whether one cluster meets every criterion of the affinity; `{}` matches every cluster. */
export function clusterMatches(affinity: ClusterAffinity, cluster: Cluster): boolean {
  return affinityMismatch(affinity, cluster) === undefined;
}

/** The first criterion of the affinity a cluster fails (in the order they are checked), or undefined when it matches. */
export type AffinityCriterion = "exclude" | "clusterNames" | "labelSelector" | "fieldSelector";

/** Which criterion of the affinity keeps the cluster out; clusterMatches is its absence (explain reads the criterion). */
export function affinityMismatch(affinity: ClusterAffinity, cluster: Cluster): AffinityCriterion | undefined {
  const name = cluster.metadata.name ?? "";
  if (affinity.exclude?.includes(name)) return "exclude";
  if (affinity.clusterNames !== undefined && affinity.clusterNames.length > 0 && !affinity.clusterNames.includes(name)) {
    return "clusterNames";
  }
  if (!matchesLabelSelector(affinity.labelSelector, cluster.metadata.labels)) return "labelSelector";
  if (affinity.fieldSelector !== undefined && !fieldSelectorMatches(affinity.fieldSelector, cluster.spec ?? {})) {
    return "fieldSelector";
  }
  return undefined;
}

// Karmada reads an unset or empty field as absent: In never holds for it and NotIn always does.
// A malformed expression (unknown key or operator, no values) never holds, so selects nothing.
function fieldSelectorMatches(selector: FieldSelector, spec: ClusterSpec): boolean {
  const expressions: unknown = selector.matchExpressions ?? [];
  if (!Array.isArray(expressions)) return false;
  return expressions.every((e: FieldSelectorExpression) => {
    if (typeof e !== "object" || e === null || !FIELD_KEYS.includes(e.key)) return false;
    if (!Array.isArray(e.values) || e.values.length === 0) return false;
    const value = spec[e.key] || undefined;
    if (e.operator === "In") return value !== undefined && e.values.includes(value);
    if (e.operator === "NotIn") return value === undefined || !e.values.includes(value);
    return false;
  });
}

type FieldSelectorExpression = NonNullable<FieldSelector["matchExpressions"]>[number];

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export { clusterReady };
