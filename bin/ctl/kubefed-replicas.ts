// A ReplicaSchedulingPreference applied to its Federated Deployment or ReplicaSet, for
// `flotillactl migrate kubefed` (issue 39): where the workload goes, how its replicas divide, and
// what adopting would change in the members. Pure.
//
// KubeFed's scheduler writes its result into the Federated object itself: its `placement.clusters`
// and a `/spec/replicas` override for every cluster. Where the object carries them, the division
// Flotilla will make is compared with them: KubeFed's planner rounds its shares differently, and
// without `rebalance` it keeps the counts the clusters already run, so the two may differ.
import type { Cluster, ReplicaSchedulingStrategy } from "../../shared/api/types.ts";
import { selectClusters } from "../../control-plane/scheduling/placement.ts";
import { divideReplicas } from "../../control-plane/scheduling/replica-division.ts";
import { affinityOf, type Placement, replicaPlacement, type ReplicaPreferences, selectorPlacement } from "./kubefed-placement.ts";

export interface PreferredReplicas {
  placement: Placement;
  replicaScheduling: ReplicaSchedulingStrategy;
  /** The template's replicas: the preference's totalReplicas, when it gives one. */
  replicas?: number;
  problems: string[];
}

interface FederatedSpec {
  placement?: unknown;
  overrides?: unknown;
}

/**
 * The preference over a Federated object (`spec`), bounded by its namespace's placement; undefined
 * when KubeFed's scheduler leaves the object as it is (the problem says why).
 */
export function preferredReplicas(prefs: ReplicaPreferences, spec: FederatedSpec, namespace: Placement | undefined, problems: string[]): PreferredReplicas | undefined {
  const planned = replicaPlacement(prefs, selectorPlacement(spec.placement));
  if (planned === undefined) {
    problems.push("the ReplicaSchedulingPreference intersects with the object's clusterSelector, which selects no cluster: KubeFed's scheduler leaves the object as it is, and so does its policy");
    return undefined;
  }
  const out: PreferredReplicas = { ...planned, problems: planned.problems.map((p) => `ReplicaSchedulingPreference ${p}`) };
  if (typeof prefs.totalReplicas === "number") out.replicas = prefs.totalReplicas;
  if (namespace !== undefined && prefs.intersectWithClusterSelector !== true && dropsShares(prefs, namespace)) {
    out.problems.push("KubeFed divides the replicas over every cluster and drops the shares outside the namespace's clusters; Flotilla divides them all among the namespace's clusters");
  }
  const changes = replicaChanges(spec, out);
  if (changes !== undefined) out.problems.push(changes);
  return out;
}

/** Whether the namespace's placement leaves out a cluster the preference may give replicas to (KubeFed then drops its share). */
function dropsShares(prefs: ReplicaPreferences, namespace: Placement): boolean {
  if (namespace.none === true || namespace.selector !== undefined) return true;
  if (namespace.names === undefined) return false;
  const named = Object.keys(prefs.clusters ?? {}).filter((k) => k !== "*");
  const everywhere = named.length === 0 || prefs.clusters?.["*"] !== undefined;
  return everywhere || named.some((n) => !namespace.names?.includes(n));
}

/** The replicas KubeFed's scheduler wrote for each cluster (every placed cluster has one), or undefined when it has not. */
function scheduled(spec: FederatedSpec): Map<string, number> | undefined {
  const names = ((spec.placement as { clusters?: unknown } | undefined)?.clusters ?? []) as { name?: unknown }[];
  if (!Array.isArray(names) || names.length === 0 || !Array.isArray(spec.overrides)) return undefined;
  const written = new Map<string, number>();
  for (const o of spec.overrides as { clusterName?: unknown; clusterOverrides?: unknown }[]) {
    const replicas = Array.isArray(o?.clusterOverrides) ? (o.clusterOverrides as { path?: unknown; value?: unknown }[]).find((c) => c?.path === "/spec/replicas")?.value : undefined;
    if (typeof o?.clusterName === "string" && typeof replicas === "number") written.set(o.clusterName, replicas);
  }
  const out = new Map<string, number>();
  for (const n of names) {
    const value = typeof n?.name === "string" ? written.get(n.name) : undefined;
    if (value === undefined) return undefined;
    out.set(n.name as string, value);
  }
  return out;
}

/** What adopting changes in the replicas KubeFed's scheduler set, as a problem; undefined when nothing (or unknown). */
function replicaChanges(spec: FederatedSpec, preferred: PreferredReplicas): string | undefined {
  const current = scheduled(spec);
  if (current === undefined || preferred.replicas === undefined) return undefined;
  const fleet = [...current.keys()].map((name) => ({ apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name }, spec: {} }) as Cluster);
  const placed = new Set(selectClusters(affinityOf(preferred.placement), fleet));
  let division: Map<string, number>;
  try {
    const d = divideReplicas({ replicas: preferred.replicas, clusters: fleet.filter((c) => placed.has(c.metadata.name ?? "")), strategy: preferred.replicaScheduling, previous: Object.fromEntries(current) });
    division = new Map(d.assignments.map((a) => [a.name, a.replicas]));
  } catch (err) {
    return `the replicas cannot be divided as given: ${err instanceof Error ? err.message : String(err)}`;
  }
  const changed = [...current].filter(([name, n]) => (division.get(name) ?? 0) !== n).map(([name, n]) => `${name} ${n} → ${division.get(name) ?? 0}`);
  if (changed.length === 0) return undefined;
  return `adopting changes the replicas KubeFed's scheduler set (${changed.join(", ")}): its planner rounds by weight differently and, without rebalance, keeps running counts`;
}
