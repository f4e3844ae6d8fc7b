// The ClusterTaintPolicy part (issue 26): the leader's controller that keeps each Cluster's
// spec.taints in step with the policies that target it and its conditions.
import { counterOf } from "../../shared/metrics.ts";
import type { ControlPlaneContext, Part } from "../context.ts";
import { TaintPolicyController } from "./taint-policy-controller.ts";

export function startTaintPolicy(ctx: ControlPlaneContext): Part {
  const taints = new TaintPolicyController({ caches: ctx.caches, rest: ctx.rest, log: ctx.log, recorder: ctx.recorder, allowNoExecute: ctx.opts.allowNoExecuteTaintPolicy ?? false });
  counterOf(
    "flotilla_cluster_taint_policy_actions_total",
    "ClusterTaintPolicy actions, by kind: a Cluster's taints updated, a policy with a NoExecute taint not applied (no --allow-no-execute-taint-policy).",
    () => [[{ action: "updated" }, taints.counts.updated] as const, [{ action: "refused" }, taints.counts.refused] as const],
    ["action"],
  );
  return {
    leaderControllers: [taints.controller],
    startedLeading: () => taints.enqueueAll(),
  };
}
