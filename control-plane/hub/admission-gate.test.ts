import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type AdmissionState, admissionBacklogMs, admitAgent, admitConnection, initialAdmission, lostBacklogMs, MAX_RETRY_AFTER_MS, maxWaitingConnections, reconnectSpreadMs } from "./admission-gate.ts";

const rate = { perSecond: 100, burst: 3 };

/** Arrivals at the given times (ms): each one's verdict, as "admit" or its retry-after in ms. */
function run(arrivals: number[], r = rate, state: AdmissionState = initialAdmission(r, 0)): { verdicts: (string | number)[]; state: AdmissionState } {
  const verdicts: (string | number)[] = [];
  for (const at of arrivals) {
    const d = admitAgent(state, at, r);
    state = d.state;
    verdicts.push(d.admission.admit ? "admit" : d.admission.retryAfterMs);
  }
  return { verdicts, state };
}

describe("admitAgent", () => {
  const cases: { name: string; arrivals: number[]; want: (string | number)[]; r?: typeof rate }[] = [
    { name: "the burst is admitted at once", arrivals: [0, 0, 0], want: ["admit", "admit", "admit"] },
    { name: "beyond the burst, each refused agent gets its own slot, 1/rate apart", arrivals: [0, 0, 0, 0, 0, 0], want: ["admit", "admit", "admit", 10, 20, 30] },
    { name: "an agent back at its slot is admitted", arrivals: [0, 0, 0, 0, 10], want: ["admit", "admit", "admit", 10, "admit"] },
    { name: "arrivals at the rate are all admitted", arrivals: [0, 0, 0, 10, 20, 30, 40], want: ["admit", "admit", "admit", "admit", "admit", "admit", "admit"] },
    { name: "a queue that has passed is forgotten: the next refusal waits for the next token only", arrivals: [0, 0, 0, 0, 0, 5000, 5000, 5000, 5000], want: ["admit", "admit", "admit", 10, 20, "admit", "admit", "admit", 10] },
    { name: "no limit (0 per second): everyone is admitted", arrivals: [0, 0, 0, 0, 0], r: { perSecond: 0, burst: 0 }, want: ["admit", "admit", "admit", "admit", "admit"] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(run(c.arrivals, c.r).verdicts, c.want));

  it("never tells an agent to wait longer than MAX_RETRY_AFTER_MS", () => {
    const { verdicts } = run(Array.from({ length: 100 }, () => 0), { perSecond: 0.1, burst: 1 });
    assert.equal(Math.max(...verdicts.filter((v): v is number => typeof v === "number")), MAX_RETRY_AFTER_MS);
  });
});

describe("admissionBacklogMs", () => {
  it("lasts until the last agent sent away is due back, then is 0", () => {
    const { state } = run([0, 0, 0, 0, 0, 0]);
    assert.equal(admissionBacklogMs(state, 0), 30);
    assert.equal(admissionBacklogMs(state, 25), 5);
    assert.equal(admissionBacklogMs(state, 31), 0);
    assert.equal(admissionBacklogMs(initialAdmission(rate, 0), 0), 0);
  });
});

describe("reconnectSpreadMs", () => {
  const cases: { name: string; clusters: number; r: { perSecond: number; burst: number }; want: number }[] = [
    { name: "a fleet within the burst reconnects at once", clusters: 150, r: { perSecond: 200, burst: 200 }, want: 0 },
    { name: "10,000 clusters at 200/s: 49 s, capped at 15 s", clusters: 10_000, r: { perSecond: 200, burst: 200 }, want: 15_000 },
    { name: "2,000 clusters at 200/s: 9 s", clusters: 2_000, r: { perSecond: 200, burst: 200 }, want: 9_000 },
    { name: "at most the cap (half the failure threshold: a lone agent must be back before it)", clusters: 1_000_000, r: { perSecond: 200, burst: 200 }, want: 15_000 },
    { name: "no limit: no spread (the agent's own backoff)", clusters: 10_000, r: { perSecond: 0, burst: 0 }, want: 0 },
  ];
  for (const c of cases) it(c.name, () => assert.equal(reconnectSpreadMs(c.clusters, c.r, 15_000), c.want));
});

describe("lostBacklogMs", () => {
  const cases: { name: string; lost: number; r: { perSecond: number; burst: number }; want: number }[] = [
    { name: "5,000 agents lost at 200/s: 25 s to admit them again", lost: 5_000, r: { perSecond: 200, burst: 200 }, want: 25_000 },
    { name: "no more than a burst lost (a few agents, a dead cluster): no storm", lost: 200, r: { perSecond: 200, burst: 200 }, want: 0 },
    { name: "no limit: no storm backlog", lost: 5_000, r: { perSecond: 0, burst: 0 }, want: 0 },
  ];
  for (const c of cases) it(c.name, () => assert.equal(lostBacklogMs(c.lost, c.r), c.want));
});

describe("admitConnection (issue 42: a connection waiting below TLS)", () => {
  /** Each arrival, in order, as "connection" (its wait, 0: on to TLS now) or "stream" (its verdict): one bucket for both. */
  function mixed(arrivals: [number, "connection" | "stream"][], r = rate): (string | number)[] {
    let state = initialAdmission(r, 0);
    return arrivals.map(([at, kind]) => {
      if (kind === "connection") {
        const d = admitConnection(state, at, r);
        state = d.state;
        return d.waitMs;
      }
      const d = admitAgent(state, at, r);
      state = d.state;
      return d.admission.admit ? "admit" : d.admission.retryAfterMs;
    });
  }
  const cases: { name: string; arrivals: [number, "connection" | "stream"][]; want: (string | number)[]; r?: typeof rate }[] = [
    { name: "the burst goes on to TLS at once", arrivals: [[0, "connection"], [0, "connection"], [0, "connection"]], want: [0, 0, 0] },
    { name: "beyond the burst, a connection is told when the next token comes, and reserves none", arrivals: [[0, "connection"], [0, "connection"], [0, "connection"], [0, "connection"], [0, "connection"]], want: [0, 0, 0, 10, 10] },
    { name: "asking again when told, it goes on", arrivals: [[0, "connection"], [0, "connection"], [0, "connection"], [0, "connection"], [10, "connection"]], want: [0, 0, 0, 10, 0] },
    { name: "a token part-grown: the rest of it", arrivals: [[0, "connection"], [0, "connection"], [0, "connection"], [4, "connection"]], want: [0, 0, 0, 6] },
    { name: "connections and streams share the bucket: a stream after the burst's connections is refused", arrivals: [[0, "connection"], [0, "connection"], [0, "connection"], [0, "stream"]], want: [0, 0, 0, 10] },
    { name: "…and connections wait behind streams that took the burst", arrivals: [[0, "stream"], [0, "stream"], [0, "stream"], [0, "connection"]], want: ["admit", "admit", "admit", 10] },
    { name: "no limit: every connection goes on", arrivals: [[0, "connection"], [0, "connection"], [0, "connection"], [0, "connection"]], r: { perSecond: 0, burst: 0 }, want: [0, 0, 0, 0] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(mixed(c.arrivals, c.r), c.want));
});

describe("maxWaitingConnections", () => {
  const cases: { name: string; r: { perSecond: number; burst: number }; bound: number }[] = [
    { name: "200/s: a burst and a minute of admissions wait", r: { perSecond: 200, burst: 200 }, bound: 12_200 },
    { name: "a slow rate still lets one wait", r: { perSecond: 0.001, burst: 0 }, bound: 1 },
    { name: "2/s: 122 wait", r: { perSecond: 2, burst: 2 }, bound: 122 },
    { name: "no limit: one", r: { perSecond: 0, burst: 0 }, bound: 1 },
  ];
  for (const c of cases) it(c.name, () => assert.equal(maxWaitingConnections(c.r), c.bound));
});
