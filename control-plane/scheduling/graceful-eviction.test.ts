import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AggregatedStatusItem, Cluster, GracefulEvictionTask, TargetCluster } from "../../shared/api/types.ts";
import { EVICTION_RECHECK_MS, FAILBACK_REASON, gracefulEviction, replacementAvailable } from "./graceful-eviction.ts";

const T0 = Date.parse("2026-11-23T10:00:00Z");
const PERIOD = 60_000;
const cluster = (name: string, ready: boolean): Cluster => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "Cluster",
  metadata: { name },
  spec: {},
  status: { conditions: [{ type: "Ready", status: ready ? "True" : "False", reason: "", message: "", lastTransitionTime: "" }] },
});
const healthy = (name: string, availableReplicas: number): AggregatedStatusItem => ({ clusterName: name, applied: true, health: "Healthy", status: { availableReplicas } });
const task = (fromCluster: string, replicas: number, startedAt: number): GracefulEvictionTask => ({ fromCluster, replicas, reason: "ClusterNotReady", creationTimestamp: new Date(startedAt).toISOString() });

interface Case {
  name: string;
  now?: number;
  current: TargetCluster[];
  tasks?: GracefulEvictionTask[];
  scheduled: TargetCluster[];
  clusters: Cluster[];
  unselected?: string[];
  status?: AggregatedStatusItem[];
  groupChanged?: boolean;
  targets: string;
  tasksAfter: GracefulEvictionTask[];
  recheckAfterMs?: number;
}

const show = (ts: TargetCluster[]) => ts.map((t) => `${t.name}=${t.replicas ?? "-"}`).join(" ");

const failback = (fromCluster: string, replicas: number, startedAt: number): GracefulEvictionTask => ({ ...task(fromCluster, replicas, startedAt), reason: FAILBACK_REASON });

describe("gracefulEviction", () => {
  const cases: Case[] = [
    {
      name: "failback: the workload moves back to a recovered group; the Ready backup keeps its copy until the primary's is Available",
      current: [{ name: "backup", replicas: 4 }],
      scheduled: [{ name: "primary", replicas: 4 }],
      clusters: [cluster("primary", true), cluster("backup", true)],
      groupChanged: true,
      targets: "backup=4 primary=4",
      tasksAfter: [failback("backup", 4, T0)],
      recheckAfterMs: EVICTION_RECHECK_MS,
    },
    {
      name: "failback: still held while the primary runs 2 of 4",
      now: T0 + 1000,
      current: [{ name: "backup", replicas: 4 }, { name: "primary", replicas: 4 }],
      tasks: [failback("backup", 4, T0)],
      scheduled: [{ name: "primary", replicas: 4 }],
      clusters: [cluster("primary", true), cluster("backup", true)],
      status: [healthy("primary", 2)],
      targets: "backup=4 primary=4",
      tasksAfter: [failback("backup", 4, T0)],
      recheckAfterMs: EVICTION_RECHECK_MS,
    },
    {
      name: "failback: released as soon as the primary is Available (no eviction period: the backup is healthy)",
      now: T0 + 1000,
      current: [{ name: "backup", replicas: 4 }, { name: "primary", replicas: 4 }],
      tasks: [failback("backup", 4, T0)],
      scheduled: [{ name: "primary", replicas: 4 }],
      clusters: [cluster("primary", true), cluster("backup", true)],
      status: [healthy("primary", 4)],
      targets: "primary=4",
      tasksAfter: [],
    },
    {
      name: "a Ready cluster dropped without a group change (weights, spread) goes at once, as before",
      current: [{ name: "m1", replicas: 2 }, { name: "m2", replicas: 2 }],
      scheduled: [{ name: "m2", replicas: 4 }],
      clusters: [cluster("m1", true), cluster("m2", true)],
      targets: "m2=4",
      tasksAfter: [],
    },
    {
      name: "a not-Ready cluster dropped by the schedule keeps its copy while the share is added elsewhere",
      current: [{ name: "m1", replicas: 2 }, { name: "m2", replicas: 2 }],
      scheduled: [{ name: "m2", replicas: 4 }],
      clusters: [cluster("m1", false), cluster("m2", true)],
      targets: "m1=2 m2=4",
      tasksAfter: [task("m1", 2, T0)],
      recheckAfterMs: EVICTION_RECHECK_MS,
    },
    {
      name: "the replacement Available but the period not over: still kept, recheck when it ends",
      now: T0 + 20_000,
      current: [{ name: "m1", replicas: 2 }, { name: "m2", replicas: 4 }],
      tasks: [task("m1", 2, T0)],
      scheduled: [{ name: "m2", replicas: 4 }],
      clusters: [cluster("m1", false), cluster("m2", true)],
      status: [healthy("m2", 4)],
      targets: "m1=2 m2=4",
      tasksAfter: [task("m1", 2, T0)],
      recheckAfterMs: 40_000,
    },
    {
      name: "the period over but the replacement not Available (2 of 4): still kept",
      now: T0 + 10 * PERIOD,
      current: [{ name: "m1", replicas: 2 }, { name: "m2", replicas: 4 }],
      tasks: [task("m1", 2, T0)],
      scheduled: [{ name: "m2", replicas: 4 }],
      clusters: [cluster("m1", false), cluster("m2", true)],
      status: [healthy("m2", 2)],
      targets: "m1=2 m2=4",
      tasksAfter: [task("m1", 2, T0)],
      recheckAfterMs: EVICTION_RECHECK_MS,
    },
    {
      name: "the replacement Available and the period over: the evicted copy goes",
      now: T0 + PERIOD,
      current: [{ name: "m1", replicas: 2 }, { name: "m2", replicas: 4 }],
      tasks: [task("m1", 2, T0)],
      scheduled: [{ name: "m2", replicas: 4 }],
      clusters: [cluster("m1", false), cluster("m2", true)],
      status: [healthy("m2", 4)],
      targets: "m2=4",
      tasksAfter: [],
    },
    {
      name: "no cluster Ready: the binding keeps its last placement",
      current: [{ name: "m1", replicas: 2 }, { name: "m2", replicas: 2 }],
      scheduled: [],
      clusters: [cluster("m1", false), cluster("m2", false)],
      status: [healthy("m1", 2), healthy("m2", 2)],
      targets: "m1=2 m2=2",
      tasksAfter: [task("m1", 2, T0), task("m2", 2, T0)],
      recheckAfterMs: EVICTION_RECHECK_MS,
    },
    {
      name: "the cluster recovers: it is scheduled again and its task ends",
      now: T0 + 5_000,
      current: [{ name: "m1", replicas: 2 }, { name: "m2", replicas: 4 }],
      tasks: [task("m1", 2, T0)],
      scheduled: [{ name: "m1", replicas: 2 }, { name: "m2", replicas: 2 }],
      clusters: [cluster("m1", true), cluster("m2", true)],
      targets: "m1=2 m2=2",
      tasksAfter: [],
    },
    {
      name: "the policy no longer selects the not-Ready cluster: the user's intent, it goes at once",
      current: [{ name: "m1", replicas: 2 }, { name: "m2", replicas: 2 }],
      tasks: [task("m1", 2, T0)],
      scheduled: [{ name: "m2", replicas: 4 }],
      clusters: [cluster("m1", false), cluster("m2", true)],
      unselected: ["m1"],
      targets: "m2=4",
      tasksAfter: [],
    },
    {
      name: "a Ready cluster the new weights leave out is no eviction: it goes at once",
      current: [{ name: "m1", replicas: 2 }, { name: "m2", replicas: 2 }],
      scheduled: [{ name: "m2", replicas: 4 }],
      clusters: [cluster("m1", true), cluster("m2", true)],
      targets: "m2=4",
      tasksAfter: [],
    },
    {
      name: "an unjoined (leaving) cluster is not held",
      current: [{ name: "m1", replicas: 2 }, { name: "m2", replicas: 2 }],
      tasks: [task("m1", 2, T0)],
      scheduled: [{ name: "m2", replicas: 4 }],
      clusters: [cluster("m2", true)],
      targets: "m2=4",
      tasksAfter: [],
    },
    {
      name: "a task keeps its start and replicas across reconciles",
      now: T0 + 30_000,
      current: [{ name: "m1", replicas: 3 }, { name: "m2", replicas: 6 }],
      tasks: [task("m1", 3, T0 - 1000)],
      scheduled: [{ name: "m2", replicas: 6 }],
      clusters: [cluster("m1", false), cluster("m2", true)],
      targets: "m1=3 m2=6",
      tasksAfter: [task("m1", 3, T0 - 1000)],
      recheckAfterMs: EVICTION_RECHECK_MS,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const unselected = new Set(c.unselected ?? []);
      const r = gracefulEviction({
        now: c.now ?? T0,
        periodMs: PERIOD,
        current: c.current,
        tasks: c.tasks ?? [],
        scheduled: c.scheduled,
        clusters: c.clusters,
        selected: (n) => !unselected.has(n),
        status: c.status ?? [],
        ...(c.groupChanged ? { groupChanged: true } : {}),
      });
      assert.equal(show(r.targets), c.targets);
      assert.deepEqual(r.tasks, c.tasksAfter);
      assert.equal(r.recheckAfterMs, c.recheckAfterMs);
    });
  }
});

describe("replacementAvailable", () => {
  it("needs every scheduled cluster applied, Healthy and with its replicas available", () => {
    const scheduled = [{ name: "m2", replicas: 3 }, { name: "m3", replicas: 3 }];
    assert.equal(replacementAvailable(scheduled, [healthy("m2", 3), healthy("m3", 3)]), true);
    assert.equal(replacementAvailable(scheduled, [healthy("m2", 3), healthy("m3", 2)]), false, "a stale entry with fewer replicas");
    assert.equal(replacementAvailable(scheduled, [healthy("m2", 3)]), false, "no entry for m3");
    assert.equal(replacementAvailable(scheduled, [healthy("m2", 3), { ...healthy("m3", 3), health: "Progressing" }]), false);
    assert.equal(replacementAvailable(scheduled, [healthy("m2", 3), { ...healthy("m3", 3), applied: false }]), false);
  });
  it("a kind without replicas needs only applied and Healthy", () => {
    assert.equal(replacementAvailable([{ name: "m2" }], [{ clusterName: "m2", applied: true, health: "Healthy" }]), true);
  });
  it("nothing scheduled is no replacement", () => {
    assert.equal(replacementAvailable([], []), false);
  });
});
