// What the Admin API's Rollout call reads and answers (issue 23), pure: the request's verb as a
// command, a rollout's state laid out by the plan's groups, and one line saying what a command
// changed. The I/O is admin-rollout.ts's.
import type { ClusterRollout, RolloutState } from "../../shared/api/types.ts";
import type { RolloutGroupInfo, RolloutResponse } from "../../shared/gen/flotilla/v1alpha1/admin.ts";
import type { RolloutCommand } from "../rollout/rollout-commands.ts";
import type { PlannedGroup } from "../rollout/rollout-groups.ts";

export const ROLLOUT_VERBS = ["status", "pause", "resume", "approve", "abort", "undo"] as const;

/** The request's verb: status (a read, also when empty), a command, or why it is neither. */
export function rolloutAction(verb: string, group: string): { status: true } | { command: RolloutCommand } | { error: string } {
  const v = verb === "" ? "status" : verb;
  if (!(ROLLOUT_VERBS as readonly string[]).includes(v)) return { error: `unknown rollout verb ${JSON.stringify(verb)}: choose one of ${ROLLOUT_VERBS.join(", ")}` };
  if (group !== "" && v !== "approve") return { error: `a group is for approve only, not ${v}` };
  if (v === "status") return { status: true };
  if (v === "approve") return { command: group === "" ? { verb: "approve" } : { verb: "approve", group } };
  return { command: { verb: v as "pause" | "resume" | "abort" | "undo" } };
}

/**
 * The state laid out by the plan's groups, in rollout order; a cluster the state has no entry for
 * shows empty (the controller has not recorded it yet), and clusters the state lists but no group
 * holds (no longer scheduled) come last, in a group with no name.
 */
export function rolloutView(state: RolloutState | undefined, groups: readonly PlannedGroup[], noState: string): Omit<RolloutResponse, "template" | "change"> {
  const told = new Map((state?.clusters ?? []).map((c) => [c.name, c]));
  const info = (name: string, c: ClusterRollout | undefined) => ({ name, revision: c?.revision ?? "", phase: c?.phase ?? "", since: c?.since ?? "", message: c?.message ?? "" });
  const planned = new Set(groups.flatMap((g) => g.clusters));
  const out: RolloutGroupInfo[] = groups.map((g) => ({ name: g.name, approval: g.approval, clusters: g.clusters.map((n) => info(n, told.get(n))) }));
  const unplanned = (state?.clusters ?? []).filter((c) => !planned.has(c.name));
  if (unplanned.length > 0) out.push({ name: "", approval: "None", clusters: unplanned.map((c) => info(c.name, c)) });
  if (state === undefined) return { phase: "", revision: "", stableRevision: "", message: noState, waitingFor: "", paused: false, approvals: [], groups: out };
  return {
    phase: state.phase,
    revision: state.revision,
    stableRevision: state.stableRevision,
    message: state.message ?? "",
    waitingFor: state.waitingFor ?? "",
    paused: state.paused === true,
    approvals: state.approvals ?? [],
    groups: out,
  };
}

/** What a command did, as one line (the state it acted on, and the one it left). */
export function commandChange(command: RolloutCommand, before: RolloutState, after: RolloutState): string {
  const of = `the rollout of revision ${after.revision}`;
  const phase = before.phase === after.phase ? after.phase : `${before.phase} → ${after.phase}`;
  switch (command.verb) {
    case "pause":
      return `paused ${of} (${phase})`;
    case "resume":
      return `resumed ${of} (${phase})`;
    case "approve": {
      const given = (after.approvals ?? []).filter((a) => !(before.approvals ?? []).includes(a));
      const gates = given.length > 0 ? given.join(", ") : `${command.group === undefined ? before.waitingFor : `group ${command.group}`} (approved already)`;
      return `approved ${gates} in ${of} (${phase})`;
    }
    case "abort":
      return `aborted ${of} (${phase}): every cluster keeps the revision it runs`;
    case "undo":
      return `undid ${of} (${phase}): rolling back to ${after.stableRevision}`;
  }
}
