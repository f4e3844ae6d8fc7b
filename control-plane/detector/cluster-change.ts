// Which templates one Cluster's change can reschedule: pure. The binding controller used to
// reschedule every template on any label, spec or readiness flap of any cluster; at thousands of
// clusters a flap a second would keep it rescheduling the whole fleet.
import type { Cluster, Placement, PropagationPolicy } from "../../shared/api/types.ts";
import { canonicalJson } from "../../shared/content-hash.ts";
import { clusterMatches, clusterReady } from "../scheduling/placement.ts";

/** A Cluster as it was when last seen (undefined: new) and as it is (undefined: gone). */
export interface ClusterChange {
  before: Cluster | undefined;
  after: Cluster | undefined;
}

/** What the index answers: the bindings that place on a cluster, and those a policy placed. */
export interface BindingLookup {
  targeting(cluster: string): string[];
  evictingFrom(cluster: string): string[];
  placedBy(policy: PropagationPolicy): string[];
}

/**
 * The template keys to reschedule: the templates of every policy whose schedule the change can
 * alter, and the bindings that place on the cluster (their targets or evictions may change). When
 * only readiness changed, of the latter only those evicting from it: graceful eviction reads a
 * target's readiness only once the schedule has dropped it, and a schedule that reads readiness
 * is its policy's, counted above.
 */
export function keysAffected(name: string, change: ClusterChange, policies: Iterable<PropagationPolicy>, lookup: BindingLookup): Set<string> {
  const keys = new Set(readinessOnly(change) ? lookup.evictingFrom(name) : lookup.targeting(name));
  for (const p of policies) if (placementAffected(p.spec.placement, change)) for (const k of lookup.placedBy(p)) keys.add(k);
  return keys;
}

/** Whether only the Ready condition differs (of what the binding controller watches: labels, spec, unjoin, readiness). */
export function readinessOnly({ before, after }: ClusterChange): boolean {
  if (before === undefined || after === undefined) return false;
  if ((before.metadata.deletionTimestamp === undefined) !== (after.metadata.deletionTimestamp === undefined)) return false;
  if (canonicalJson(before.spec ?? {}) !== canonicalJson(after.spec ?? {})) return false;
  return canonicalJson(before.metadata.labels ?? {}) === canonicalJson(after.metadata.labels ?? {});
}

/**
 * Whether the change can alter where a placement puts a template (see scheduling/schedule.ts).
 * A cluster no affinity term selects, before or after, never enters the schedule. Otherwise its
 * coming, going, unjoin or spec (fields, taints, acceptance) always can. Labels count through the
 * affinity terms (compared term by term) and spread constraints by label. Readiness counts only
 * where the scheduler reads it: Divided replicas go to schedulable clusters only, and an affinity
 * group is chosen by whether one of its clusters is schedulable; spread constraints are counted in
 * too, to be safe. A Duplicated placement keeps a cluster through a readiness flap, and the
 * bindings on that cluster (graceful eviction) are rescheduled anyway.
 */
export function placementAffected(placement: Placement | undefined, { before, after }: ClusterChange): boolean {
  const terms = placement?.clusterAffinities !== undefined && placement.clusterAffinities.length > 0 ? placement.clusterAffinities : [placement?.clusterAffinity];
  const selection = (c: Cluster | undefined) => terms.map((t) => c !== undefined && (t === undefined || clusterMatches(t, c)));
  const was = selection(before);
  const is = selection(after);
  if (!was.includes(true) && !is.includes(true)) return false;
  if (before === undefined || after === undefined) return true;
  if ((before.metadata.deletionTimestamp === undefined) !== (after.metadata.deletionTimestamp === undefined)) return true;
  if (canonicalJson(before.spec ?? {}) !== canonicalJson(after.spec ?? {})) return true;
  if (was.some((s, i) => s !== is[i])) return true;
  const spread = placement?.spreadConstraints ?? [];
  if (canonicalJson(before.metadata.labels ?? {}) !== canonicalJson(after.metadata.labels ?? {}) && spread.some((s) => s.spreadByLabel !== undefined)) return true;
  if (clusterReady(before) === clusterReady(after)) return false;
  return placement?.replicaScheduling?.replicaSchedulingType === "Divided" || terms.length > 1 || spread.length > 0;
}
