import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { WorkStatus } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { reportBytes } from "../status/status-store.ts";
import { PendingReports, pendingBound } from "./pending-reports.ts";

const report = (name: string, message = ""): WorkStatus => ({ workKey: `v1/ConfigMap/shop/${name}`, observedHash: "h1", applied: true, available: true, reason: "", message, manifests: [], deleted: false });
const big = (name: string) => report(name, "x".repeat(1000));
const BIG = reportBytes(big("a"));

describe("PendingReports (a followed replica's reports of clusters the leader does not take yet, bounded in bytes per cluster)", () => {
  const cases: { name: string; steps: (p: PendingReports) => boolean[]; accepted: boolean[]; bytes: number }[] = [
    { name: "reports within the bound are kept", steps: (p) => [p.put("m1", "a", big("a")), p.put("m2", "b", big("b"))], accepted: [true, true], bytes: 2 * BIG },
    {
      name: "many clusters each within the bound are all kept, however much they are together (a healthy replica's snapshot)",
      steps: (p) => Array.from({ length: 50 }, (_, i) => [p.put(`m${i}`, "a", big("a")), p.put(`m${i}`, "b", big("b"))]).flat(),
      accepted: Array.from({ length: 100 }, () => true),
      bytes: 100 * BIG,
    },
    { name: "another cluster's reports do not count against this one's bound", steps: (p) => [p.put("m1", "a", big("a")), p.put("m1", "b", big("b")), p.put("m2", "c", big("c")), p.put("m2", "d", big("d")), p.put("m2", "e", big("e"))], accepted: [true, true, true, true, false], bytes: 4 * BIG },
    { name: "a report past the bound is refused, and nothing of it kept", steps: (p) => [p.put("m1", "a", big("a")), p.put("m1", "b", big("b")), p.put("m1", "c", big("c"))], accepted: [true, true, false], bytes: 2 * BIG },
    { name: "a report replacing another counts the difference: a smaller one fits where a third would not", steps: (p) => [p.put("m1", "a", big("a")), p.put("m1", "b", big("b")), p.put("m1", "b", report("b"))], accepted: [true, true, true], bytes: BIG + reportBytes(report("b")) },
    { name: "an absence (the replica forgot a report) is always taken, and frees its bytes", steps: (p) => [p.put("m1", "a", big("a")), p.put("m1", "b", big("b")), p.put("m1", "a", undefined), p.put("m1", "zz", undefined), p.put("m1", "c", big("c"))], accepted: [true, true, true, true, true], bytes: 2 * BIG },
    { name: "a cluster taken out frees its bytes", steps: (p) => [p.put("m1", "a", big("a")), p.put("m1", "b", big("b")), p.take("m1").length === 2, p.put("m1", "c", big("c"))], accepted: [true, true, true, true], bytes: BIG },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const p = new PendingReports(2 * BIG + 10);
      assert.deepEqual(c.steps(p), c.accepted);
      assert.equal(p.bytes, c.bytes);
    });
  }

  it("what the leader releases is put back counted but never refused; then nothing more of that cluster fits, another's does", () => {
    const p = new PendingReports(BIG);
    p.restore("m1", [big("a"), big("b"), big("b")]);
    assert.equal(p.bytes, 2 * BIG, "one report per Work");
    assert.deepEqual(p.clusters(), ["m1"]);
    assert.equal(p.put("m1", report("c").workKey, report("c")), false);
    assert.equal(p.put("m1", report("a").workKey, report("a")), true, "a smaller report in place of one held is taken");
    assert.equal(p.put("m2", report("c").workKey, report("c")), true);
    assert.deepEqual(p.take("m1").map((r) => r.message.length), [0, 1000], "a's smaller report, b's as restored");
    assert.equal(p.bytes, reportBytes(report("c")));
    assert.deepEqual(p.clusters(), ["m2"]);
  });

  it("the bound per cluster is twice the per-cluster budget (128 MiB at the default 64 MiB)", () => {
    assert.equal(pendingBound(64 * 1024 * 1024), 128 * 1024 * 1024);
  });
});
