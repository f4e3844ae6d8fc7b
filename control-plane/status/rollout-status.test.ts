import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RolloutState } from "../../shared/api/types.ts";
import { fleetRolloutFailure, type MemberRollout, rolloutStatus } from "./rollout-status.ts";

const cond = (type: string, status: string, reason: string) => ({ type, status, reason, message: `${type} ${reason}` });
/** A member Deployment's reported status: generation g observed up to og, `updated` of `replicas` updated. */
const deploy = (g: number, og: number, updated: number, extra: { available?: boolean; progressing?: string } = {}) => ({
  generation: g,
  observedGeneration: og,
  replicas: 2,
  updatedReplicas: updated,
  availableReplicas: 2,
  conditions: [cond("Available", extra.available === false ? "False" : "True", extra.available === false ? "MinimumReplicasUnavailable" : "MinimumReplicasAvailable"), cond("Progressing", extra.progressing === "ProgressDeadlineExceeded" ? "False" : "True", extra.progressing ?? "NewReplicaSetAvailable")],
});
const member = (cluster: string, latest: boolean, status: Record<string, unknown> | undefined): MemberRollout => ({ cluster, latest, status });

describe("fleetRolloutFailure", () => {
  const state = (phase: RolloutState["phase"], extra: Partial<RolloutState> = {}): RolloutState => ({ revision: "b", stableRevision: "a", phase, clusters: [], ...extra });
  const cases: [string, RolloutState | undefined, string | undefined][] = [
    ["no rollout", undefined, undefined],
    ["going on", state("Progressing"), undefined],
    ["waiting for an approval", state("WaitingForApproval"), undefined],
    ["a user's pause", state("Paused", { paused: true }), undefined],
    ["succeeded", state("Succeeded"), undefined],
    ["paused on failures", state("Paused", { message: "2 clusters failed" }), "Paused: 2 clusters failed"],
    ["rolled back", state("RolledBack", { message: "m1 failed" }), "RolledBack: m1 failed"],
    ["aborted, without a message", state("Aborted"), "Aborted: revision b did not reach every cluster"],
  ];
  for (const [name, input, want] of cases) it(name, () => assert.equal(fleetRolloutFailure(input), want));
});

describe("rolloutStatus", () => {
  it("every member on the latest Work and observed: observedGeneration is the template's, updated counts summed, rolled out", () => {
    const s = rolloutStatus("Deployment", 5, [member("m1", true, deploy(3, 3, 2)), member("m2", true, deploy(7, 7, 2))]);
    assert.equal(s?.observedGeneration, 5);
    assert.equal(s?.updatedReplicas, 4);
    assert.deepEqual((s?.conditions as { type: string; status: string; reason: string }[]).map((c) => [c.type, c.status, c.reason]), [
      ["Available", "True", "MinimumReplicasAvailable"],
      ["Progressing", "True", "NewReplicaSetAvailable"],
    ]);
  });
  it("a member still holding the previous Work: observedGeneration not raised, its updated replicas not counted", () => {
    const s = rolloutStatus("Deployment", 5, [member("m1", true, deploy(3, 3, 2)), member("m2", false, deploy(6, 6, 2))]);
    assert.equal(s?.observedGeneration, undefined);
    assert.equal(s?.updatedReplicas, 2);
    assert.equal((s?.conditions as { type: string; reason: string }[])[1]?.reason, "ReplicaSetUpdated");
  });
  it("a member on the latest Work whose controller has not observed it yet counts as not rolled out", () => {
    const s = rolloutStatus("Deployment", 5, [member("m1", true, deploy(4, 3, 2)), member("m2", true, deploy(7, 7, 2))]);
    assert.equal(s?.observedGeneration, undefined);
    assert.equal(s?.updatedReplicas, 2);
  });
  it("a member that has not reported: not rolled out", () => {
    const s = rolloutStatus("Deployment", 5, [member("m1", true, deploy(3, 3, 2)), member("m2", true, undefined)]);
    assert.equal(s?.observedGeneration, undefined);
    assert.equal((s?.conditions as { type: string; status: string }[])[0]?.status, "False");
  });
  it("a progressive rollout rolled back makes the template's Progressing False, ProgressDeadlineExceeded, so kubectl rollout status fails", () => {
    const s = rolloutStatus("Deployment", 5, [member("m1", false, deploy(3, 3, 2)), member("m2", false, deploy(7, 7, 2))], "RolledBack: 1 cluster failed");
    const progressing = (s?.conditions as { type: string; status: string; reason: string; message: string }[])[1];
    assert.deepEqual([progressing?.status, progressing?.reason, progressing?.message], ["False", "ProgressDeadlineExceeded", "fleet rollout: RolledBack: 1 cluster failed"]);
    assert.equal(s?.observedGeneration, 5, "observed: kubectl reads Progressing only then");
    assert.equal(s?.updatedReplicas, 0, "no member runs the template's revision");
  });
  it("a member past its progress deadline makes the template's Progressing False with that reason", () => {
    const s = rolloutStatus("Deployment", 5, [member("m1", true, deploy(3, 3, 1, { progressing: "ProgressDeadlineExceeded", available: false })), member("m2", true, deploy(7, 7, 2))]);
    const progressing = (s?.conditions as { type: string; status: string; reason: string; message: string }[])[1];
    assert.deepEqual([progressing?.status, progressing?.reason], ["False", "ProgressDeadlineExceeded"]);
    assert.match(progressing?.message ?? "", /^m1: /);
    assert.equal((s?.conditions as { status: string }[])[0]?.status, "False");
  });
  it("a DaemonSet counts updatedNumberScheduled and has no conditions", () => {
    const ds = (updated: number) => ({ generation: 2, observedGeneration: 2, desiredNumberScheduled: 3, updatedNumberScheduled: updated });
    assert.deepEqual(rolloutStatus("DaemonSet", 4, [member("m1", true, ds(3)), member("m2", true, ds(3))]), { updatedNumberScheduled: 6, observedGeneration: 4 });
  });
  it("no member has reported yet: no rollout fields, so nothing is written yet", () => {
    assert.equal(rolloutStatus("Deployment", 5, [member("m1", false, undefined), member("m2", false, undefined)]), undefined);
  });
  it("no target clusters: nothing observed", () => {
    assert.equal(rolloutStatus("Deployment", 2, [])?.observedGeneration, undefined);
  });
  it("a kind kubectl does not roll out has no rollout fields", () => {
    assert.equal(rolloutStatus("ConfigMap", 1, [member("m1", true, {})]), undefined);
    assert.equal(rolloutStatus("Job", 1, [member("m1", true, {})]), undefined);
  });
});
