// The WorkloadRebalancer part (issue 22): the leader's controller that turns a user's request for a
// fresh reschedule into each named workload's binding spec.rescheduleTriggeredAt.
import { counterOf } from "../../shared/metrics.ts";
import type { ControlPlaneContext, Part } from "../context.ts";
import { RebalancerController } from "./rebalancer-controller.ts";

export function startRebalancer(ctx: ControlPlaneContext): Part {
  const rebalancer = new RebalancerController({ caches: ctx.caches, rest: ctx.rest, log: ctx.log });
  counterOf(
    "flotilla_workload_rebalancer_actions_total",
    "WorkloadRebalancer actions, by kind: a binding's reschedule requested, a workload without a binding, a rebalancer deleted after its TTL.",
    () => [[{ action: "triggered" }, rebalancer.counts.triggered] as const, [{ action: "not_found" }, rebalancer.counts.notFound] as const, [{ action: "deleted" }, rebalancer.counts.deleted] as const],
    ["action"],
  );
  return {
    leaderControllers: [rebalancer.controller],
    startedLeading: () => rebalancer.enqueueAll(),
  };
}
