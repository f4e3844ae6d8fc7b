import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { budgetReport, judgeFileTimes } from "./file-budget.ts";

const t = (file: string, s: number, passed = true) => ({ file, ms: s * 1000, passed });

describe("judgeFileTimes", () => {
  const excused = { "test/chaos/chaos.test.ts": "the chaos run" };
  const cases = [
    { name: "all within: nothing over", times: [t("a", 10), t("b", 150)], over: [], excused: [] },
    { name: "one over: named", times: [t("a", 10), t("b", 150.001)], over: ["b"], excused: [] },
    { name: "an excused file over: excused, with its reason", times: [t("test/chaos/chaos.test.ts", 200), t("c", 151)], over: ["c"], excused: ["test/chaos/chaos.test.ts: the chaos run"] },
    { name: "a failed file counts too", times: [t("d", 300, false)], over: ["d"], excused: [] },
    { name: "no files", times: [], over: [], excused: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const v = judgeFileTimes(c.times, { budgetMs: 150_000, excused, slowest: 15 });
      assert.deepEqual(
        v.over.map((o) => o.file),
        c.over,
      );
      assert.deepEqual(
        v.excused.map((e) => `${e.file}: ${e.reason}`),
        c.excused,
      );
    });
  }

  it("lists the slowest first, as many as asked", () => {
    const v = judgeFileTimes([t("a", 1), t("b", 3), t("c", 2), t("d", 3)], { budgetMs: 150_000, excused: {}, slowest: 3 });
    assert.deepEqual(
      v.slowest.map((s) => s.file),
      ["b", "d", "c"],
    );
  });
});

describe("budgetReport", () => {
  it("prints the table, the excused and the files over budget", () => {
    const v = judgeFileTimes([t("test/x.test.ts", 200), t("test/chaos/chaos.test.ts", 160), t("y", 2, false)], { budgetMs: 150_000, excused: { "test/chaos/chaos.test.ts": "churn" }, slowest: 15 });
    assert.deepEqual(budgetReport(v, 150_000), [
      "slowest test files (budget 150.0 s each):",
      "  test/x.test.ts             200.0 s",
      "  test/chaos/chaos.test.ts   160.0 s",
      "  y                            2.0 s  (failed)",
      "over budget, excused: test/chaos/chaos.test.ts took 160.0 s (churn)",
      "OVER BUDGET: test/x.test.ts took 200.0 s, more than 150.0 s: shorten it (docs/development/testing.md)",
    ]);
  });
});
