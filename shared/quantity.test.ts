import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatQuantity, parseQuantity, sumQuantities } from "./quantity.ts";

describe("quantities", () => {
  const cases: [string, number][] = [["2", 2], ["500m", 0.5], ["64Gi", 64 * 2 ** 30], ["1k", 1000], ["1e3", 1000], ["0.5", 0.5], ["110", 110]];
  for (const [q, v] of cases) it(`parses ${q}`, () => assert.equal(parseQuantity(q), v));
  for (const bad of ["", "abc", "1Zi", "--1"]) it(`refuses ${JSON.stringify(bad)}`, () => assert.throws(() => parseQuantity(bad), /invalid quantity/));
  it("formats whole numbers plainly and fractions in milli-units", () => {
    assert.equal(formatQuantity(3), "3");
    assert.equal(formatQuantity(1.25), "1250m");
  });
  it("sums per resource across nodes", () => {
    assert.deepEqual(sumQuantities([{ cpu: "16", memory: "64Gi", pods: "110" }, { cpu: "500m", memory: "1Gi", pods: "10" }]), {
      cpu: "16500m",
      memory: String(65 * 2 ** 30),
      pods: "120",
    });
  });
});
