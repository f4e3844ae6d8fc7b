import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AggregatedStatusItem, ApplicationFailoverBehavior, GracefulEvictionTask, HealthWord, TargetCluster } from "../../shared/api/types.ts";
import { APPLICATION_FAILURE_REASON, assessApplicationTasks, detectApplicationFailures, type UnhealthySince } from "./application-failover.ts";

const T0 = Date.parse("2026-11-25T10:00:00Z");
const item = (clusterName: string, health: HealthWord, status?: Record<string, unknown>): AggregatedStatusItem => ({ clusterName, applied: true, health, ...(status ? { status } : {}) });
const app = (over: Partial<ApplicationFailoverBehavior> = {}): ApplicationFailoverBehavior => ({ decisionConditions: { tolerationSeconds: 60 }, ...over });

describe("detectApplicationFailures: Unhealthy for tolerationSeconds moves", () => {
  interface Case {
    name: string;
    failover?: ApplicationFailoverBehavior;
    current?: TargetCluster[];
    tasks?: GracefulEvictionTask[];
    status: AggregatedStatusItem[];
    notReady?: string[];
    since?: UnhealthySince;
    now?: number;
    evicted: string[];
    sinceAfter: UnhealthySince;
    recheck?: number;
  }
  const cases: Case[] = [
    { name: "no application failover: nothing judged, nothing remembered", status: [item("m1", "Unhealthy")], since: { m1: T0 - 600_000 }, evicted: [], sinceAfter: {} },
    { name: "first seen Unhealthy: the clock starts, look again when it runs out", failover: app(), status: [item("m1", "Unhealthy"), item("m2", "Healthy")], evicted: [], sinceAfter: { m1: T0 }, recheck: 60_000 },
    { name: "Unhealthy for less than tolerationSeconds: waits the rest", failover: app(), status: [item("m1", "Unhealthy")], since: { m1: T0 - 45_000 }, evicted: [], sinceAfter: { m1: T0 - 45_000 }, recheck: 15_000 },
    { name: "Unhealthy for tolerationSeconds: a task", failover: app(), status: [item("m1", "Unhealthy"), item("m2", "Healthy")], since: { m1: T0 - 60_000 }, evicted: ["m1"], sinceAfter: {} },
    { name: "tolerationSeconds 0: at the first Unhealthy report", failover: app({ decisionConditions: { tolerationSeconds: 0 } }), status: [item("m1", "Unhealthy")], evicted: ["m1"], sinceAfter: {} },
    { name: "default toleration is 300 s", failover: { decisionConditions: {} }, status: [item("m1", "Unhealthy")], since: { m1: T0 - 299_000 }, evicted: [], sinceAfter: { m1: T0 - 299_000 }, recheck: 1_000 },
    // Faults that must not move anything.
    { name: "Healthy again: the clock is forgotten", failover: app(), status: [item("m1", "Healthy")], since: { m1: T0 - 600_000 }, evicted: [], sinceAfter: {} },
    { name: "Progressing (a rollout) stops the clock", failover: app(), status: [item("m1", "Progressing")], since: { m1: T0 - 600_000 }, evicted: [], sinceAfter: {} },
    { name: "Unknown (no report, agent away) stops the clock", failover: app(), status: [item("m1", "Unknown")], since: { m1: T0 - 600_000 }, evicted: [], sinceAfter: {} },
    { name: "no report at all: nothing", failover: app(), status: [], since: { m1: T0 - 600_000 }, evicted: [], sinceAfter: {} },
    { name: "a cluster that is not Ready is graceful eviction's, not an application failure", failover: app(), status: [item("m1", "Unhealthy")], notReady: ["m1"], since: { m1: T0 - 600_000 }, evicted: [], sinceAfter: {} },
    { name: "a cluster that already has a task is not judged again", failover: app(), status: [item("m1", "Unhealthy")], tasks: [{ fromCluster: "m1", reason: "ClusterNotReady", creationTimestamp: "2026-11-25T09:00:00Z" }], since: { m1: T0 - 600_000 }, evicted: [], sinceAfter: {} },
    { name: "a report from a cluster no longer targeted counts for nothing", failover: app(), current: [{ name: "m2" }], status: [item("m1", "Unhealthy")], since: { m1: T0 - 600_000 }, evicted: [], sinceAfter: {} },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = detectApplicationFailures({
        now: c.now ?? T0,
        failover: c.failover,
        current: c.current ?? [{ name: "m1", replicas: 2 }, { name: "m2", replicas: 2 }],
        tasks: c.tasks ?? [],
        status: c.status,
        ready: (n) => !(c.notReady ?? []).includes(n),
        ...(c.since ? { unhealthySince: c.since } : {}),
      });
      assert.deepEqual(r.tasks.map((t) => t.fromCluster), c.evicted);
      assert.deepEqual(r.unhealthySince, c.sinceAfter);
      assert.equal(r.recheckAfterMs, c.recheck);
    });
  }

  it("the task says the purge mode, grace period, state and where it ran before", () => {
    const failover = app({ purgeMode: "Gracefully", statePreservation: { rules: [{ aliasLabelName: "example.com/replicas", jsonPath: "{.replicas}" }] } });
    const [task] = detectApplicationFailures({ now: T0, failover, current: [{ name: "m1", replicas: 2 }, { name: "m2", replicas: 1 }], tasks: [], status: [{ ...item("m1", "Unhealthy", { replicas: 2 }), message: "progress deadline exceeded" }], ready: () => true, unhealthySince: { m1: T0 - 61_000 } }).tasks;
    assert.deepEqual(task, {
      fromCluster: "m1",
      replicas: 2,
      reason: APPLICATION_FAILURE_REASON,
      creationTimestamp: new Date(T0).toISOString(),
      purgeMode: "Gracefully",
      message: "Unhealthy for 61s (progress deadline exceeded)",
      gracePeriodSeconds: 600,
      preservedLabelState: { "example.com/replicas": "2" },
      clustersBeforeFailover: ["m1", "m2"],
    });
  });
  it("Never suppresses deletion; Directly has no grace period", () => {
    const one = (purgeMode: "Never" | "Directly") => detectApplicationFailures({ now: T0, failover: app({ purgeMode, decisionConditions: { tolerationSeconds: 0 } }), current: [{ name: "m1" }], tasks: [], status: [item("m1", "Unhealthy")], ready: () => true }).tasks[0];
    assert.equal(one("Never")?.suppressDeletion, true);
    assert.equal(one("Never")?.gracePeriodSeconds, undefined);
    assert.equal(one("Directly")?.suppressDeletion, undefined);
    assert.equal(one("Directly")?.gracePeriodSeconds, undefined);
  });
  it("a state rule that reads nothing does not hold the move up: no labels, and the task says why", () => {
    const failover = app({ decisionConditions: { tolerationSeconds: 0 }, statePreservation: { rules: [{ aliasLabelName: "cp", jsonPath: "{.checkpoint}" }] } });
    const [task] = detectApplicationFailures({ now: T0, failover, current: [{ name: "m1" }], tasks: [], status: [item("m1", "Unhealthy", { replicas: 1 })], ready: () => true }).tasks;
    assert.equal(task?.preservedLabelState, undefined);
    assert.match(task?.message ?? "", /statePreservation rule cp: \{\.checkpoint\}: \.checkpoint is not found/);
  });
});

describe("assessApplicationTasks: which tasks stand and which copies they keep", () => {
  const task = (fromCluster: string, purgeMode: "Directly" | "Gracefully" | "Never", startedAt: number, extra: Partial<GracefulEvictionTask> = {}): GracefulEvictionTask => ({
    fromCluster,
    replicas: 2,
    reason: APPLICATION_FAILURE_REASON,
    creationTimestamp: new Date(startedAt).toISOString(),
    purgeMode,
    ...(purgeMode === "Gracefully" ? { gracePeriodSeconds: 120 } : {}),
    ...(purgeMode === "Never" ? { suppressDeletion: true } : {}),
    ...extra,
  });
  const healthyOn = (n: string) => ({ ...item(n, "Healthy", { availableReplicas: 2 }) });
  interface Case {
    name: string;
    tasks: GracefulEvictionTask[];
    scheduled?: TargetCluster[];
    status?: AggregatedStatusItem[];
    unselected?: string[];
    kept: string[];
    held: string[];
    recheck?: number;
  }
  const cases: Case[] = [
    { name: "Gracefully: the copy stays while the replacement comes up", tasks: [task("m1", "Gracefully", T0 - 10_000)], kept: ["m1"], held: ["m1"], recheck: 5_000 },
    { name: "Gracefully: the replacement is Healthy, the task ends", tasks: [task("m1", "Gracefully", T0 - 10_000)], status: [healthyOn("m2")], kept: [], held: [] },
    { name: "Gracefully: gracePeriodSeconds passed, the task ends although the replacement is not Healthy", tasks: [task("m1", "Gracefully", T0 - 120_000)], kept: [], held: [] },
    { name: "Gracefully: no grace period recorded means 600 s", tasks: [task("m1", "Gracefully", T0 - 120_000, { gracePeriodSeconds: undefined })], kept: ["m1"], held: ["m1"], recheck: 5_000 },
    { name: "Gracefully past its grace period with nothing scheduled elsewhere: the copy stays", tasks: [task("m1", "Gracefully", T0 - 600_000)], scheduled: [], kept: ["m1"], held: ["m1"], recheck: 5_000 },
    { name: "Directly: no copy kept; the task holds the cluster out until the replacement is Healthy", tasks: [task("m1", "Directly", T0 - 10_000)], kept: ["m1"], held: [], recheck: 5_000 },
    { name: "Directly: ends when the replacement is Healthy", tasks: [task("m1", "Directly", T0 - 10_000)], status: [healthyOn("m2")], kept: [], held: [] },
    { name: "Directly: ends after the eviction period", tasks: [task("m1", "Directly", T0 - 600_000)], kept: [], held: [] },
    {
      name: "Directly past the eviction period, the replacement just scheduled and not applied yet: the task (its preserved state) stands until it has applied",
      tasks: [task("m1", "Directly", T0 - 600_000)],
      status: [],
      kept: ["m1"],
      held: [],
      recheck: 5_000,
    },
    { name: "Directly past the eviction period, the replacement applied but not Healthy: the task ends", tasks: [task("m1", "Directly", T0 - 600_000)], status: [{ ...item("m2", "Progressing", { availableReplicas: 0 }) }], kept: [], held: [] },
    { name: "Gracefully past its grace period ends whether or not the replacement has applied", tasks: [task("m1", "Gracefully", T0 - 120_000)], status: [], kept: [], held: [] },
    { name: "Never: kept, whatever runs elsewhere and however long", tasks: [task("m1", "Never", T0 - 86_400_000)], status: [healthyOn("m2")], kept: ["m1"], held: ["m1"] },
    { name: "Never released by a person (suppressDeletion false): the copy goes", tasks: [task("m1", "Never", T0 - 10_000, { suppressDeletion: false })], kept: [], held: [] },
    { name: "a cluster the placement no longer selects (or that left): the task goes at once", tasks: [task("m1", "Never", T0 - 10_000)], unselected: ["m1"], kept: [], held: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = assessApplicationTasks({
        now: T0,
        periodMs: 300_000,
        tasks: c.tasks,
        scheduled: c.scheduled ?? [{ name: "m2", replicas: 2 }],
        status: c.status ?? [item("m2", "Progressing", { availableReplicas: 0 })],
        selected: (n) => !(c.unselected ?? []).includes(n),
      });
      assert.deepEqual(r.tasks.map((t) => t.fromCluster), c.kept);
      assert.deepEqual(r.held, c.held.map((name) => ({ name, replicas: 2 })));
      assert.equal(r.recheckAfterMs, c.recheck);
    });
  }
});
