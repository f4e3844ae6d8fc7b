import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ClusterRollout, RolloutState } from "../../shared/api/types.ts";
import { applyCommand, type RolloutCommand } from "./rollout-commands.ts";

const T = "2026-11-24T10:00:00.000Z";
const NOW = Date.parse("2026-11-24T11:00:00Z");
const c = (name: string, revision: string, phase: ClusterRollout["phase"]): ClusterRollout => ({ name, revision, phase, since: T });
const rollout = (o: Partial<RolloutState>): RolloutState => ({ revision: "B", stableRevision: "A", phase: "Progressing", clusters: [c("m1", "B", "Soaking"), c("m2", "A", "Waiting")], ...o });

describe("applyCommand", () => {
  const table: { name: string; state: RolloutState | undefined; command: RolloutCommand; want: Partial<RolloutState> | RegExp }[] = [
    { name: "pause a progressing rollout", state: rollout({}), command: { verb: "pause" }, want: { phase: "Paused", paused: true } },
    { name: "pause a finished one: refused", state: rollout({ phase: "Succeeded" }), command: { verb: "pause" }, want: /Succeeded: nothing to pause/ },
    { name: "resume a user's pause", state: rollout({ phase: "Paused", paused: true }), command: { verb: "resume" }, want: { phase: "Progressing", acceptedFailures: 0 } },
    {
      name: "resume past failures accepts them",
      state: rollout({ phase: "Paused", message: "1 cluster failed", clusters: [c("m1", "B", "Failed"), c("m2", "A", "Waiting")] }),
      command: { verb: "resume" },
      want: { phase: "Progressing", acceptedFailures: 1 },
    },
    { name: "resume what is not paused: refused", state: rollout({}), command: { verb: "resume" }, want: /Progressing, not paused/ },
    { name: "approve the gate waited for", state: rollout({ phase: "WaitingForApproval", waitingFor: "BeforeGroup/main" }), command: { verb: "approve" }, want: { phase: "Progressing", approvals: ["BeforeGroup/main"] } },
    { name: "approve a group ahead of time", state: rollout({}), command: { verb: "approve", group: "main" }, want: { phase: "Progressing", approvals: ["AfterGroup/main", "BeforeGroup/main"] } },
    { name: "approve with nothing waited for: refused", state: rollout({}), command: { verb: "approve" }, want: /waits for no approval/ },
    { name: "abort", state: rollout({}), command: { verb: "abort" }, want: { phase: "Aborted" } },
    { name: "undo rolls back", state: rollout({}), command: { verb: "undo" }, want: { phase: "RollingBack" } },
    { name: "undo a revision that succeeded everywhere: refused", state: rollout({ stableRevision: "B", phase: "Succeeded" }), command: { verb: "undo" }, want: /change the template back/ },
    { name: "no rollout at all", state: undefined, command: { verb: "pause" }, want: /no rollout/ },
  ];
  for (const t of table) {
    it(t.name, () => {
      const got = applyCommand(t.state, t.command, NOW);
      if (t.want instanceof RegExp) {
        assert.ok("refused" in got, JSON.stringify(got));
        assert.match(got.refused, t.want);
        return;
      }
      assert.ok("state" in got, JSON.stringify(got));
      for (const [k, v] of Object.entries(t.want)) assert.deepEqual(got.state[k as keyof RolloutState], v, k);
    });
  }

  it("resuming a failed rollback tries the clusters that failed to go back again", () => {
    const state = rollout({ phase: "Paused", clusters: [{ ...c("m1", "A", "Failed"), message: "not healthy" }, c("m2", "A", "Waiting")] });
    const got = applyCommand(state, { verb: "resume" }, NOW);
    assert.ok("state" in got);
    assert.equal(got.state.phase, "RollingBack");
    assert.deepEqual(got.state.clusters[0], { name: "m1", revision: "A", phase: "Updating", since: new Date(NOW).toISOString(), updatedAt: new Date(NOW).toISOString() });
  });

  it("never changes the state it was given", () => {
    const state = rollout({});
    const before = structuredClone(state);
    applyCommand(state, { verb: "abort" }, NOW);
    assert.deepEqual(state, before);
  });
});
