import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { WorkloadMetricsReport } from "../../shared/workload-metrics-wire.ts";
import { fitting, type LoggedSummary, MAX_PAGE, pageAfter, SummaryLog } from "./summary-log.ts";

const T0 = 1_000_000;
const report = (name: string, pods = 2): WorkloadMetricsReport => ({
  workload: { apiVersion: "apps/v1", kind: "Deployment", namespace: "shop", name },
  key: `apps/v1/Deployment/shop/${name}`,
  wantedHash: "h",
  windowStartMs: 0,
  windowEndMs: 0,
  problems: [],
  summary: { pods, readyPods: pods },
});
const entry = (seq: number, at: number, name = `w${seq}`): LoggedSummary => ({ cluster: "m1", report: report(name), at, seq });

describe("pageAfter", () => {
  const entries = [entry(3, T0), entry(1, T0), entry(2, T0 - 61_000), entry(4, T0)];
  const cases: { name: string; after: number; limit: number; want: { seqs: number[]; next: number; more: boolean } }[] = [
    { name: "from the start, in sequence order, skipping what is older than the age limit", after: 0, limit: 10, want: { seqs: [1, 3, 4], next: 4, more: false } },
    { name: "after a cursor", after: 3, limit: 10, want: { seqs: [4], next: 4, more: false } },
    { name: "nothing new: the cursor stays", after: 4, limit: 10, want: { seqs: [], next: 4, more: false } },
    { name: "a page at the limit says more wait", after: 0, limit: 2, want: { seqs: [1, 3], next: 3, more: true } },
    { name: "no limit asked: MAX_PAGE", after: 0, limit: 0, want: { seqs: [1, 3, 4], next: 4, more: false } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const p = pageAfter(entries, c.after, c.limit, T0, 60_000);
      assert.deepEqual({ seqs: p.summaries.map((s) => s.seq), next: p.next, more: p.more }, c.want);
    });
  }
  it("never more than MAX_PAGE, whatever is asked", () => {
    const many = Array.from({ length: MAX_PAGE + 5 }, (_, i) => entry(i + 1, T0));
    const p = pageAfter(many, 0, 1_000_000, T0, 60_000);
    assert.equal(p.summaries.length, MAX_PAGE);
    assert.equal(p.more, true);
  });
});

describe("SummaryLog", () => {
  it("keeps one entry per cluster and workload, the latest with a new sequence number", () => {
    const log = new SummaryLog("e1");
    log.record("m1", report("web", 2), T0);
    log.record("m2", report("web", 2), T0);
    log.record("m1", report("web", 5), T0 + 1000);
    assert.equal(log.size, 2);
    const p = log.page(0, 10, T0 + 1000, 60_000);
    assert.deepEqual(p.summaries.map((s) => [s.cluster, s.report.summary.pods, s.seq]), [["m2", 2, 2], ["m1", 5, 3]]);
    assert.deepEqual(log.page(p.next, 10, T0 + 1000, 60_000).summaries, []);
  });
  it("forgets entries no one can ask for any more", () => {
    const log = new SummaryLog("e1");
    log.record("m1", report("web"), T0);
    log.page(0, 10, T0 + 121_000, 60_000);
    assert.equal(log.size, 0);
  });
});

describe("fitting", () => {
  const cases: { name: string; sizes: number[]; max: number; want: number }[] = [
    { name: "all fit", sizes: [10, 10, 10], max: 100, want: 3 },
    { name: "exactly at the budget", sizes: [50, 50], max: 100, want: 2 },
    { name: "the first that goes over stays for the next page", sizes: [60, 30, 20], max: 100, want: 2 },
    { name: "one larger than the budget still goes alone, so the cursor moves", sizes: [500, 10], max: 100, want: 1 },
    { name: "nothing", sizes: [], max: 100, want: 0 },
  ];
  for (const c of cases) it(c.name, () => assert.equal(fitting(c.sizes, c.max), c.want));
});
