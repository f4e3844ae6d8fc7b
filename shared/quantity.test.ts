import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { canonicalQuantity, formatQuantity, parseQuantity, scaledQuantity, sumQuantities } from "./quantity.ts";

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

describe("exact quantities", () => {
  const scaled: [string, number, bigint][] = [["0.1", 3, 100n], ["100m", 3, 100n], ["0.5m", 3, 1n], ["1.5", 0, 2n], ["128Mi", 0, 134217728n], ["1e3", 0, 1000n], ["2", 3, 2000n]];
  for (const [q, scale, v] of scaled) it(`${q} × 10^${scale} rounds up to ${v}, with no float error`, () => assert.equal(scaledQuantity(q, scale), v));
  const canonical: [bigint, number, "DecimalSI" | "BinarySI", string][] = [
    [1500n, -3, "DecimalSI", "1500m"],
    [2000n, -3, "DecimalSI", "2"],
    [20000000n, -3, "DecimalSI", "20k"],
    [1000n, 0, "DecimalSI", "1k"],
    [134217728n, 0, "BinarySI", "128Mi"],
    [1610612736n, 0, "BinarySI", "1536Mi"],
    [1000000000n, 0, "BinarySI", "1000000000"],
    [1000n, 0, "BinarySI", "1k"],
    [500n, 0, "BinarySI", "500"],
    [0n, 0, "BinarySI", "0"],
  ];
  for (const [v, pow10, format, want] of canonical) it(`${v} × 10^${pow10} in ${format} prints as ${want}, as Kubernetes' Quantity.String()`, () => assert.equal(canonicalQuantity(v, pow10, format), want));
});
