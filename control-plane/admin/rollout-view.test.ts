import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RolloutState } from "../../shared/api/types.ts";
import { applyCommand, type RolloutCommand } from "../rollout/rollout-commands.ts";
import type { PlannedGroup } from "../rollout/rollout-groups.ts";
import { commandChange, rolloutAction, rolloutView } from "./rollout-view.ts";
import { progressingPastCanary, T0, waitingForCanary } from "./rollout.fixtures.ts";

describe("rolloutAction: the request's verb", () => {
  const cases: [string, string, ReturnType<typeof rolloutAction>][] = [
    ["", "", { status: true }],
    ["status", "", { status: true }],
    ["pause", "", { command: { verb: "pause" } }],
    ["resume", "", { command: { verb: "resume" } }],
    ["abort", "", { command: { verb: "abort" } }],
    ["undo", "", { command: { verb: "undo" } }],
    ["approve", "", { command: { verb: "approve" } }],
    ["approve", "canary", { command: { verb: "approve", group: "canary" } }],
    ["restart", "", { error: 'unknown rollout verb "restart": choose one of status, pause, resume, approve, abort, undo' }],
    ["Pause", "", { error: 'unknown rollout verb "Pause": choose one of status, pause, resume, approve, abort, undo' }],
    ["pause", "canary", { error: "a group is for approve only, not pause" }],
    ["", "canary", { error: "a group is for approve only, not status" }],
  ];
  for (const [verb, group, want] of cases) it(`${JSON.stringify(verb)} ${JSON.stringify(group)}`, () => assert.deepEqual(rolloutAction(verb, group), want));
});

const groups: PlannedGroup[] = [
  { name: "canary", clusters: ["member1"], maxConcurrency: 1, approval: "AfterGroup" },
  { name: "rest", clusters: ["member2", "member3"], maxConcurrency: 2, approval: "None" },
];
const waiting = waitingForCanary;

describe("rolloutView: the state by the plan's groups", () => {
  it("lays the clusters out in rollout order, with the rollout's header", () => {
    const v = rolloutView(waiting, groups, "unused");
    assert.deepEqual(
      { ...v, groups: v.groups.map((g) => `${g.name}(${g.approval}): ${g.clusters.map((c) => `${c.name}=${c.revision}/${c.phase}`).join(" ")}`) },
      { phase: "WaitingForApproval", revision: "r2", stableRevision: "r1", message: "waiting for approval AfterGroup/canary", waitingFor: "AfterGroup/canary", paused: false, approvals: [], groups: ["canary(AfterGroup): member1=r2/Succeeded", "rest(None): member2=r1/Waiting member3=r1/Waiting"] },
    );
    assert.deepEqual(v.groups[0]?.clusters[0], { name: "member1", revision: "r2", phase: "Succeeded", since: T0, message: "" });
  });
  it("with no state yet: an empty phase, the explanation, and the groups the clusters will go in", () => {
    const v = rolloutView(undefined, groups, "no rollout state yet");
    assert.equal(v.phase, "");
    assert.equal(v.message, "no rollout state yet");
    assert.deepEqual(v.groups.flatMap((g) => g.clusters.map((c) => [g.name, c.name, c.revision, c.phase])), [["canary", "member1", "", ""], ["rest", "member2", "", ""], ["rest", "member3", "", ""]]);
  });
  it("a cluster scheduled since the last record shows empty; one the state lists but no group holds comes last, unnamed", () => {
    const state: RolloutState = { ...waiting, clusters: [waiting.clusters[0]!, { name: "gone", revision: "r1", phase: "Failed", since: T0, message: "UpdateFailed: quota" }] };
    const v = rolloutView(state, groups, "");
    assert.deepEqual(v.groups.map((g) => [g.name, g.clusters.map((c) => `${c.name}:${c.phase}:${c.message}`)]), [["canary", ["member1:Succeeded:"]], ["rest", ["member2::", "member3::"]], ["", ["gone:Failed:UpdateFailed: quota"]]]);
  });
  it("says paused and lists approvals", () => {
    const v = rolloutView({ ...waiting, phase: "Paused", paused: true, approvals: ["BeforeGroup/rest"] }, groups, "");
    assert.equal(v.paused, true);
    assert.deepEqual(v.approvals, ["BeforeGroup/rest"]);
  });
});

describe("commandChange: one line saying what a command did", () => {
  const progressing = progressingPastCanary();
  const cases: [string, RolloutState, RolloutCommand, string][] = [
    ["pause", progressing, { verb: "pause" }, "paused the rollout of revision r2 (Progressing → Paused)"],
    ["resume", { ...progressing, phase: "Paused", paused: true }, { verb: "resume" }, "resumed the rollout of revision r2 (Paused → Progressing)"],
    ["approve what it waits for", waiting, { verb: "approve" }, "approved AfterGroup/canary in the rollout of revision r2 (WaitingForApproval → Progressing)"],
    ["approve a group ahead", progressing, { verb: "approve", group: "rest" }, "approved AfterGroup/rest, BeforeGroup/rest in the rollout of revision r2 (Progressing)"],
    ["approve a group again", { ...progressing, approvals: ["AfterGroup/rest", "BeforeGroup/rest"] }, { verb: "approve", group: "rest" }, "approved group rest (approved already) in the rollout of revision r2 (Progressing)"],
    ["abort", progressing, { verb: "abort" }, "aborted the rollout of revision r2 (Progressing → Aborted): every cluster keeps the revision it runs"],
    ["undo", progressing, { verb: "undo" }, "undid the rollout of revision r2 (Progressing → RollingBack): rolling back to r1"],
  ];
  for (const [name, before, command, want] of cases) {
    it(name, () => {
      const after = applyCommand(before, command, Date.parse(T0));
      assert.ok("state" in after, JSON.stringify(after));
      assert.equal(commandChange(command, before, after.state), want);
    });
  }
});
