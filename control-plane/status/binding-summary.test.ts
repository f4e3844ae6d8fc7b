import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AggregatedStatusItem } from "../../shared/api/types.ts";
import { asDesired, bindingSummary, boundedEntries } from "./binding-summary.ts";

const ok = (clusterName: string, status?: Record<string, unknown>): AggregatedStatusItem => ({ clusterName, applied: true, health: "Healthy", reason: "", observedHash: "h1", ...(status ? { status } : {}) });
const failing = (clusterName: string, message = "apply failed"): AggregatedStatusItem => ({ clusterName, applied: false, health: "Unknown", reason: "UpdateFailed", message, observedHash: "h1" });
const progressing = (clusterName: string): AggregatedStatusItem => ({ ...ok(clusterName), health: "Progressing" });
const unhealthy = (clusterName: string): AggregatedStatusItem => ({ ...ok(clusterName), health: "Unhealthy" });
const removing = (clusterName: string): AggregatedStatusItem => ({ clusterName, applied: false, reason: "WaitingForRemoval", message: "waiting for the agent to remove it" });
const hashes = (names: string[], h = "h1"): Record<string, string> => Object.fromEntries(names.map((n) => [n, h]));

describe("asDesired", () => {
  const cases: { name: string; item: AggregatedStatusItem; expected?: string; want: boolean }[] = [
    { name: "applied, Healthy, no word, current hash", item: ok("a"), expected: "h1", want: true },
    { name: "the Work's hash unknown: the rest decides", item: ok("a"), want: true },
    { name: "an older Work's hash", item: ok("a"), expected: "h2", want: false },
    { name: "Progressing", item: progressing("a"), expected: "h1", want: false },
    { name: "a status word", item: { ...ok("a"), reason: "ClusterNotReady" }, expected: "h1", want: false },
    { name: "not applied", item: failing("a"), expected: "h1", want: false },
  ];
  for (const c of cases) it(c.name, () => assert.equal(asDesired(c.item, c.expected), c.want));
});

describe("bindingSummary", () => {
  it("counts every target cluster's entry by state, word and health, and sums the workload fields", () => {
    const entries = [ok("a", { replicas: 2, readyReplicas: 2, availableReplicas: 2, updatedReplicas: 2 }), ok("b", { replicas: 3, readyReplicas: 1 }), failing("c"), unhealthy("d"), removing("x")];
    assert.deepEqual(bindingSummary({ targets: ["a", "b", "c", "d", "e"], entries, expectedHash: hashes(["a", "b", "c", "d"]), omittedEntries: 1 }), {
      clusters: 5,
      reported: 4,
      applied: 3,
      asDesired: 2,
      health: { Healthy: 2, Unknown: 1, Unhealthy: 1 },
      reasons: { UpdateFailed: 1, WaitingForRemoval: 1 },
      removing: 1,
      omittedEntries: 1,
      replicas: 5,
      readyReplicas: 3,
      availableReplicas: 2,
      updatedReplicas: 2,
    });
  });
  it("no entries yet: zero counts, no maps, no sums", () => {
    assert.deepEqual(bindingSummary({ targets: ["a"], entries: [], expectedHash: {}, omittedEntries: 0 }), { clusters: 1, reported: 0, applied: 0, asDesired: 0, omittedEntries: 0 });
  });
  it("a deleting binding (no targets): every entry is a removal", () => {
    const s = bindingSummary({ targets: [], entries: [removing("a"), { ...removing("b"), reason: "DeletionHeld" }], expectedHash: {}, omittedEntries: 0 });
    assert.deepEqual(s, { clusters: 0, reported: 0, applied: 0, asDesired: 0, omittedEntries: 0, removing: 2, reasons: { WaitingForRemoval: 1, DeletionHeld: 1 } });
  });
});

describe("boundedEntries", () => {
  const names = (xs: AggregatedStatusItem[]) => xs.map((i) => i.clusterName);
  const cases: { name: string; entries: AggregatedStatusItem[]; targets: string[]; limit: number; want: string[]; omitted: number; bounded: boolean }[] = [
    { name: "at the limit: every entry, as today", entries: [ok("a"), failing("b")], targets: ["a", "b"], limit: 2, want: ["a", "b"], omitted: 0, bounded: false },
    { name: "over the limit: only the clusters not as desired", entries: [ok("a"), failing("b"), ok("c")], targets: ["a", "b", "c"], limit: 2, want: ["b"], omitted: 0, bounded: true },
    {
      name: "over the limit with more not as desired than it: a status word first, then Unhealthy, then by name; the rest counted",
      entries: [progressing("a"), unhealthy("b"), failing("c"), progressing("d")],
      targets: ["a", "b", "c", "d"],
      limit: 2,
      want: ["b", "c"],
      omitted: 2,
      bounded: true,
    },
    { name: "removals always keep their entries, whatever the limit", entries: [ok("a"), ok("b"), ok("c"), removing("x"), removing("y")], targets: ["a", "b", "c"], limit: 1, want: ["x", "y"], omitted: 0, bounded: true },
    { name: "a deleting binding with few entries: all of them", entries: [removing("a"), removing("b")], targets: [], limit: 2, want: ["a", "b"], omitted: 0, bounded: false },
    { name: "a Work's older hash is not as desired", entries: [{ ...ok("a"), observedHash: "h0" }, ok("b"), ok("c")], targets: ["a", "b", "c"], limit: 1, want: ["a"], omitted: 0, bounded: true },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = boundedEntries({ entries: c.entries, targets: c.targets, expectedHash: hashes(c.targets), limit: c.limit });
      assert.deepEqual([names(got.entries), got.omitted, got.bounded], [c.want, c.omitted, c.bounded]);
    });
  }
  it("more removals than the limit: the first in full, the rest as their name and word", () => {
    const got = boundedEntries({ entries: [removing("a"), removing("b"), { ...removing("c"), reason: "DeletionHeld" }], targets: [], expectedHash: {}, limit: 1 });
    assert.deepEqual(got.entries, [removing("a"), { clusterName: "b", reason: "WaitingForRemoval" }, { clusterName: "c", reason: "DeletionHeld" }]);
    assert.equal(got.bounded, true);
  });
});

describe("a binding of 10,000 clusters stays far below etcd's limit", () => {
  const N = 10_000;
  const cluster = (n: number) => `member-${String(n).padStart(5, "0")}`;
  const targets = Array.from({ length: N }, (_, n) => cluster(n));
  const bytesOf = (entries: AggregatedStatusItem[], omittedEntries: number) =>
    Buffer.byteLength(JSON.stringify({ aggregatedStatus: entries, aggregatedSummary: bindingSummary({ targets, entries: all, expectedHash: hashes(targets), omittedEntries }) }));
  let all: AggregatedStatusItem[] = [];
  it("every cluster failing with a long message", () => {
    const long = `admission webhook "validate.example.com" denied the request: ${"x".repeat(2000)}`;
    all = targets.map((t) => ({ ...failing(t, long), status: { replicas: 3, readyReplicas: 0, conditions: [{ type: "Available", status: "False", message: long }] } }));
    const got = boundedEntries({ entries: all, targets, expectedHash: hashes(targets), limit: 100 });
    const bytes = bytesOf(got.entries, got.omitted);
    assert.equal(got.entries.length, 100);
    assert.equal(got.omitted, N - 100);
    assert.ok(bytes < 1024 * 1024, `${bytes} bytes`);
    console.log(`10,000 failing clusters, 2 KiB messages: ${bytes} bytes of status (the unbounded list: ${Buffer.byteLength(JSON.stringify(all))})`);
  });
  it("every cluster as desired", () => {
    all = targets.map((t) => ok(t, { replicas: 3, readyReplicas: 3, availableReplicas: 3, updatedReplicas: 3, conditions: [{ type: "Available", status: "True" }] }));
    const got = boundedEntries({ entries: all, targets, expectedHash: hashes(targets), limit: 100 });
    const bytes = bytesOf(got.entries, got.omitted);
    assert.deepEqual([got.entries.length, got.omitted], [0, 0]);
    assert.ok(bytes < 1024, `${bytes} bytes`);
    console.log(`10,000 clusters as desired: ${bytes} bytes of status`);
  });
  it("every cluster still to confirm a removal (the binding is deleting): each keeps its entry", () => {
    all = targets.map((t) => removing(t));
    const got = boundedEntries({ entries: all, targets: [], expectedHash: {}, limit: 100 });
    const bytes = Buffer.byteLength(JSON.stringify({ aggregatedStatus: got.entries }));
    assert.equal(got.entries.length, N);
    assert.ok(bytes < 1024 * 1024, `${bytes} bytes`);
    console.log(`10,000 clusters removing: ${bytes} bytes of status`);
  });
});
