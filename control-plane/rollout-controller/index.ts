// The progressive rollout part (issue 23): the leader's rollout controller, and its metrics.
import { counterOf, gaugeOf } from "../../shared/metrics.ts";
import type { ControlPlaneContext, Part } from "../context.ts";
import { RolloutController } from "./rollout-controller.ts";

const ROLLOUT_PHASES = ["Progressing", "WaitingForApproval", "Paused", "Succeeded", "RollingBack", "RolledBack", "Aborted"];
const CLUSTER_PHASES = ["Waiting", "Updating", "Soaking", "Succeeded", "Failed"];

export function startRollout(ctx: ControlPlaneContext): Part {
  const rollout = new RolloutController({
    caches: ctx.caches,
    templates: ctx.templates,
    works: ctx.works,
    revisions: ctx.revisions,
    rest: ctx.rest,
    recorder: ctx.recorder,
    interpreters: ctx.interpreters,
    log: ctx.log,
  });
  ctx.events.on("templateChanged", (k) => rollout.templateChanged(k));
  const count = <T extends string>(phases: readonly string[], of: () => Iterable<T>) => {
    const n = new Map(phases.map((p) => [p, 0]));
    for (const p of of()) n.set(p, (n.get(p) ?? 0) + 1);
    return [...n].map(([phase, v]) => [{ phase }, v] as const);
  };
  gaugeOf("flotilla_rollouts", "Progressive rollouts this leader drives, by phase.", () => count(ROLLOUT_PHASES, () => [...rollout.states.values()].map((s) => s.phase)), ["phase"]);
  gaugeOf(
    "flotilla_rollout_clusters",
    "Clusters in progressive rollouts, by their phase in the rollout.",
    () => count(CLUSTER_PHASES, () => [...rollout.states.values()].flatMap((s) => s.clusters.map((c) => c.phase))),
    ["phase"],
  );
  counterOf("flotilla_rollout_state_writes_total", "Writes of bindings' status.rollout, by outcome (a conflict: the binding changed meanwhile, looked at again).", () => [[{ outcome: "written" }, rollout.counts.writes] as const, [{ outcome: "conflict" }, rollout.counts.conflicts] as const], ["outcome"]);
  return {
    leaderControllers: [rollout.controller],
    startedLeading: () => rollout.enqueueAll(),
  };
}
