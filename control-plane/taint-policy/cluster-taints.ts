// ClusterTaintPolicy's decision (issue 26, Karmada's taint controller): which taints a Cluster
// should carry after the policies that target it looked at its conditions. Pure. Policies run
// oldest first (then by name), so two that disagree settle the same way every time. A taint is
// known by its key and effect. The policies' taints are remembered in an annotation on the Cluster:
// a taint of the same key and effect the user put there first is theirs, never added again and
// never removed (Karmada would remove it); a policy taint the user removed by hand is forgotten.
import type { Cluster, Condition, Taint } from "../../shared/api/types.ts";
import type { ClusterTaintPolicy, MatchCondition } from "../../shared/api/taint-policy.ts";
import { clusterMatches } from "../scheduling/placement.ts";

/** On a Cluster: the taints (key:Effect, comma-separated) that ClusterTaintPolicies added and may remove. */
export const POLICY_TAINTS_ANNOTATION = "flotilla.dev/policy-taints";

export interface TaintDecision {
  /** The Cluster's spec.taints after the policies: the user's in their order, then the policies'. */
  taints: Taint[];
  /** The annotation's new value: the policies' taints on the cluster, sorted ("" when none). */
  owned: string;
  /** Policies not applied because they hold a NoExecute taint and NoExecute is not allowed. */
  refused: string[];
}

/** A taint's identity: key and effect (as Karmada compares them). */
export function taintId(t: { key: string; effect: string }): string {
  return `${t.key}:${t.effect}`;
}

/**
 * The taints a cluster should carry. `now` is the timeAdded of a taint added now; `allowNoExecute`
 * is --allow-no-execute-taint-policy: without it a policy with a NoExecute taint does nothing.
 */
export function clusterTaints(cluster: Cluster, policies: readonly ClusterTaintPolicy[], opts: { now: string; allowNoExecute: boolean }): TaintDecision {
  let taints = [...(cluster.spec?.taints ?? [])];
  const present = (id: string) => taints.some((t) => taintId(t) === id);
  const owned = new Set(ownedTaints(cluster).filter(present));
  const refused: string[] = [];
  const conditions = cluster.status?.conditions ?? [];
  for (const policy of [...policies].sort(olderFirst)) {
    const spec = policy.spec;
    if (spec.targetClusters !== undefined && !clusterMatches(spec.targetClusters, cluster)) continue;
    if (!opts.allowNoExecute && spec.taints.some((t) => t.effect === "NoExecute")) {
      refused.push(policy.metadata.name ?? "");
      continue;
    }
    if (conditionsMatch(conditions, spec.addOnConditions)) {
      for (const t of spec.taints) {
        const id = taintId(t);
        if (present(id)) continue;
        taints.push({ key: t.key, ...(t.value ? { value: t.value } : {}), effect: t.effect, timeAdded: opts.now });
        owned.add(id);
      }
    }
    if (conditionsMatch(conditions, spec.removeOnConditions)) {
      const gone = new Set(spec.taints.map(taintId).filter((id) => owned.has(id)));
      taints = taints.filter((t) => !gone.has(taintId(t)));
      for (const id of gone) owned.delete(id);
    }
  }
  return { taints, owned: [...owned].sort().join(","), refused };
}

/** The policy taints the annotation lists. */
export function ownedTaints(cluster: Cluster): string[] {
  const v = cluster.metadata.annotations?.[POLICY_TAINTS_ANNOTATION] ?? "";
  return v === "" ? [] : v.split(",");
}

/**
 * Whether every match condition holds (ANDed; none: false, so an empty list never acts). A cluster
 * without the condition type matches neither In nor NotIn (Karmada's rule).
 */
export function conditionsMatch(conditions: readonly Condition[], match: readonly MatchCondition[] | undefined): boolean {
  if (match === undefined || match.length === 0) return false;
  return match.every((m) => {
    const c = conditions.find((x) => x.type === m.conditionType);
    if (c === undefined) return false;
    const listed = m.statusValues.includes(c.status);
    return m.operator === "In" ? listed : !listed;
  });
}

function olderFirst(a: ClusterTaintPolicy, b: ClusterTaintPolicy): number {
  const ta = a.metadata.creationTimestamp ?? "";
  const tb = b.metadata.creationTimestamp ?? "";
  if (ta !== tb) return ta < tb ? -1 : 1;
  const na = a.metadata.name ?? "";
  const nb = b.metadata.name ?? "";
  return na < nb ? -1 : na > nb ? 1 : 0;
}
