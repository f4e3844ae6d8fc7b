// What applying an object to the control cluster would ship, before it is applied: the same
// policy match, scheduling and rendering the controllers run, on the proposed object, set against
// the Works each cluster receives now. Pure.
import type { KindInterpreter } from "../../shared/interpreter/interpreter.ts";
import type { Cluster, KubeObject, OverridePolicy, PropagationPolicy, ResourceBinding, TargetCluster } from "../../shared/api/types.ts";
import { desiredBinding, type RequiredBy, suspensionHolds } from "../scheduling/binding-spec.ts";
import { bindingPolicyId, claimPolicy } from "../scheduling/policy-match.ts";
import { dividedPlacement, renderClusterWorks } from "../rendering/render-works.ts";
import { placementAfter } from "../scheduling/graceful-eviction.ts";
import { failoverPlacement } from "../scheduling/failover-placement.ts";
import { admittedClusters } from "../scheduling/acceptance.ts";
import { scheduleTemplate } from "../scheduling/schedule.ts";

/** A Work a cluster receives for the template (now), or would receive (planned). */
export interface PlannedWork {
  replicas?: number;
  hash: string;
  manifests: Buffer[];
  /** Why an override cannot apply (then hash is empty and there are no manifests). */
  error?: string;
}

export type Change = "added" | "removed" | "changed" | "unchanged" | "failed" | "suspended";

export interface ClusterPlan {
  cluster: string;
  now?: PlannedWork;
  planned?: PlannedWork;
  change: Change;
}

export interface Plan {
  /** "PropagationPolicy ns/name" or "ClusterPropagationPolicy name"; undefined when none selects it. */
  policy?: string;
  /** Why the policy cannot be scheduled, or why replicas are unplaced. */
  scheduleMessage?: string;
  unplaced: number;
  clusters: ClusterPlan[];
}

export interface PlanInput {
  /** The proposed template, as the control cluster would store it. */
  template: KubeObject;
  policies: PropagationPolicy[];
  /** Clusters that can be placed on (not leaving). */
  liveClusters: Cluster[];
  /** --require-acceptance: clusters not accepted get no new templates. */
  requireAcceptance?: boolean;
  clusterNamed: (name: string) => Cluster | undefined;
  /** Every override policy; renderClusterWorks picks the ones that select the template. */
  overrides: OverridePolicy[];
  /** The template's binding now, if it has one. */
  existing?: ResourceBinding;
  /** The Work a cluster receives for the template now. */
  workNow: (cluster: string) => { hash: string; manifests: Buffer[] } | undefined;
  /** The template kind's interpreter (customizations over the native one); default the native one. */
  interpreter?: KindInterpreter;
}

export function planTemplate(input: PlanInput): Plan {
  const { template, existing } = input;
  const match = claimPolicy(template, input.policies, existing === undefined ? undefined : bindingPolicyId(existing));
  // A dependency (propagateDeps) keeps the clusters its parents need, as its binding says now.
  const requiredBy: RequiredBy[] = (existing?.spec.requiredBy ?? []).map((r) => ({ ...r, ...(existing?.spec.conflictResolution ? { conflictResolution: existing.spec.conflictResolution } : {}) }));
  let targets: TargetCluster[] = [];
  let scheduleMessage: string | undefined;
  let unplaced = 0;
  if (match !== undefined) {
    // Moves of replicas off Unschedulable pods in force cap their clusters, as in the binding controller (none starts in a plan).
    const caps = new Map((existing?.spec.replicaMoves ?? []).map((m) => [m.fromCluster, m.keep]));
    const policy = match.policy;
    // Clusters an application failover holds out stay out (a plan starts no failover itself).
    const failover = failoverPlacement({
      policy,
      existing,
      live: input.liveClusters,
      now: 0,
      evictionPeriodMs: Infinity,
      detect: false,
      schedule: (live) => scheduleTemplate(template, policy, admittedClusters(live, existing?.spec.clusters, input.requireAcceptance ?? false), existing?.spec.clusters, input.interpreter, caps),
    });
    const { schedule } = failover;
    // Graceful evictions in flight stay as they are: a plan shows what ships now, and no eviction
    // ends because of an apply (now and the period only matter for when one does). So it needs no
    // availableSince: with an endless period no clock it could pass would release a copy.
    targets = failover.after(placementAfter({ schedule, existing: failover.existing, policy, live: input.liveClusters, now: 0, evictionPeriodMs: Infinity })).targets;
    scheduleMessage = schedule.error ?? schedule.message;
    unplaced = schedule.unplaced;
  }
  // No policy claims it: it keeps its last placement (DESIGN §11), as the binding controller does.
  const kept = match === undefined && requiredBy.length === 0 && existing !== undefined;
  if (kept) scheduleMessage = "no policy selects it: it keeps its last placement until a policy claims it or it is deleted";
  const binding = kept ? existing : desiredBinding(template, match?.policy, targets, requiredBy, [], input.interpreter);
  const rendered = renderClusterWorks(template, binding.spec.clusters, input.clusterNamed, input.overrides, binding.spec.conflictResolution ?? "Abort", dividedPlacement(binding.spec.placement), input.interpreter);
  const replicasNow = new Map((existing?.spec.clusters ?? []).map((t) => [t.name, t.replicas]));
  const plannedTargets = new Map(binding.spec.clusters.map((t) => [t.name, t]));
  const names = [...new Set([...replicasNow.keys(), ...plannedTargets.keys()])].sort();
  const clusters = names.map((cluster): ClusterPlan => {
    const current = input.workNow(cluster);
    const now = current === undefined ? undefined : { ...replicasOf(replicasNow.get(cluster)), hash: current.hash, manifests: current.manifests };
    const target = plannedTargets.get(cluster);
    const work = rendered.get(cluster);
    const planned: PlannedWork | undefined =
      target === undefined || work === undefined
        ? undefined
        : work.ok
          ? { ...replicasOf(target.replicas), hash: work.hash, manifests: work.manifests }
          : { ...replicasOf(target.replicas), hash: "", manifests: [], error: work.message };
    return { cluster, ...(now ? { now } : {}), ...(planned ? { planned } : {}), change: changeOf(now, planned, suspensionHolds(binding.spec, input.clusterNamed(cluster))) };
  });
  return { ...(match ? { policy: describePolicy(match.policy) } : {}), ...(scheduleMessage ? { scheduleMessage } : {}), unplaced, clusters };
}

function changeOf(now: PlannedWork | undefined, planned: PlannedWork | undefined, suspended: boolean): Change {
  if (planned?.error !== undefined) return "failed";
  if (now?.hash === planned?.hash) return "unchanged";
  // A suspended cluster keeps what it has, and is not told to delete it either.
  if (suspended) return "suspended";
  if (now === undefined) return "added";
  if (planned === undefined) return "removed";
  return "changed";
}

function replicasOf(replicas: number | undefined): { replicas?: number } {
  return replicas === undefined ? {} : { replicas };
}

function describePolicy(p: PropagationPolicy): string {
  return p.kind === "ClusterPropagationPolicy" ? `ClusterPropagationPolicy ${p.metadata.name ?? ""}` : `PropagationPolicy ${p.metadata.namespace ?? ""}/${p.metadata.name ?? ""}`;
}
