import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { status as GrpcStatus } from "@grpc/grpc-js";
import { judgeFollower } from "./follow-admission.ts";

describe("judgeFollower (who may follow this replica's status reports, and keep following)", () => {
  // caller: the follower's certificate name (undefined: not a control-plane certificate); holder: the leader Lease's holder as this replica observed it.
  const cases: { name: string; caller: string | undefined; leading?: boolean; holder: string | undefined; code?: GrpcStatus; says?: RegExp }[] = [
    { name: "the Lease's holder, as this replica sees it, follows", caller: "r1", holder: "r1" },
    { name: "an agent's or admin's certificate is refused for good", caller: undefined, holder: "r1", code: GrpcStatus.PERMISSION_DENIED, says: /O=flotilla:control-plane/ },
    { name: "a replica that leads is not followed, even by whom it sees holding the Lease", caller: "r1", leading: true, holder: "r1", code: GrpcStatus.FAILED_PRECONDITION, says: /^me leads/ },
    { name: "another replica's certificate (a stale ex-leader, a standby): refused, saying whom this replica sees", caller: "r2", holder: "r1", code: GrpcStatus.FAILED_PRECONDITION, says: /^me sees r1 holding the leader Lease flotilla-control-plane, not r2/ },
    { name: "no live holder seen (none, released, expired, not read yet, or no election): refused, retried by a new leader", caller: "r1", holder: undefined, code: GrpcStatus.FAILED_PRECONDITION, says: /^me sees nobody holding the leader Lease .*not r1/ },
    { name: "--leader-elect=false: this replica leads itself and observes no Lease: nobody follows", caller: "r1", leading: true, holder: undefined, code: GrpcStatus.FAILED_PRECONDITION, says: /^me leads/ },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const v = judgeFollower({ me: "me", caller: c.caller, leading: c.leading ?? false, holder: c.holder });
      if (c.code === undefined) {
        assert.deepEqual(v, { follow: true, follower: c.caller });
        return;
      }
      assert.equal(v.follow, false);
      if (v.follow) return;
      assert.equal(v.code, c.code);
      assert.match(v.message, c.says ?? /./);
    });
  }
});
