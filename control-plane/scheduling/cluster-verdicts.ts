// Per cluster, which rule of a policy's placement let a template in or kept it out: the
// scheduler's own predicates (affinity criteria, taints, readiness, acceptance, capacity) applied
// one at a time, in the scheduler's order. It explains the binding's clusters and decides nothing:
// the targets are the binding's, as the scheduler wrote them (explain/ reads these). Pure.
import type { Cluster, ClusterAffinity, LabelSelector, Placement, PropagationPolicy, Taint, TargetCluster } from "../../shared/api/types.ts";
import { clusterAccepted } from "./acceptance.ts";
import { availableReplicas, reportsCapacity, type ResourceAmounts, showAmounts } from "./capacity.ts";
import { type AffinityCriterion, affinityMismatch } from "./placement.ts";
import { schedulable, tolerates } from "./schedule.ts";

/** The rule that kept a cluster out, in the order the scheduler applies them. */
export type FilterRule = "acceptance" | "affinityGroup" | AffinityCriterion | "taint" | "notReady" | "capacity" | "spread";

/** One cluster's verdict: placed (with the rule that selected it), or the rule that kept it out. */
export type ClusterVerdict =
  | { cluster: string; placed: true; replicas?: number; selectedBy: string }
  | { cluster: string; placed: false; rule: FilterRule; detail: string };

export interface VerdictInput {
  policy: PropagationPolicy;
  clusters: readonly Cluster[];
  /** The binding's targets: what the scheduler decided. */
  targets: readonly TargetCluster[];
  /** The placement.clusterAffinities group in use (the schedule outcome's), when the policy has groups. */
  affinityName?: string;
  requireAcceptance?: boolean;
  /** What one replica requests, for a Divided placement's capacity; undefined: capacity not judged. */
  perReplica?: ResourceAmounts;
}

/** Every cluster's verdict, sorted by cluster name. */
export function clusterVerdicts(input: VerdictInput): ClusterVerdict[] {
  const placement = input.policy.spec.placement ?? {};
  const { affinity, path } = affinityInUse(placement, input.affinityName);
  const targets = new Map(input.targets.map((t) => [t.name, t]));
  return [...input.clusters]
    .filter((c) => (c.metadata.name ?? "") !== "")
    .sort((a, b) => ((a.metadata.name ?? "") < (b.metadata.name ?? "") ? -1 : 1))
    .map((c) => {
      const cluster = c.metadata.name ?? "";
      const target = targets.get(cluster);
      if (target !== undefined) return { cluster, placed: true, ...(target.replicas === undefined ? {} : { replicas: target.replicas }), selectedBy: selectedBy(affinity, path) };
      return { cluster, placed: false, ...filterOf(c, input, placement, affinity, path) };
    });
}

function affinityInUse(placement: Placement, name: string | undefined): { affinity: ClusterAffinity | undefined; path: string } {
  const groups = placement.clusterAffinities ?? [];
  if (groups.length === 0) return { affinity: placement.clusterAffinity, path: "clusterAffinity" };
  const group = groups.find((g) => g.affinityName === name) ?? groups[0];
  return { affinity: group, path: `clusterAffinities[${JSON.stringify(group?.affinityName ?? "")}]` };
}

function filterOf(c: Cluster, input: VerdictInput, placement: Placement, affinity: ClusterAffinity | undefined, path: string): { rule: FilterRule; detail: string } {
  const tolerations = placement.clusterTolerations ?? [];
  if (input.requireAcceptance === true && !clusterAccepted(c)) return { rule: "acceptance", detail: "not accepted by an admin (spec.hubAcceptsClient), and the control plane runs with --require-acceptance" };
  const criterion = affinity === undefined ? undefined : affinityMismatch(affinity, c);
  if (affinity !== undefined && criterion !== undefined) {
    const detail = criterionDetail(criterion, affinity, c, path);
    const grouped = (placement.clusterAffinities ?? []).length > 0;
    return grouped ? { rule: "affinityGroup", detail: `outside the affinity group in use: ${detail}` } : { rule: criterion, detail };
  }
  for (const effect of ["NoExecute", "NoSchedule"] as const) {
    const taint = (c.spec?.taints ?? []).find((t) => t.effect === effect && !tolerations.some((x) => tolerates(x, t)));
    if (taint !== undefined) return { rule: "taint", detail: `taint ${showTaint(taint)} not tolerated by placement.clusterTolerations` };
  }
  const divided = placement.replicaScheduling?.replicaSchedulingType === "Divided";
  if (divided && !schedulable(c, tolerations)) return { rule: "notReady", detail: "not Ready, and Divided replicas go only to Ready clusters" };
  if (divided && input.perReplica !== undefined && reportsCapacity(c) && availableReplicas(c, input.perReplica, input.targets) < 1) {
    return { rule: "capacity", detail: `its resource summary has no room for one replica (one requests ${showAmounts(input.perReplica)})` };
  }
  if ((placement.spreadConstraints ?? []).length > 0) return { rule: "spread", detail: "left out by placement.spreadConstraints (or given no replicas by the division)" };
  return { rule: "spread", detail: divided ? "given no replicas by the division" : "eligible, but not in the binding yet (it has not been rescheduled since)" };
}

function criterionDetail(criterion: AffinityCriterion, affinity: ClusterAffinity, c: Cluster, path: string): string {
  const name = c.metadata.name ?? "";
  switch (criterion) {
    case "exclude":
      return `${path}.exclude [${(affinity.exclude ?? []).join(" ")}] names ${name}`;
    case "clusterNames":
      return `not in ${path}.clusterNames [${(affinity.clusterNames ?? []).join(" ")}]`;
    case "labelSelector":
      return `its labels {${showLabels(c.metadata.labels)}} do not match ${path}.labelSelector ${showSelector(affinity.labelSelector)}`;
    case "fieldSelector": {
      const spec = c.spec ?? {};
      const fields = (["provider", "region", "zone"] as const).map((k) => `${k}=${spec[k] ?? ""}`).join(" ");
      const exprs = (affinity.fieldSelector?.matchExpressions ?? []).map((e) => `${e.key} ${e.operator} [${(e.values ?? []).join(" ")}]`).join(", ");
      return `its fields (${fields}) do not match ${path}.fieldSelector {${exprs}}`;
    }
  }
}

function selectedBy(affinity: ClusterAffinity | undefined, path: string): string {
  if (affinity === undefined) return "the placement (no cluster affinity: every cluster)";
  const parts: string[] = [];
  if ((affinity.clusterNames ?? []).length > 0) parts.push(`${path}.clusterNames [${(affinity.clusterNames ?? []).join(" ")}]`);
  if (affinity.labelSelector !== undefined) parts.push(`${path}.labelSelector ${showSelector(affinity.labelSelector)}`);
  if ((affinity.fieldSelector?.matchExpressions ?? []).length > 0) parts.push(`${path}.fieldSelector`);
  if ((affinity.exclude ?? []).length > 0) parts.push(`not in ${path}.exclude`);
  return parts.length === 0 ? `${path} (empty: every cluster)` : parts.join(" and ");
}

/** A taint as kubectl shows it: key=value:Effect. */
export function showTaint(t: Taint): string {
  return `${t.key}${t.value ? `=${t.value}` : ""}:${t.effect}`;
}

function showLabels(labels: Record<string, string> | undefined): string {
  return Object.entries(labels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .sort()
    .join(" ");
}

function showSelector(s: LabelSelector | undefined): string {
  if (s === undefined) return "{}";
  const parts = [showLabels(s.matchLabels), ...(s.matchExpressions ?? []).map((e) => `${e.key} ${e.operator}${e.values ? ` [${e.values.join(" ")}]` : ""}`)].filter((p) => p !== "");
  return `{${parts.join(", ")}}`;
}
