// A rollout's state the Rollout call's tests share: revision r2 past its canary (member1), waiting
// for the canary's AfterGroup approval before member2 and member3.
import type { RolloutState } from "../../shared/api/types.ts";

export const T0 = "2026-11-24T10:00:00.000Z";

export const waitingForCanary: RolloutState = {
  revision: "r2",
  stableRevision: "r1",
  phase: "WaitingForApproval",
  message: "waiting for approval AfterGroup/canary",
  waitingFor: "AfterGroup/canary",
  clusters: [
    { name: "member1", revision: "r2", phase: "Succeeded", since: T0 },
    { name: "member2", revision: "r1", phase: "Waiting", since: T0 },
    { name: "member3", revision: "r1", phase: "Waiting", since: T0 },
  ],
};

/** The same rollout once approved: progressing. */
export function progressingPastCanary(): RolloutState {
  const s = structuredClone(waitingForCanary);
  s.phase = "Progressing";
  delete s.waitingFor;
  delete s.message;
  return s;
}
