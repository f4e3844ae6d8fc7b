// Federation v1's two placement annotations on a plain object, read as `flotillactl migrate kubefed`
// converts them (issue 39). Pure.
// - federation.alpha.kubernetes.io/cluster-selector: a JSON list of {key, operator, values} over
//   the clusters' labels (In, NotIn, Exists, DoesNotExist, Gt, Lt; "=", "==" and "!=" too). One
//   that does not parse placed the object in no cluster.
// - federation.kubernetes.io/replica-set-preferences: a Deployment's or ReplicaSet's replicas over
//   the clusters ({rebalance, clusters: {name or "*": {weight, minReplicas, maxReplicas}}}).
//   Without it, Federation v1 spread them equally over every selected cluster.
import type { LabelSelectorOperator, LabelSelectorRequirement } from "../../shared/api/types.ts";
import { ALL_CLUSTERS, NO_CLUSTERS, type Placement, type ReplicaPreferences } from "./kubefed-placement.ts";

export const V1_CLUSTER_SELECTOR = "federation.alpha.kubernetes.io/cluster-selector";
export const V1_REPLICA_PREFERENCES = "federation.kubernetes.io/replica-set-preferences";

const OPERATORS: Readonly<Record<string, LabelSelectorOperator>> = {
  in: "In",
  "=": "In",
  "==": "In",
  notin: "NotIn",
  "!=": "NotIn",
  exists: "Exists",
  doesnotexist: "DoesNotExist",
  "!": "DoesNotExist",
  gt: "Gt",
  lt: "Lt",
};

/** Whether an object carries either of Federation v1's annotations. */
export function isFederationV1(annotations: Readonly<Record<string, string>> | undefined): boolean {
  return annotations?.[V1_CLUSTER_SELECTOR] !== undefined || annotations?.[V1_REPLICA_PREFERENCES] !== undefined;
}

/** The clusters the cluster-selector annotation selects (every cluster without one), and why it selects none when it is malformed. */
export function v1Placement(annotation: string | undefined): { placement: Placement; problem?: string } {
  if (annotation === undefined) return { placement: ALL_CLUSTERS };
  const none = (why: string) => ({ placement: NO_CLUSTERS, problem: `${V1_CLUSTER_SELECTOR}: ${why}; Federation v1 placed it in no cluster, and so does its policy` });
  let parsed: unknown;
  try {
    parsed = JSON.parse(annotation);
  } catch {
    return none("not JSON");
  }
  if (!Array.isArray(parsed)) return none("not a JSON list");
  const expressions: LabelSelectorRequirement[] = [];
  for (const e of parsed as { key?: unknown; operator?: unknown; values?: unknown }[]) {
    const operator = typeof e?.operator === "string" ? OPERATORS[e.operator.toLowerCase()] : undefined;
    if (typeof e?.key !== "string" || e.key === "" || operator === undefined) return none(`${JSON.stringify(e)} has no key or an unknown operator`);
    const values = Array.isArray(e.values) ? e.values.map(String) : typeof e.values === "string" ? [e.values] : [];
    expressions.push({ key: e.key, operator, ...(operator === "Exists" || operator === "DoesNotExist" ? {} : { values }) });
  }
  return { placement: expressions.length === 0 ? ALL_CLUSTERS : { selector: { matchExpressions: expressions } } };
}

/** The replica-set-preferences annotation as replica preferences; equal weights everywhere without one. */
export function v1ReplicaPreferences(annotation: string | undefined): { prefs: ReplicaPreferences; problem?: string } {
  const equal: ReplicaPreferences = { clusters: { "*": { weight: 1 } } };
  if (annotation === undefined) return { prefs: equal };
  try {
    const parsed = JSON.parse(annotation) as ReplicaPreferences;
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not an object");
    return { prefs: { ...(parsed.rebalance === true ? { rebalance: true } : {}), clusters: parsed.clusters ?? {} } };
  } catch {
    return { prefs: equal, problem: `${V1_REPLICA_PREFERENCES}: not a JSON object of preferences; its replicas are divided equally, as without it` };
  }
}
