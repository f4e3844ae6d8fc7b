import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fenceOf, leaseWorkerFile } from "./lease-thread.ts";

describe("fenceOf (the main thread's write fence over the election thread's state)", () => {
  const now = 100_000;
  const cases: { name: string; state: { leading: boolean; deposed: boolean; renewedAt: number }; fenced: boolean }[] = [
    { name: "a leader that renewed within the deadline writes", state: { leading: true, deposed: false, renewedAt: now - 9_000 }, fenced: false },
    { name: "a leader past its renew deadline is fenced, even before the thread noticed", state: { leading: true, deposed: false, renewedAt: now - 10_001 }, fenced: true },
    { name: "a deposed replica is fenced for good", state: { leading: false, deposed: true, renewedAt: now }, fenced: true },
    { name: "a replica that never led is not fenced (it writes only what every replica writes)", state: { leading: false, deposed: false, renewedAt: 0 }, fenced: false },
  ];
  for (const c of cases) {
    it(c.name, () => assert.equal(fenceOf(c.state, now, 10_000) !== undefined, c.fenced));
  }
});

describe("leaseWorkerFile", () => {
  it("is the worker beside the module, in the module's own form (source, tsc, bundle)", () => {
    assert.equal(leaseWorkerFile("file:///src/control-plane/leadership/lease-thread.ts").href, "file:///src/control-plane/leadership/lease-worker.ts");
    assert.equal(leaseWorkerFile("file:///app/dist/control-plane/leadership/lease-thread.js").href, "file:///app/dist/control-plane/leadership/lease-worker.js");
    assert.equal(leaseWorkerFile("file:///app/dist/flotilla.mjs").href, "file:///app/dist/lease-worker.mjs");
  });
});
