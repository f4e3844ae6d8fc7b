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
  if (p.clusters !== undefined && p.clusters !== null) throw new Error("placement.clusters is not a list");
  if (p.clusterSelector === undefined || p.clusterSelector === null) return NO_CLUSTERS;
  const s = labelSelectorOf(p.clusterSelector);
  const selector: LabelSelector = {
    ...(s.matchLabels !== undefined && Object.keys(s.matchLabels).length > 0 ? { matchLabels: { ...s.matchLabels } } : {}),
    ...(s.matchExpressions !== undefined && s.matchExpressions.length > 0 ? { matchExpressions: s.matchExpressions.map((e) => ({ ...e })) } : {}),
  };
  return Object.keys(selector).length === 0 ? ALL_CLUSTERS : { selector };
}

/** A label selector as KubeFed would unmarshal it, or an error naming what is not one. */
function labelSelectorOf(v: unknown): LabelSelector {
  const isMap = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);
  if (!isMap(v)) throw new Error("placement.clusterSelector is not a label selector");
  const labels = v.matchLabels ?? undefined;
  if (labels !== undefined && (!isMap(labels) || Object.values(labels).some((x) => typeof x !== "string"))) throw new Error("placement.clusterSelector.matchLabels is not a map of strings");
  const expressions = v.matchExpressions ?? undefined;
  if (expressions !== undefined && (!Array.isArray(expressions) || expressions.some((e) => !isMap(e) || typeof e.key !== "string" || e.key === "" || typeof e.operator !== "string"))) {
    throw new Error("placement.clusterSelector.matchExpressions is not a list of {key, operator, values}");
  }
  return { ...(labels === undefined ? {} : { matchLabels: labels as Record<string, string> }), ...(expressions === undefined ? {} : { matchExpressions: expressions as LabelSelectorRequirement[] }) };
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
  clusters?: Record<string, { weight?: number; minReplicas?: number; maxReplicas?: number | null } | null>;
}

/** Which clusters the object's `clusterSelector` alone selects (KubeFed's selectorOnly reading, for intersectWithClusterSelector). */
export function selectorPlacement(placement: unknown): Placement {
  const p = (placement ?? {}) as { clusterSelector?: unknown };
  return kubefedPlacement({ clusterSelector: p.clusterSelector });
}

type Preference = { weight?: number; minReplicas?: number; maxReplicas?: number | null } | null | undefined;

/**
 * Where a workload with replica preferences goes, and how its replicas divide; undefined when
 * KubeFed's scheduler leaves the object alone (intersectWithClusterSelector with an object whose
 * selector selects no cluster: its own clusters and replicas stay). KubeFed's scheduler places it
 * on every cluster, or with intersectWithClusterSelector on those the object's clusterSelector
 * selects (`ownSelector`, never its clusters list); clusters without a preference (and no `"*"`)
 * get no replicas, so they are left out; no preferences at all is `"*": {weight: 1}`. Each named
 * cluster's preference comes first, `"*"` (every other cluster) last: a cluster takes the first
 * entry that matches it. A minimum above its maximum, which KubeFed's planner caps, is capped.
 */
export function replicaPlacement(prefs: ReplicaPreferences, ownSelector: Placement): { placement: Placement; replicaScheduling: ReplicaSchedulingStrategy; problems: string[] } | undefined {
  if (prefs.intersectWithClusterSelector === true && ownSelector.none === true) return undefined;
  const given = prefs.clusters ?? {};
  const clusters: Record<string, Preference> = Object.keys(given).length === 0 ? { "*": { weight: 1 } } : given;
  const named = Object.keys(clusters).filter((k) => k !== "*").sort();
  const candidates = prefs.intersectWithClusterSelector === true ? ownSelector : ALL_CLUSTERS;
  const placement = clusters["*"] !== undefined ? candidates : intersect(candidates, { names: named });
  const problems: string[] = [];
  const entry = (targetCluster: ClusterAffinity, c: Preference, name: string): StaticClusterWeight => {
    const max = c?.maxReplicas ?? undefined;
    let min = c?.minReplicas;
    if (min !== undefined && max !== undefined && min > max) {
      problems.push(`clusters.${name}: minReplicas ${min} above maxReplicas ${max}: capped at ${max}, as KubeFed's planner does`);
      min = max;
    }
    return { targetCluster, weight: c?.weight ?? 0, ...(min !== undefined && min > 0 ? { minReplicas: min } : {}), ...(max !== undefined ? { maxReplicas: max } : {}) };
  };
  const staticWeightList = named.map((name) => entry({ clusterNames: [name] }, clusters[name], name));
  if (clusters["*"] !== undefined) staticWeightList.push(entry({}, clusters["*"], "*"));
  return {
    placement,
    replicaScheduling: {
      replicaSchedulingType: "Divided",
      replicaDivisionPreference: "Weighted",
      weightPreference: { staticWeightList },
      ...(prefs.rebalance === true ? { rebalance: true } : {}),
    },
    problems,
  };
}
