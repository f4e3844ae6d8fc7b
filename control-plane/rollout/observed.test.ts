import assert from "node:assert/strict";
import { it } from "node:test";
import type { AggregatedStatusItem } from "../../shared/api/types.ts";
import { observedOf } from "./observed.ts";

it("observedOf reads a report against the Work rendered for the cluster", () => {
  const works = new Map([
    ["m1", { hash: "h-b", revision: "B" }],
    ["m2", { hash: "h-b2", revision: "B" }],
    ["m3", { hash: "h-a", revision: "A" }],
    ["m4", { hash: "h-b4", revision: "B" }],
  ]);
  const items: AggregatedStatusItem[] = [
    { clusterName: "m1", applied: true, health: "Healthy", observedHash: "h-b" },
    { clusterName: "m2", applied: true, health: "Healthy", observedHash: "h-a2" },
    { clusterName: "m3", applied: true, health: "Progressing", observedHash: "h-a" },
    { clusterName: "m4", applied: false, reason: "UpdateFailed", message: "denied by policy", health: "Healthy", observedHash: "h-b4" },
    { clusterName: "m5", applied: true, health: "Healthy", observedHash: "h" },
  ];
  assert.deepEqual(Object.fromEntries(observedOf(items, (c) => works.get(c))), {
    m1: { revision: "B", healthy: true },
    m2: { healthy: false },
    m3: { revision: "A", healthy: false },
    m4: { revision: "B", healthy: false, failed: "denied by policy" },
    m5: { healthy: false },
  });
});
