import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AggregatedStatusItem, AggregatedSummary, ResourceBinding } from "../../shared/api/types.ts";
import { leaderStatus } from "./leader-status.ts";

const ok = (clusterName: string): AggregatedStatusItem => ({ clusterName, applied: true, health: "Healthy", reason: "", observedHash: "h1" });
const binding = (targets: string[], summary?: AggregatedSummary): ResourceBinding =>
  ({
    apiVersion: "work.karmada.io/v1alpha2",
    kind: "ResourceBinding",
    metadata: { name: "web-deployment", namespace: "default", generation: 1 },
    spec: { resource: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, clusters: targets.map((name) => ({ name })) },
    ...(summary ? { status: { aggregatedSummary: summary, conditions: [{ type: "FullyApplied", status: "True", reason: "FullyApplied", message: "", lastTransitionTime: "2026-01-01T00:00:00Z" }] } } : {}),
  }) as ResourceBinding;
const counted = (n: number): AggregatedSummary => ({ clusters: n, reported: n, applied: n, asDesired: n, omittedEntries: 0, health: { Healthy: n } });

describe("leaderStatus: the startup hold of a bounded status", () => {
  const now = "2026-01-02T00:00:00Z";
  const cases: { name: string; targets: string[]; merged: string[]; startingUp: boolean; previous?: AggregatedSummary; held: boolean }[] = [
    { name: "every cluster heard: written", targets: ["a", "b", "c"], merged: ["a", "b", "c"], startingUp: true, previous: counted(3), held: false },
    { name: "starting up, a target left out and not heard again: held", targets: ["a", "b", "c"], merged: ["a"], startingUp: true, previous: counted(3), held: true },
    { name: "after the grace: written as it is", targets: ["a", "b", "c"], merged: ["a"], startingUp: false, previous: counted(3), held: false },
    { name: "a target dropped (fewer reported, none unheard): written", targets: ["a", "b"], merged: ["a", "b"], startingUp: true, previous: counted(3), held: false },
    { name: "no summary yet (a new binding): written", targets: ["a", "b"], merged: ["a"], startingUp: true, held: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const merged = c.merged.map(ok);
      const out = leaderStatus({ binding: binding(c.targets, c.previous), deleting: false, targets: c.targets, entries: merged, merged, expectedHash: {}, outcome: undefined, limit: 1, startingUp: c.startingUp, now });
      assert.equal(out.held, c.held);
      if (c.held) {
        assert.deepEqual(out.status.aggregatedSummary, c.previous, "the summary stays");
        assert.equal(out.status.conditions?.find((x) => x.type === "FullyApplied")?.status, "True", "the conditions stay");
      } else assert.equal(out.status.aggregatedSummary?.reported, c.merged.length);
    });
  }
  it("the entries are bounded either way: over the limit, clusters as desired are left out", () => {
    const merged = ["a", "b", "c"].map(ok);
    const out = leaderStatus({ binding: binding(["a", "b", "c"]), deleting: false, targets: ["a", "b", "c"], entries: merged, merged, expectedHash: {}, outcome: undefined, limit: 1, startingUp: false, now });
    assert.deepEqual([out.status.aggregatedStatus, out.bounded.bounded, out.status.aggregatedSummary?.asDesired], [[], true, 3]);
  });
});
