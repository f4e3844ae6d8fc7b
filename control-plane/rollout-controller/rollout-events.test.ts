import { test } from "node:test";
import assert from "node:assert/strict";
import type { RolloutState } from "../../shared/api/types.ts";
import { rolloutEvent } from "./rollout-events.ts";

const since = "2026-11-24T00:00:00.000Z";
const state = (phase: RolloutState["phase"], extra: Partial<RolloutState> = {}): RolloutState => ({
  revision: "b",
  stableRevision: "a",
  phase,
  clusters: [
    { name: "m1", revision: "b", phase: "Updating", since },
    { name: "m2", revision: "a", phase: "Waiting", since },
  ],
  ...extra,
});

test("rolloutEvent", async (t) => {
  const cases: { name: string; previous: RolloutState | undefined; next: RolloutState; want?: { reason: string; type: string; message: RegExp } }[] = [
    { name: "the first revision is no rollout", previous: undefined, next: { ...state("Succeeded"), stableRevision: "b" } },
    { name: "a new revision starts: Normal RolloutProgressing", previous: { ...state("Succeeded"), revision: "a" }, next: state("Progressing"), want: { reason: "RolloutProgressing", type: "Normal", message: /revision b: Progressing, 1\/2 clusters told it/ } },
    { name: "no change of phase: nothing", previous: state("Progressing"), next: state("Progressing") },
    { name: "a rollback warns with the state's message", previous: state("Progressing"), next: state("RollingBack", { message: "1 cluster failed" }), want: { reason: "RolloutRollingBack", type: "Warning", message: /1 cluster failed/ } },
    { name: "a user's pause is Normal", previous: state("Progressing"), next: state("Paused", { paused: true }), want: { reason: "RolloutPaused", type: "Normal", message: /./ } },
    { name: "another approval awaited is told again", previous: state("WaitingForApproval", { waitingFor: "BeforeGroup/a" }), next: state("WaitingForApproval", { waitingFor: "BeforeGroup/b" }), want: { reason: "RolloutWaitingForApproval", type: "Normal", message: /./ } },
  ];
  for (const c of cases) {
    await t.test(c.name, () => {
      const got = rolloutEvent(c.previous, c.next);
      if (c.want === undefined) return assert.equal(got, undefined);
      assert.equal(got?.reason, c.want.reason);
      assert.equal(got?.type, c.want.type);
      assert.match(got?.message ?? "", c.want.message);
    });
  }
});
