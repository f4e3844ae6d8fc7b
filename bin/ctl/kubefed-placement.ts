// KubeFed's placement semantics (sigs.k8s.io/kubefed pkg/controller/util/placement.go, read for
// its meaning) as a Flotilla clusterAffinity, for `flotillactl migrate kubefed` (issue 39). Pure.
//
// KubeFed: `placement.clusters` (even an empty list) wins over `clusterSelector`; no clusters and
// no selector selects no cluster; an empty selector selects every cluster; a namespaced object is
// placed only where its namespace's FederatedNamespace is (the intersection). Flotilla: every
// criterion of a clusterAffinity must hold, and no affinity selects every cluster.
import type { ClusterAffinity, LabelSelector, LabelSelectorRequirement, ReplicaSchedulingStrategy, StaticClusterWeight } from "../../shared/api/types.ts";

/** The clusters a placement selects: none, or those meeting both criteria (each absent means no limit). */
export type Placement = { none: true } | { none?: false; names?: string[]; selector?: LabelSelector };

export const NO_CLUSTERS: Placement = { none: true };
export const ALL_CLUSTERS: Placement = {};

/**
 * A cluster name no cluster can hold (a name is a DNS-1123 label, and this has an upper-case
 * letter), both named and excluded: the affinity that selects no cluster. Flotilla reads an empty
 * clusterNames as no limit, as Karmada does, so KubeFed's "no clusters" needs a criterion that fails.
 */
export const NO_CLUSTER_NAME = "KubeFed-placed-nowhere";

/** A Federated object's (or FederatedNamespace's) `spec.placement`, as KubeFed reads it. */
export function kubefedPlacement(placement: unknown): Placement {
  const p = (placement ?? {}) as { clusters?: unknown; clusterSelector?: unknown };
  if (Array.isArray(p.clusters)) {
    const names = [...new Set(p.clusters.map((c) => String((c as { name?: unknown } | null)?.name ?? "")).filter((n) => n !== ""))].sort();
    return names.length === 0 ? NO_CLUSTERS : { names };
  }
  if (p.clusterSelector === undefined || p.clusterSelector === null) return NO_CLUSTERS;
  const s = p.clusterSelector as LabelSelector;
  const selector: LabelSelector = {
    ...(s.matchLabels !== undefined && Object.keys(s.matchLabels).length > 0 ? { matchLabels: { ...s.matchLabels } } : {}),
    ...(s.matchExpressions !== undefined && s.matchExpressions.length > 0 ? { matchExpressions: s.matchExpressions.map((e) => ({ ...e })) } : {}),
  };
  return Object.keys(selector).length === 0 ? ALL_CLUSTERS : { selector };
}

/** The clusters both placements select. */
export function intersect(a: Placement, b: Placement): Placement {
  if (a.none === true || b.none === true) return NO_CLUSTERS;
  let names = a.names ?? b.names;
  if (a.names !== undefined && b.names !== undefined) names = a.names.filter((n) => b.names?.includes(n));
  if (names !== undefined && names.length === 0) return NO_CLUSTERS;
  const selector = a.selector === undefined ? b.selector : b.selector === undefined ? a.selector : mergeSelectors(a.selector, b.selector);
  if (selector === null) return NO_CLUSTERS;
  return { ...(names === undefined ? {} : { names }), ...(selector === undefined ? {} : { selector }) };
}

/** Both selectors at once, or null when their matchLabels contradict each other (no cluster has two values for a key). */
function mergeSelectors(a: LabelSelector, b: LabelSelector): LabelSelector | null {
  const labels: Record<string, string> = { ...a.matchLabels };
  for (const [k, v] of Object.entries(b.matchLabels ?? {})) {
    if (labels[k] !== undefined && labels[k] !== v) return null;
    labels[k] = v;
  }
  const expressions: LabelSelectorRequirement[] = [...(a.matchExpressions ?? []), ...(b.matchExpressions ?? [])];
  return { ...(Object.keys(labels).length > 0 ? { matchLabels: labels } : {}), ...(expressions.length > 0 ? { matchExpressions: expressions } : {}) };
}

/** The policy's clusterAffinity for a placement: undefined selects every cluster. */
export function affinityOf(p: Placement): ClusterAffinity | undefined {
  if (p.none === true) return { clusterNames: [NO_CLUSTER_NAME], exclude: [NO_CLUSTER_NAME] };
  if (p.names === undefined && p.selector === undefined) return undefined;
  return { ...(p.names === undefined ? {} : { clusterNames: p.names }), ...(p.selector === undefined ? {} : { labelSelector: p.selector }) };
}

/** A ReplicaSchedulingPreference's spec (scheduling.kubefed.io/v1alpha1), and Federation v1's replica-set-preferences. */
export interface ReplicaPreferences {
  totalReplicas?: number;
  rebalance?: boolean;
  intersectWithClusterSelector?: boolean;
  clusters?: Record<string, { weight?: number; minReplicas?: number; maxReplicas?: number } | null>;
}

/**
 * Where a workload with replica preferences goes, and how its replicas divide. KubeFed's scheduler
 * places it on every cluster unless intersectWithClusterSelector keeps the object's own placement;
 * clusters without a preference (and no `"*"`) get no replicas, so they are left out; the
 * namespace's placement bounds it still (the caller intersects). Each named cluster's preference
 * comes first, `"*"` (every other cluster) last: a cluster takes the first entry that matches it.
 */
export function replicaPlacement(prefs: ReplicaPreferences, own: Placement): { placement: Placement; replicaScheduling: ReplicaSchedulingStrategy } {
  const clusters = prefs.clusters ?? {};
  const named = Object.keys(clusters).filter((k) => k !== "*").sort();
  const candidates = prefs.intersectWithClusterSelector === true ? own : ALL_CLUSTERS;
  const placement = clusters["*"] !== undefined ? candidates : intersect(candidates, named.length === 0 ? NO_CLUSTERS : { names: named });
  const entry = (targetCluster: ClusterAffinity, c: { weight?: number; minReplicas?: number; maxReplicas?: number } | null | undefined): StaticClusterWeight => ({
    targetCluster,
    weight: c?.weight ?? 0,
    ...(c?.minReplicas !== undefined && c.minReplicas > 0 ? { minReplicas: c.minReplicas } : {}),
    ...(c?.maxReplicas !== undefined && c.maxReplicas !== null ? { maxReplicas: c.maxReplicas } : {}),
  });
  const staticWeightList = named.map((name) => entry({ clusterNames: [name] }, clusters[name]));
  if (clusters["*"] !== undefined) staticWeightList.push(entry({}, clusters["*"]));
  return {
    placement,
    replicaScheduling: {
      replicaSchedulingType: "Divided",
      replicaDivisionPreference: "Weighted",
      weightPreference: { staticWeightList },
      ...(prefs.rebalance === true ? { rebalance: true } : {}),
    },
  };
}
