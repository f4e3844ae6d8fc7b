import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseClustersetStatus, timedConditions, wantedExportConditions } from "./export-conditions.ts";
import type { ExportVerdict } from "./export-report.ts";

const valid = { valid: true, spec: {} } as unknown as ExportVerdict;
const conflict = { type: "Conflict", status: "True" as const, reason: "PortConflict", message: "Conflicting ports." };
const ready = { type: "Ready", status: "True" as const, reason: "Ready", message: "imported" };

describe("wantedExportConditions: Valid is the agent's, Ready and Conflict the clusterset's", () => {
  it("not valid: Valid False with the verdict's reason, Ready False Failed", () => {
    const c = wantedExportConditions({ valid: false, reason: "NoService", message: "no Service" }, undefined, "m1");
    assert.deepEqual(c.map((x) => [x.type, x.status, x.reason]), [["Valid", "False", "NoService"], ["Ready", "False", "Failed"]]);
  });
  it("valid, not merged yet: Ready False Pending, no Conflict", () => {
    const c = wantedExportConditions(valid, undefined, "m1");
    assert.deepEqual(c.map((x) => [x.type, x.status, x.reason]), [["Valid", "True", "Valid"], ["Ready", "False", "Pending"]]);
  });
  it("merged: the clusterset's Ready and Conflict for this cluster's export", () => {
    const c = wantedExportConditions(valid, { clusters: ["m1", "m2"], exportConditions: [ready, conflict] }, "m1");
    assert.deepEqual(c.map((x) => [x.type, x.status, x.reason]), [["Valid", "True", "Valid"], ["Ready", "True", "Ready"], ["Conflict", "True", "PortConflict"]]);
  });
  it("an import that does not list this cluster says nothing about its export", () => {
    const c = wantedExportConditions(valid, { clusters: ["m2"], exportConditions: [ready, conflict] }, "m1");
    assert.equal(c.find((x) => x.type === "Conflict"), undefined);
    assert.equal(c.find((x) => x.type === "Ready")?.reason, "Pending");
  });
});

describe("timedConditions: a condition keeps its time while its status holds", () => {
  const now = "2026-11-30T12:00:00Z";
  it("nothing changed: undefined (no write)", () => {
    assert.equal(timedConditions([ready], [{ ...ready, lastTransitionTime: "t0" }], now), undefined);
  });
  it("a new message under the same status: written, the time kept", () => {
    assert.deepEqual(timedConditions([{ ...ready, message: "new" }], [{ ...ready, lastTransitionTime: "t0" }], now), [{ ...ready, message: "new", lastTransitionTime: "t0" }]);
  });
  it("a new status: written, stamped now", () => {
    assert.deepEqual(timedConditions([ready], [{ ...ready, status: "False", lastTransitionTime: "t0" }], now), [{ ...ready, lastTransitionTime: now }]);
  });
});

describe("parseClustersetStatus", () => {
  it("reads what Flotilla writes; refuses anything else", () => {
    assert.deepEqual(parseClustersetStatus('{"clusters":["a"]}'), { clusters: ["a"] });
    assert.equal(parseClustersetStatus("{"), undefined);
    assert.equal(parseClustersetStatus('{"clusters":[1]}'), undefined);
    assert.equal(parseClustersetStatus(undefined), undefined);
  });
});
