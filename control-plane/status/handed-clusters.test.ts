// The clusters a replica leaves to a following leader (issue 42): handed while the leader keeps
// saying so, back a grace period after it stops (gone, cut off, slow), at once when it says so.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HandedClusters } from "./handed-clusters.ts";

function setup() {
  let now = 1_000_000;
  const back: string[] = [];
  const handed = new HandedClusters({ changed: (c) => back.push(c), now: () => now, graceMs: 5_000 });
  return { handed, back, advance: (ms: number) => (now += ms) };
}

describe("HandedClusters", () => {
  it("a cluster is handed while its leader keeps saying it takes it", () => {
    const { handed, advance } = setup();
    handed.said(1, new Set(["m1", "m2"]));
    assert.equal(handed.has("m1"), true);
    assert.equal(handed.has("m3"), false);
    for (let i = 0; i < 10; i++) {
      advance(1_000);
      handed.said(1, new Set(["m1", "m2"]));
    }
    assert.equal(handed.has("m2"), true);
    assert.equal(handed.size, 2);
    handed.stop();
  });

  it("a leader that falls silent (gone, cut off, its stream ended) gives its clusters back after the grace, not before", () => {
    const { handed, advance } = setup();
    handed.said(1, new Set(["m1"]));
    advance(4_999);
    assert.equal(handed.has("m1"), true, "a short gap costs no write");
    advance(2);
    assert.equal(handed.has("m1"), false);
    assert.equal(handed.size, 0);
    handed.stop();
  });

  it("a cluster the leader no longer lists comes back at once, unless another stream still takes it", () => {
    const { handed, back } = setup();
    handed.said(1, new Set(["m1", "m2"]));
    handed.said(2, new Set(["m2"]));
    handed.said(1, new Set());
    assert.deepEqual(back, ["m1"]);
    assert.equal(handed.has("m2"), true);
    handed.withdraw(2);
    assert.deepEqual(back, ["m1", "m2"]);
    handed.stop();
  });

  it("says when the grace ran out, so the replica writes its entries again", async () => {
    const back: string[] = [];
    const handed = new HandedClusters({ changed: (c) => back.push(c), graceMs: 20 });
    handed.said(1, new Set(["m1"]));
    await new Promise((r) => setTimeout(r, 60));
    assert.deepEqual(back, ["m1"]);
    assert.equal(handed.has("m1"), false);
    handed.stop();
  });
});
