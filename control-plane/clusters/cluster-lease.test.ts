import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { anotherReplicaHears, type ClusterLeaseSpec, clusterLeaseDurationSeconds, judgeLease, leaseTime, leaseWrite, type LeaseVerdict } from "./cluster-lease.ts";

const T0 = Date.parse("2026-01-01T00:00:00Z");
const RENEW = 60_000;
const lease = (holder: string, renewedMs: number, durationSeconds = 90): ClusterLeaseSpec => ({ holderIdentity: holder, leaseDurationSeconds: durationSeconds, renewTime: leaseTime(T0 + renewedMs) });

describe("leaseTime", () => {
  it("writes MicroTime: six fraction digits, as the apiserver parses it", () => {
    assert.equal(leaseTime(Date.parse("2026-01-02T03:04:05.678Z")), "2026-01-02T03:04:05.678000Z");
    assert.equal(Date.parse(leaseTime(T0 + 1)), T0 + 1);
  });
});

describe("clusterLeaseDurationSeconds", () => {
  const cases: { name: string; renewMs: number; failureMs: number; want: number }[] = [
    { name: "the defaults: 60 s renewals, 30 s failure threshold", renewMs: 60_000, failureMs: 30_000, want: 90 },
    { name: "the tests' timings: 1 s renewals, 5 s threshold", renewMs: 1_000, failureMs: 5_000, want: 6 },
    { name: "a fraction of a second is rounded up, never down", renewMs: 1_500, failureMs: 5_000, want: 7 },
  ];
  for (const c of cases) it(c.name, () => assert.equal(clusterLeaseDurationSeconds(c.renewMs, c.failureMs), c.want));
});

describe("leaseWrite", () => {
  const cases: { name: string; lease: ClusterLeaseSpec | undefined; beatMs: number; want: "acquire" | "renew" | undefined; recheck?: number }[] = [
    { name: "no lease yet: at once", lease: undefined, beatMs: 0, want: "acquire" },
    { name: "another replica holds it (the agent moved here): at once, though it was renewed just now", lease: lease("replica-b", 5_000), beatMs: 5_001, want: "acquire" },
    { name: "ours, renewed less than the interval ago: waits", lease: lease("me", 0), beatMs: 10_000, want: undefined, recheck: 50_000 },
    { name: "ours, one heartbeat short of the interval: waits", lease: lease("me", 0), beatMs: RENEW - 1, want: undefined, recheck: 1 },
    { name: "ours, the interval has passed: renewed", lease: lease("me", 0), beatMs: RENEW, want: "renew" },
    { name: "ours with another duration (flags changed): renewed at the next heartbeat", lease: lease("me", 0, 45), beatMs: 1_000, want: "renew" },
    { name: "ours with another duration but no newer heartbeat: waits", lease: lease("me", 1_000, 45), beatMs: 1_000, want: undefined, recheck: RENEW },
    { name: "ours but with no time (written by hand): at once", lease: { holderIdentity: "me", leaseDurationSeconds: 90 }, beatMs: 0, want: "acquire" },
    { name: "released (no holder): at once", lease: { leaseDurationSeconds: 90, renewTime: leaseTime(T0) }, beatMs: 1, want: "acquire" },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const d = leaseWrite({ lease: c.lease, me: "me", lastHeartbeatAt: T0 + c.beatMs, renewMs: RENEW, durationSeconds: 90 });
      assert.equal(d.write ? d.reason : undefined, c.want);
      if (d.write) assert.deepEqual(d.spec, { holderIdentity: "me", leaseDurationSeconds: 90, renewTime: leaseTime(T0 + c.beatMs) }, "renewTime is the heartbeat's time");
      else assert.equal(d.recheckAfterMs, c.recheck);
    });
  }

  it("a holder renewing at the first heartbeat past the interval is never seen expired while its agent beats", () => {
    // Heartbeats every 10 s, renew interval 60 s, failure threshold 30 s: the defaults.
    const heartbeatMs = 10_000;
    const durationSeconds = clusterLeaseDurationSeconds(RENEW, 30_000);
    let written: ClusterLeaseSpec | undefined;
    let writes = 0;
    for (let beat = 0; beat <= 3_600_000; beat += heartbeatMs) {
      // Just before each heartbeat, a replica that does not hear the agent looks at the lease.
      if (written !== undefined) assert.equal(judgeLease(written, T0 + beat - 1).kind, "held", `at ${beat} ms`);
      const d = leaseWrite({ lease: written, me: "me", lastHeartbeatAt: T0 + beat, renewMs: RENEW, durationSeconds });
      if (d.write) {
        written = d.spec;
        writes++;
      }
    }
    assert.equal(writes, 61, "one write a minute over an hour, and the first");
  });
});

describe("judgeLease", () => {
  const cases: { name: string; lease: ClusterLeaseSpec | undefined; nowMs: number; want: LeaseVerdict }[] = [
    { name: "no lease", lease: undefined, nowMs: 0, want: { kind: "none" } },
    { name: "a lease without a time", lease: { holderIdentity: "a", leaseDurationSeconds: 90 }, nowMs: 0, want: { kind: "none" } },
    { name: "a lease without a duration", lease: { holderIdentity: "a", renewTime: leaseTime(T0) }, nowMs: 0, want: { kind: "none" } },
    { name: "renewed just now", lease: lease("a", 0), nowMs: 1_000, want: { kind: "held", holder: "a", renewedAt: T0, expiresInMs: 89_000 } },
    { name: "exactly at its duration: still held", lease: lease("a", 0), nowMs: 90_000, want: { kind: "held", holder: "a", renewedAt: T0, expiresInMs: 0 } },
    { name: "past its duration: expired", lease: lease("a", 0), nowMs: 90_001, want: { kind: "expired", holder: "a", renewedAt: T0, silentMs: 90_001, durationMs: 90_000 } },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(judgeLease(c.lease, T0 + c.nowMs), c.want));
});

describe("anotherReplicaHears", () => {
  const cases: { name: string; lease: ClusterLeaseSpec | undefined; mineMs: number | undefined; persistedMs?: number; want: boolean }[] = [
    { name: "the lease is ours", lease: lease("me", 10_000), mineMs: 10_000, want: false },
    { name: "another holds it with a later heartbeat: it took over", lease: lease("b", 20_000), mineMs: 10_000, want: true },
    { name: "another holds it, but our heartbeat is later (its lease is older than our stream)", lease: lease("b", 5_000), mineMs: 10_000, want: false },
    { name: "no lease, no later persisted heartbeat", lease: undefined, mineMs: 10_000, want: false },
    { name: "no lease, a later persisted heartbeat (a replica of an older version hears it)", lease: undefined, mineMs: 10_000, persistedMs: 20_000, want: true },
    { name: "we never heard it, another holds a lease", lease: lease("b", 0), mineMs: undefined, want: true },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const persistedBeat = c.persistedMs === undefined ? Number.NaN : T0 + c.persistedMs;
      assert.equal(anotherReplicaHears({ lease: c.lease, me: "me", lastHeartbeatAt: c.mineMs === undefined ? undefined : T0 + c.mineMs, persistedBeat }), c.want);
    });
  }
});
