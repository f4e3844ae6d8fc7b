import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type HeartbeatState, longerGrace, readiness, recordHeartbeat, startupGraceLeft, stormGraceLeft, successThresholdFor } from "./cluster-readiness.ts";

const t = { failureMs: 30_000, successMs: 10_000 };

describe("cluster readiness", () => {
  const cases: { name: string; state: HeartbeatState; now: number; status: string; reason: string; recheck?: number }[] = [
    { name: "never heard from", state: {}, now: 0, status: "Unknown", reason: "AwaitingAgent" },
    { name: "steady heartbeats", state: { lastHeartbeatAt: 100_000, healthySince: 0 }, now: 105_000, status: "True", reason: "ClusterReady", recheck: 25_001 },
    { name: "exactly at the failure threshold is still ready", state: { lastHeartbeatAt: 0, healthySince: -20_000 }, now: 30_000, status: "True", reason: "ClusterReady", recheck: 1 },
    { name: "silent past the failure threshold", state: { lastHeartbeatAt: 0, healthySince: -50_000 }, now: 30_001, status: "False", reason: "ClusterNotReachable" },
    { name: "recovering within the success threshold", state: { lastHeartbeatAt: 4_000, healthySince: 0 }, now: 4_000, status: "False", reason: "ClusterRecovering", recheck: 6_000 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = readiness(c.state, c.now, t);
      assert.equal(r.status, c.status);
      assert.equal(r.reason, c.reason);
      assert.equal(r.recheckAfterMs, c.recheck);
    });
  }

  it("a gap longer than the failure threshold restarts the success window", () => {
    let s = recordHeartbeat({}, 0, t);
    s = recordHeartbeat(s, 10_000, t);
    assert.equal(s.healthySince, 0);
    s = recordHeartbeat(s, 50_000, t);
    assert.equal(s.healthySince, 50_000);
    assert.equal(readiness(s, 55_000, t).reason, "ClusterRecovering");
    assert.equal(readiness(s, 60_000, t).status, "True");
  });

  it("a success threshold of zero makes the first heartbeat Ready", () => {
    const s = recordHeartbeat({}, 1_000, { failureMs: 30_000, successMs: 0 });
    assert.equal(readiness(s, 1_000, { failureMs: 30_000, successMs: 0 }).status, "True");
  });
});

describe("startupGraceLeft", () => {
  const START = 1_000_000;
  const GRACE = 35_000;
  const cases: { name: string; ready: boolean; lastHeartbeatAt?: number; now: number; left: number | undefined }[] = [
    { name: "a Ready cluster whose last beat predates this replica's judging is held", ready: true, lastHeartbeatAt: START - 60_000, now: START + 1_000, left: GRACE - 1_000 },
    { name: "held until the grace period ends", ready: true, lastHeartbeatAt: START - 60_000, now: START + GRACE - 1, left: 1 },
    { name: "judged once the grace period is over", ready: true, lastHeartbeatAt: START - 60_000, now: START + GRACE, left: undefined },
    { name: "a beat after judging began ends the grace: judged by it", ready: true, lastHeartbeatAt: START + 500, now: START + 1_000, left: undefined },
    { name: "a cluster already not Ready is judged as usual", ready: false, lastHeartbeatAt: START - 60_000, now: START + 1_000, left: undefined },
    { name: "a Ready cluster that never wrote a beat is held too", ready: true, now: START + 1_000, left: GRACE - 1_000 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(startupGraceLeft({ ready: c.ready, ...(c.lastHeartbeatAt === undefined ? {} : { lastHeartbeatAt: c.lastHeartbeatAt }), judgingSince: START, now: c.now, graceMs: GRACE }), c.left);
    });
  }
});

describe("successThresholdFor: only a cluster that was not Ready waits out the success threshold", () => {
  const cases: { name: string; stored: string | undefined; want: number }[] = [
    { name: "a new cluster (no Ready condition yet) is Ready at its first heartbeat", stored: undefined, want: 0 },
    { name: "a cluster awaiting its agent (Unknown) likewise", stored: "Unknown", want: 0 },
    { name: "a Ready cluster whose agent moved to this replica stays Ready", stored: "True", want: 0 },
    { name: "a cluster that was lost waits the whole threshold", stored: "False", want: 30_000 },
  ];
  for (const c of cases) it(c.name, () => assert.equal(successThresholdFor(c.stored, 30_000), c.want));
});

describe("stormGraceLeft", () => {
  const cases: { name: string; ready: boolean; backlogMs: number; left: number | undefined }[] = [
    { name: "no agent was sent away: judge now", ready: true, backlogMs: 0, left: undefined },
    { name: "agents due back for 40 s more: Ready for that and the failure threshold", ready: true, backlogMs: 40_000, left: 70_000 },
    { name: "a cluster that is not Ready is judged as ever", ready: false, backlogMs: 40_000, left: undefined },
  ];
  for (const c of cases) {
    it(c.name, () => assert.equal(stormGraceLeft({ ready: c.ready, admissionBacklogMs: c.backlogMs, failureMs: 30_000 }), c.left));
  }
});

describe("longerGrace", () => {
  const cases: [number | undefined, number | undefined, number | undefined][] = [
    [undefined, undefined, undefined],
    [5, undefined, 5],
    [undefined, 7, 7],
    [5, 7, 7],
  ];
  for (const [a, b, want] of cases) it(`${a} and ${b}: ${want}`, () => assert.equal(longerGrace(a, b), want));
});
