import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MetricsStore } from "./metrics-store.ts";

describe("MetricsStore", () => {
  it("keeps the latest summary per member and workload, and drops those older than the window", () => {
    const s = new MetricsStore();
    s.set("m1", "apps/v1/Deployment/shop/web", { pods: 2, readyPods: 2 }, 1000);
    s.set("m1", "apps/v1/Deployment/shop/web", { pods: 3, readyPods: 3 }, 2000);
    s.set("m2", "apps/v1/Deployment/shop/web", { pods: 1, readyPods: 0 }, 500);
    assert.deepEqual([...s.summaries("apps/v1/Deployment/shop/web", 2500, 1000)], [["m1", { pods: 3, readyPods: 3 }]], "m2's is 2 s old");
    assert.equal(s.summaries("apps/v1/Deployment/shop/web", 2500, 5000).size, 2);
  });

  it("an older summary arriving late (collected from another replica) does not replace a newer one", () => {
    const s = new MetricsStore();
    s.set("m1", "w", { pods: 3, readyPods: 3 }, 2000);
    s.set("m1", "w", { pods: 2, readyPods: 2 }, 1500);
    assert.deepEqual(s.summaries("w", 2500, 5000).get("m1"), { pods: 3, readyPods: 3 });
  });
});
