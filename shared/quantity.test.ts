import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  addQuantities,
  canonicalQuantity,
  formatExactQuantity,
  formatQuantity,
  parseExactQuantity,
  parseQuantity,
  quantityOf,
  scaledQuantity,
  scaledValue,
  sumQuantities,
  zeroQuantity,
} from "./quantity.ts";

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

describe("exact quantities, as Kubernetes prints them", () => {
  // [input, canonical String(), MilliValue, Value]
  const cases: [string, string, bigint, bigint][] = [
    ["100m", "100m", 100n, 1n],
    ["0.5", "500m", 500n, 1n],
    ["1500m", "1500m", 1500n, 2n],
    ["2000m", "2", 2000n, 2n],
    ["12000", "12k", 12000000n, 12000n],
    ["128Mi", "128Mi", 134217728000n, 134217728n],
    ["1.5Gi", "1536Mi", 1610612736000n, 1610612736n],
    ["0.5Ki", "512", 512000n, 512n],
    ["1G", "1G", 1000000000000n, 1000000000n],
    ["1e3", "1e3", 1000000n, 1000n],
    ["0.1m", "100u", 1n, 1n],
    ["1n", "1n", 1n, 1n],
    ["0.0000000001", "1n", 1n, 1n],
    ["-1Gi", "-1Gi", -1073741824000n, -1073741824n],
    ["0", "0", 0n, 0n],
  ];
  for (const [input, canonical, milli, value] of cases) {
    it(`${input} prints as ${canonical}`, () => {
      const q = parseExactQuantity(input);
      assert.equal(formatExactQuantity(q), canonical);
      assert.equal(scaledValue(q, -3), milli);
      assert.equal(scaledValue(q, 0), value);
    });
  }
  for (const bad of ["", ".", "1.2.3", "1Zi", "abc", "1 Gi"]) it(`refuses ${JSON.stringify(bad)}`, () => assert.throws(() => parseExactQuantity(bad), /invalid quantity/));
  it("prints BinarySI in Ki/Mi only when it divides exactly, and small values plainly", () => {
    assert.equal(formatExactQuantity(quantityOf(1536n, "BinarySI")), "1536");
    assert.equal(formatExactQuantity(quantityOf(2048n, "BinarySI")), "2Ki");
    assert.equal(formatExactQuantity(quantityOf(1000n, "BinarySI")), "1k");
    assert.equal(formatExactQuantity(quantityOf(1000000000n, "BinarySI")), "1000000000");
    assert.equal(formatExactQuantity(quantityOf(1500n, "DecimalSI", true)), "1500m");
  });
  it("adds in the format of the first non-zero addend", () => {
    const sum = (...qs: string[]) => formatExactQuantity(qs.map(parseExactQuantity).reduce(addQuantities, zeroQuantity));
    assert.equal(sum("0", "100Mi", "1Gi"), "1124Mi");
    assert.equal(sum("250m", "1"), "1250m");
    assert.equal(sum("1Gi", "1G"), "2073741824");
    assert.equal(sum("1G", "1Gi"), "2073741824");
  });
});
