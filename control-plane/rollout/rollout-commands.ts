// What a user's `flotillactl rollout pause|resume|approve|abort|undo` does to a rollout's state
// (issue 23): pure; the planner (wave-plan.ts) then acts on the result. A command that makes no
// sense in the rollout's phase is refused with why, and changes nothing.
import type { RolloutState } from "../../shared/api/types.ts";

export type RolloutCommand = { verb: "pause" } | { verb: "resume" } | { verb: "approve"; group?: string } | { verb: "abort" } | { verb: "undo" };

const DONE = new Set(["Succeeded", "RolledBack", "Aborted"]);

/** The state after the command, or why it is refused. */
export function applyCommand(state: RolloutState | undefined, command: RolloutCommand, now: number): { state: RolloutState } | { refused: string } {
  if (state === undefined) return { refused: "no rollout: the template has had one revision only" };
  const s: RolloutState = structuredClone(state);
  const done = DONE.has(s.phase);
  switch (command.verb) {
    case "pause":
      if (done) return { refused: `the rollout of revision ${s.revision} is ${s.phase}: nothing to pause` };
      s.paused = true;
      if (s.phase !== "RollingBack") s.phase = "Paused";
      s.message = "paused by a user: flotillactl rollout resume";
      return { state: s };
    case "resume": {
      if (s.phase !== "Paused" && s.paused !== true) return { refused: `the rollout of revision ${s.revision} is ${s.phase}, not paused` };
      delete s.paused;
      // A rollback that failed somewhere: try those clusters again.
      const failedBack = s.clusters.filter((c) => c.revision === s.stableRevision && c.revision !== s.revision && c.phase === "Failed");
      if (failedBack.length > 0) {
        for (const c of failedBack) {
          Object.assign(c, { phase: "Updating", since: new Date(now).toISOString(), updatedAt: new Date(now).toISOString() });
          delete c.message;
        }
        s.phase = "RollingBack";
      } else if (s.phase !== "RollingBack") {
        // Going on past failures accepts them: only new ones count against maxFailures.
        s.acceptedFailures = s.clusters.filter((c) => c.phase === "Failed" && c.revision === s.revision).length;
        s.phase = "Progressing";
      }
      delete s.message;
      return { state: s };
    }
    case "approve": {
      const gates = command.group === undefined ? (s.waitingFor === undefined ? [] : [s.waitingFor]) : [`BeforeGroup/${command.group}`, `AfterGroup/${command.group}`];
      if (gates.length === 0) return { refused: `the rollout of revision ${s.revision} waits for no approval (${s.phase})` };
      s.approvals = [...new Set([...(s.approvals ?? []), ...gates])].sort();
      if (s.phase === "WaitingForApproval" && s.waitingFor !== undefined && gates.includes(s.waitingFor)) {
        s.phase = "Progressing";
        delete s.waitingFor;
        delete s.message;
      }
      return { state: s };
    }
    case "abort":
      if (done) return { refused: `the rollout of revision ${s.revision} is ${s.phase}: nothing to abort` };
      s.phase = "Aborted";
      delete s.paused;
      s.message = "aborted by a user: every cluster keeps the revision it runs until the template changes";
      return { state: s };
    case "undo":
      if (s.revision === s.stableRevision) return { refused: `revision ${s.revision} succeeded everywhere: to go back, change the template back (that is a new rollout)` };
      if (s.phase === "RollingBack" || s.phase === "RolledBack") return { refused: `the rollout of revision ${s.revision} is ${s.phase} already` };
      s.phase = "RollingBack";
      delete s.paused;
      s.message = `undone by a user: rolling back to ${s.stableRevision}`;
      return { state: s };
  }
}
