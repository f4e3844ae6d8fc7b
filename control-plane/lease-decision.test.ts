import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decideLease, type LeaseSpec, microTime } from "./lease-decision.ts";

const now = Date.parse("2026-11-22T10:00:00.000Z");
const ago = (ms: number) => microTime(now - ms);

describe("decideLease", () => {
  const cases: { name: string; lease: LeaseSpec | undefined; want: string; transitions?: number }[] = [
    { name: "no lease: create it", lease: undefined, want: "create", transitions: 0 },
    { name: "mine: renew, keeping transitions", lease: { holderIdentity: "me", renewTime: ago(1000), leaseDurationSeconds: 15, leaseTransitions: 3 }, want: "renew", transitions: 3 },
    { name: "another's, fresh: wait", lease: { holderIdentity: "other", renewTime: ago(5000), leaseDurationSeconds: 15 }, want: "wait" },
    { name: "another's, expired: take over", lease: { holderIdentity: "other", renewTime: ago(16_000), leaseDurationSeconds: 15, leaseTransitions: 1 }, want: "takeover", transitions: 2 },
    { name: "released (no holder): take over", lease: { holderIdentity: "", renewTime: ago(1000), leaseDurationSeconds: 15 }, want: "takeover", transitions: 1 },
    { name: "never renewed: take over", lease: { holderIdentity: "other" }, want: "takeover", transitions: 1 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const d = decideLease(c.lease, "me", now, 15_000);
      assert.equal(d.action, c.want);
      if (d.action !== "wait") {
        assert.equal(d.spec.holderIdentity, "me");
        assert.equal(d.spec.leaseTransitions, c.transitions);
        assert.equal(d.spec.renewTime, "2026-11-22T10:00:00.000000Z");
      } else {
        assert.equal(d.holder, "other");
        assert.equal(d.expiresInMs, 10_000);
      }
    });
  }
});
