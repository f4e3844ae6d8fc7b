import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster, ResourceBinding, RolloutStrategy } from "../../shared/api/types.ts";
import { planOf, planOfBinding, resolveCount } from "./rollout-groups.ts";

const cluster = (name: string, labels: Record<string, string> = {}): Cluster => ({ apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name, labels }, spec: {} });
const fleet = [cluster("eu-1", { region: "eu" }), cluster("us-1", { region: "us" }), cluster("eu-2", { region: "eu" }), cluster("ap-1", { region: "ap" }), cluster("canary", { tier: "canary" })];
const shape = (s: RolloutStrategy, clusters = fleet) => planOf(s, clusters).groups.map((g) => `${g.name}:${g.clusters.join(",")}/${g.maxConcurrency}${g.approval === "None" ? "" : `/${g.approval}`}`);

describe("resolveCount", () => {
  const table: [string, Parameters<typeof resolveCount>, number | RegExp][] = [
    ["a count", [3, 10, 0], 3],
    ["undefined gives the fallback", [undefined, 10, 7], 7],
    ["a percentage rounds up", ["25%", 10, 0], 3],
    ["0%", ["0%", 10, 1], 0],
    ["100%", ["100%", 7, 0], 7],
    ["over 100%", ["150%", 10, 0], /neither a count nor a percentage/],
    ["a fraction", [1.5, 10, 0], /not a count/],
    ["a negative count", [-1, 10, 0], /not a count/],
    ["words", ["half", 10, 0], /neither/],
  ];
  for (const [name, args, want] of table) {
    it(name, () => {
      if (want instanceof RegExp) assert.throws(() => resolveCount(...args), want);
      else assert.equal(resolveCount(...args), want);
    });
  }
});

describe("planOf", () => {
  it("groups by names and selectors in order; a cluster belongs to the first; the rest form a last group", () => {
    const s: RolloutStrategy = {
      groups: [
        { name: "canary", clusterSelector: { matchLabels: { tier: "canary" } }, approval: "AfterGroup" },
        { name: "eu", clusterSelector: { matchLabels: { region: "eu" } }, maxConcurrency: 1 },
        { name: "again", clusterNames: ["eu-1"] },
      ],
    };
    assert.deepEqual(shape(s), ["canary:canary/1/AfterGroup", "eu:eu-1,eu-2/1", "rest:ap-1,us-1/2"], "an empty group is left out");
  });
  it("clustersPerGroup: waves of that many, by name", () => {
    assert.deepEqual(shape({ clustersPerGroup: 2 }), ["group-1:ap-1,canary/2", "group-2:eu-1,eu-2/2", "group-3:us-1/1"]);
    assert.deepEqual(shape({ clustersPerGroup: "40%" }), ["group-1:ap-1,canary/2", "group-2:eu-1,eu-2/2", "group-3:us-1/1"]);
  });
  it("neither: one wave of all", () => {
    assert.deepEqual(shape({}), ["all:ap-1,canary,eu-1,eu-2,us-1/5"]);
  });
  it("no clusters: no groups", () => {
    assert.deepEqual(shape({ clustersPerGroup: 2 }, []), []);
  });
  it("a maxConcurrency percentage of the group, at least 1", () => {
    assert.deepEqual(shape({ groups: [{ name: "eu", clusterSelector: { matchLabels: { region: "eu" } }, maxConcurrency: "10%" }] }), ["eu:eu-1,eu-2/1", "rest:ap-1,canary,us-1/3"]);
  });
  it("durations, failures and unavailability, with their defaults", () => {
    const p = planOf({ minSuccessTime: "1m", progressDeadline: "2m", maxFailures: "20%", maxUnavailable: 2, onFailure: "Rollback" }, fleet);
    assert.deepEqual([p.minSuccessMs, p.progressDeadlineMs, p.maxFailures, p.maxUnavailable, p.onFailure], [60_000, 120_000, 1, 2, "Rollback"]);
    const d = planOf({}, fleet);
    assert.deepEqual([d.minSuccessMs, d.progressDeadlineMs, d.maxFailures, d.maxUnavailable, d.onFailure], [0, 600_000, 0, 5, "Pause"]);
  });
  it("a binding's plan: its target clusters as the cache has them; one gone from the cache keeps its place by name", () => {
    const binding = { spec: { clusters: [{ name: "eu-1" }, { name: "gone" }, { name: "us-1" }] } } as ResourceBinding;
    const p = planOfBinding({ groups: [{ name: "eu", clusterSelector: { matchLabels: { region: "eu" } } }] }, binding, (n) => fleet.find((c) => c.metadata.name === n));
    assert.deepEqual(p.groups.map((g) => [g.name, g.clusters]), [["eu", ["eu-1"]], ["rest", ["gone", "us-1"]]]);
  });
});
