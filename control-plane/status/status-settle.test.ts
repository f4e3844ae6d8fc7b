import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AggregatedStatusItem } from "../../shared/api/types.ts";
import { Health, type WorkStatus } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { answerOwed, longestWaitMs, MAX_PROGRESSING_SETTLE_MS, MAX_SETTLE_MS, MIN_WRITE_INTERVAL_MS, type SettleInput, StatusWriteTimes, unsettledClusters, writeDueAt } from "./status-settle.ts";

const healthy = (clusterName: string, observedHash = "h1"): AggregatedStatusItem => ({ clusterName, applied: true, health: "Healthy", observedHash });
const input = (over: Partial<SettleInput>): SettleInput => ({
  entries: [],
  targets: ["m1", "m2"],
  owned: new Set(["m1", "m2"]),
  notReady: new Set(),
  expectedHash: { m1: "h1", m2: "h1" },
  renderErrors: new Map(),
  ...over,
});

describe("unsettledClusters: whose answer to the current change is still to come", () => {
  const cases: { name: string; input: SettleInput; unsettled: string[] }[] = [
    { name: "every target reported the current Work, Healthy: settled", input: input({ entries: [healthy("m1"), healthy("m2")] }), unsettled: [] },
    { name: "a new binding nobody reported yet", input: input({}), unsettled: ["m1", "m2"] },
    { name: "one ack in, one to come", input: input({ entries: [healthy("m1")] }), unsettled: ["m2"] },
    { name: "an ack of the previous Work is no answer to this one", input: input({ entries: [healthy("m1"), healthy("m2", "h0")] }), unsettled: ["m2"] },
    { name: "a Deployment still Progressing", input: input({ entries: [healthy("m1"), { ...healthy("m2"), health: "Progressing" }] }), unsettled: ["m2"] },
    { name: "a Deployment Progressing with pods the member cannot place: an answer (the control plane moves them)", input: input({ entries: [healthy("m1"), { ...healthy("m2"), health: "Progressing", unschedulableReplicas: 1, unschedulableSince: "2026-12-01T00:00:00Z" }] }), unsettled: [] },
    { name: "Unhealthy and Unknown are answers", input: input({ entries: [{ ...healthy("m1"), health: "Unhealthy" }, { ...healthy("m2"), health: "Unknown" }] }), unsettled: [] },
    { name: "a failure word is an answer, even while Progressing", input: input({ entries: [healthy("m1"), { clusterName: "m2", applied: false, health: "Progressing", reason: "UpdateFailed", observedHash: "h1" }] }), unsettled: [] },
    { name: "a cluster that is not Ready is awaited no more", input: input({ entries: [healthy("m1")], notReady: new Set(["m2"]) }), unsettled: [] },
    { name: "a Work that could not be rendered says why: an answer", input: input({ entries: [healthy("m1")], expectedHash: { m1: "h1" }, renderErrors: new Map([["m2", "bad override"]]) }), unsettled: [] },
    { name: "a Work not rendered yet: awaited", input: input({ entries: [healthy("m1")], expectedHash: { m1: "h1" } }), unsettled: ["m2"] },
    { name: "another replica's clusters are not this replica's to wait for", input: input({ entries: [healthy("m1")], owned: new Set(["m1"]) }), unsettled: [] },
    { name: "a removal still to be confirmed", input: input({ targets: ["m1"], entries: [healthy("m1"), { clusterName: "m2", applied: false, reason: "WaitingForRemoval" }] }), unsettled: ["m2"] },
    { name: "a held deletion waits for a person, not for the agent: an answer", input: input({ targets: ["m1"], entries: [healthy("m1"), { clusterName: "m2", applied: false, reason: "DeletionHeld" }] }), unsettled: [] },
    { name: "a deleting binding: every entry is a removal", input: input({ targets: [], entries: [{ clusterName: "m1", applied: false, reason: "WaitingForRemoval" }] }), unsettled: ["m1"] },
    { name: "a deleting binding whose removals are all confirmed", input: input({ targets: [], entries: [] }), unsettled: [] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(unsettledClusters(c.input), c.unsettled));
});

describe("writeDueAt", () => {
  const cases: { name: string; in: Parameters<typeof writeDueAt>[0]; at: number }[] = [
    { name: "settled, never written: now", in: { settled: true, now: 10_000, pendingSince: 9_000, lastWriteAt: undefined }, at: 10_000 },
    { name: "settled, written long ago: now", in: { settled: true, now: 10_000, pendingSince: 9_000, lastWriteAt: 1_000 }, at: 10_000 },
    { name: "settled, written just now: after the least interval", in: { settled: true, now: 10_000, pendingSince: 9_900, lastWriteAt: 9_500 }, at: 9_500 + MIN_WRITE_INTERVAL_MS },
    { name: "not settled: when the change waited its longest", in: { settled: false, now: 10_000, pendingSince: 9_000, lastWriteAt: undefined }, at: 9_000 + MAX_SETTLE_MS },
    { name: "not settled and waited past its longest: due already", in: { settled: false, now: 20_000, pendingSince: 9_000, lastWriteAt: 1_000 }, at: 9_000 + MAX_SETTLE_MS },
  ];
  for (const c of cases) it(c.name, () => assert.equal(writeDueAt(c.in), c.at));
});

describe("StatusWriteTimes: one change's answers become one write", () => {
  it("acks arriving over several seconds wait for the last one; the next change waits afresh", () => {
    const t = new StatusWriteTimes();
    assert.equal(t.waitMs("k", false, 0), MAX_SETTLE_MS, "first ack: wait for the rest");
    assert.equal(t.waitMs("k", false, 3_000), MAX_SETTLE_MS - 3_000, "the wait counts from the change, not from each ack");
    assert.equal(t.waitMs("k", true, 4_000), 0, "the last ack: written at once");
    t.wrote("k", 4_000);
    assert.equal(t.waitMs("k", true, 4_200), MIN_WRITE_INTERVAL_MS - 200, "a churning status: at most one write per interval");
    t.wrote("k", 5_000);
    assert.equal(t.waitMs("k", false, 20_000), MAX_SETTLE_MS, "a new change starts its own wait");
  });

  it("a change that stopped differing before it was written leaves no wait behind", () => {
    const t = new StatusWriteTimes();
    t.waitMs("k", false, 0);
    t.caughtUp("k");
    assert.equal(t.waitMs("k", false, 60_000), MAX_SETTLE_MS);
    t.forget("k");
    assert.equal(t.waitMs("k", true, 70_000), 0);
  });
});

const report = (observedHash: string, health: Health = Health.HEALTH_HEALTHY, reason = ""): WorkStatus => ({
  workKey: "k",
  observedHash,
  applied: reason === "",
  available: true,
  reason,
  message: "",
  manifests: [{ resource: undefined, applied: true, health, reason: "", message: "", status: Buffer.alloc(0) }],
  deleted: false,
});

describe("answerOwed: the cheap look while a change waits", () => {
  const base = { targets: ["m1", "m2"], hashOf: () => "h1", renderErrors: new Map<string, string>(), answersHere: () => true };
  const cases: { name: string; input: Parameters<typeof answerOwed>[0]; owed: boolean }[] = [
    { name: "both answered the current Work", input: { ...base, reports: new Map([["m1", report("h1")], ["m2", report("h1")]]) }, owed: false },
    { name: "one has not reported", input: { ...base, reports: new Map([["m1", report("h1")]]) }, owed: true },
    { name: "one reported the previous Work", input: { ...base, reports: new Map([["m1", report("h1")], ["m2", report("h0")]]) }, owed: true },
    { name: "one still Progressing", input: { ...base, reports: new Map([["m1", report("h1")], ["m2", report("h1", Health.HEALTH_PROGRESSING)]]) }, owed: true },
    { name: "a failure word answers, Progressing or not", input: { ...base, reports: new Map([["m1", report("h1")], ["m2", report("h1", Health.HEALTH_PROGRESSING, "UpdateFailed")]]) }, owed: false },
    { name: "a cluster not heard here (or not Ready) owes nothing here", input: { ...base, answersHere: (c) => c === "m1", reports: new Map([["m1", report("h1")]]) }, owed: false },
    { name: "a render error answers", input: { ...base, renderErrors: new Map([["m2", "bad"]]), reports: new Map([["m1", report("h1")]]) }, owed: false },
  ];
  for (const c of cases) it(c.name, () => assert.equal(answerOwed(c.input), c.owed));

  it("pendingWaitMs: nothing waits until a differing status was seen; then the time left to its longest wait", () => {
    const t = new StatusWriteTimes();
    assert.equal(t.pendingWaitMs("k", 0), 0);
    t.waitMs("k", false, 1_000);
    assert.equal(t.pendingWaitMs("k", 2_000), MAX_SETTLE_MS - 1_000);
    assert.equal(t.pendingWaitMs("k", 1_000 + MAX_SETTLE_MS), 0);
  });
});

describe("longestWaitMs: a rollout waits longer than a missing answer", () => {
  const progressing = (c: string): AggregatedStatusItem => ({ ...healthy(c), health: "Progressing" });
  const cases: { name: string; input: SettleInput; ms: number }[] = [
    { name: "every unsettled cluster applied the current Work and is only Progressing: a rollout", input: input({ entries: [healthy("m1"), progressing("m2")] }), ms: MAX_PROGRESSING_SETTLE_MS },
    { name: "one has not answered at all", input: input({ entries: [progressing("m1")] }), ms: MAX_SETTLE_MS },
    { name: "one Progressing on the previous Work", input: input({ entries: [healthy("m1"), { ...progressing("m2"), observedHash: "h0" }] }), ms: MAX_SETTLE_MS },
    { name: "a removal to confirm", input: input({ targets: ["m1"], entries: [healthy("m1"), { clusterName: "m2", applied: false, reason: "WaitingForRemoval" }] }), ms: MAX_SETTLE_MS },
  ];
  for (const c of cases) it(c.name, () => assert.equal(longestWaitMs(c.input, unsettledClusters(c.input)), c.ms));

  it("the quick look between full ones keeps the longest wait the last full one allowed", () => {
    const t = new StatusWriteTimes();
    t.waitMs("k", false, 0, MAX_PROGRESSING_SETTLE_MS);
    assert.equal(t.pendingWaitMs("k", 10_000), MAX_PROGRESSING_SETTLE_MS - 10_000);
  });
});
