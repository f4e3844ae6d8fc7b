import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decideLease, liveHolder, leaseRecord, type LeaseSpec, microTime, observeLease } from "./lease-decision.ts";

const now = Date.parse("2026-11-22T10:00:00.000Z");
const ago = (ms: number) => microTime(now - ms);

describe("decideLease", () => {
  // seen: how long ago this replica first saw the lease as it is (its own clock).
  const cases: { name: string; lease: LeaseSpec | undefined; seen?: number; want: string; transitions?: number; expiresInMs?: number }[] = [
    { name: "no lease: create it", lease: undefined, want: "create", transitions: 0 },
    { name: "mine: renew, keeping transitions", lease: { holderIdentity: "me", renewTime: ago(1000), leaseDurationSeconds: 15, leaseTransitions: 3 }, want: "renew", transitions: 3 },
    { name: "another's, seen changing 5 s ago: wait the rest of its duration", lease: { holderIdentity: "other", renewTime: ago(5000), leaseDurationSeconds: 15 }, seen: 5000, want: "wait", expiresInMs: 10_000 },
    { name: "another's, unchanged for its duration by my clock: take over", lease: { holderIdentity: "other", renewTime: ago(16_000), leaseDurationSeconds: 15, leaseTransitions: 1 }, seen: 16_000, want: "takeover", transitions: 2 },
    { name: "the holder's clock runs behind (renewTime looks old) but it just renewed: wait", lease: { holderIdentity: "other", renewTime: ago(60_000), leaseDurationSeconds: 15 }, seen: 0, want: "wait", expiresInMs: 15_000 },
    { name: "the holder's clock runs ahead (renewTime looks fresh) but nothing changed for 16 s: take over", lease: { holderIdentity: "other", renewTime: ago(-30_000), leaseDurationSeconds: 15 }, seen: 16_000, want: "takeover", transitions: 1 },
    { name: "released (no holder): take over at once", lease: { holderIdentity: "", renewTime: ago(1000), leaseDurationSeconds: 15 }, seen: 0, want: "takeover", transitions: 1 },
    { name: "never renewed, just seen: wait its duration", lease: { holderIdentity: "other" }, seen: 0, want: "wait", expiresInMs: 15_000 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const d = decideLease(c.lease, "me", now, 15_000, now - (c.seen ?? 0));
      assert.equal(d.action, c.want);
      if (d.action !== "wait") {
        assert.equal(d.spec.holderIdentity, "me");
        assert.equal(d.spec.leaseTransitions, c.transitions);
        assert.equal(d.spec.renewTime, "2026-11-22T10:00:00.000000Z");
      } else {
        assert.equal(d.holder, "other");
        assert.equal(d.expiresInMs, c.expiresInMs);
      }
    });
  }
});

describe("leaseRecord", () => {
  it("changes with every renewal and hand-over, and only then", () => {
    const l: LeaseSpec = { holderIdentity: "a", renewTime: ago(0), acquireTime: ago(9000), leaseTransitions: 1, leaseDurationSeconds: 15 };
    assert.equal(leaseRecord(l), leaseRecord({ ...l, leaseDurationSeconds: 30 }));
    assert.notEqual(leaseRecord(l), leaseRecord({ ...l, renewTime: ago(-1000) }));
    assert.notEqual(leaseRecord(l), leaseRecord({ ...l, holderIdentity: "b" }));
    assert.notEqual(leaseRecord(l), leaseRecord({ ...l, leaseTransitions: 2 }));
  });
});

describe("observeLease and liveHolder (whom a replica sees holding the Lease, by its own clock)", () => {
  // seen: how long ago this replica first saw the lease as it is; at: how long after now it asks.
  const cases: { name: string; lease: LeaseSpec | undefined; seen: number; at?: number; holder: string | undefined }[] = [
    { name: "a holder seen renewing 5 s ago holds", lease: { holderIdentity: "r1", renewTime: ago(5000), leaseDurationSeconds: 15 }, seen: 5000, holder: "r1" },
    { name: "unchanged for its duration by this replica's clock: expired, whatever its renewTime says", lease: { holderIdentity: "r1", renewTime: ago(-30_000), leaseDurationSeconds: 15 }, seen: 15_000, holder: undefined },
    { name: "just seen, though its renewTime looks old (the holder's clock behind): holds", lease: { holderIdentity: "r1", renewTime: ago(60_000), leaseDurationSeconds: 15 }, seen: 0, holder: "r1" },
    { name: "asked later than the duration after it was seen: expired", lease: { holderIdentity: "r1", leaseDurationSeconds: 15 }, seen: 0, at: 15_000, holder: undefined },
    { name: "released (no holder): nobody", lease: { holderIdentity: "", renewTime: ago(0), leaseDurationSeconds: 15 }, seen: 0, holder: undefined },
    { name: "no Lease: nobody", lease: undefined, seen: 0, holder: undefined },
    { name: "no duration on the Lease: this replica's own", lease: { holderIdentity: "r1" }, seen: 14_999, holder: "r1" },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const o = observeLease(c.lease, now - c.seen, 15_000);
      assert.equal(liveHolder(o, now + (c.at ?? 0)), c.holder);
      // The same rule as decideLease's: live exactly while a candidate would wait for it.
      if (c.lease?.holderIdentity) assert.equal(decideLease(c.lease, "me", now + (c.at ?? 0), 15_000, now - c.seen).action === "wait", c.holder !== undefined);
    });
  }
  it("nothing observed yet: nobody", () => assert.equal(liveHolder(undefined, now), undefined));
});
