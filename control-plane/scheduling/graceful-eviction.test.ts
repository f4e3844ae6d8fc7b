import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AggregatedStatusItem, Cluster, GracefulEvictionTask, TargetCluster } from "../../shared/api/types.ts";
import { EVICTION_RECHECK_MS, FAILBACK_REASON, gracefulEviction, type ReplacementSeen, replacementAvailable } from "./graceful-eviction.ts";

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
  /** When the replacement was first seen Available, as the caller remembers it. */
  since?: ReplacementSeen;
  targets: string;
  tasksAfter: GracefulEvictionTask[];
  recheckAfterMs?: number;
  sinceAfter?: ReplacementSeen;
}

const show = (ts: TargetCluster[]) => ts.map((t) => `${t.name}=${t.replicas ?? "-"}`).join(" ");

const seen = (since: number, ...clusters: string[]): ReplacementSeen => ({ clusters, since });

/** m1 is not Ready and being evicted since T0; its share runs Available on m2 (4 of 4). */
const m1Evicted = {
  current: [{ name: "m1", replicas: 2 }, { name: "m2", replicas: 4 }],
  tasks: [task("m1", 2, T0)],
  scheduled: [{ name: "m2", replicas: 4 }],
  clusters: [cluster("m1", false), cluster("m2", true)],
  status: [healthy("m2", 4)],
  targets: "m1=2 m2=4",
  tasksAfter: [task("m1", 2, T0)],
};

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
      ...m1Evicted,
      name: "the replacement Available but the period not over: still kept, looked at again within EVICTION_RECHECK_MS",
      now: T0 + 20_000,
      since: seen(T0 + 10_000, "m2"),
      recheckAfterMs: EVICTION_RECHECK_MS,
      sinceAfter: seen(T0 + 10_000, "m2"),
    },
    {
      ...m1Evicted,
      name: "the eviction's period ends first (2 s left) but the replacement's has 12 s left: recheck within EVICTION_RECHECK_MS, not at 2 s",
      now: T0 + PERIOD - 2000,
      since: seen(T0 + 10_000, "m2"),
      recheckAfterMs: EVICTION_RECHECK_MS,
      sinceAfter: seen(T0 + 10_000, "m2"),
    },
    {
      ...m1Evicted,
      name: "both periods end within EVICTION_RECHECK_MS: recheck when the later (the replacement's, 3 s) ends",
      now: T0 + 2 * PERIOD,
      since: seen(T0 + PERIOD + 3000, "m2"),
      recheckAfterMs: 3000,
      sinceAfter: seen(T0 + PERIOD + 3000, "m2"),
    },
    {
      ...m1Evicted,
      name: "the replacement first seen Available at the eviction period's end: kept, its own period starts now",
      now: T0 + PERIOD,
      recheckAfterMs: EVICTION_RECHECK_MS,
      sinceAfter: seen(T0 + PERIOD, "m2"),
    },
    {
      ...m1Evicted,
      name: "the replacement Available for 1 ms less than the period (the eviction long over): kept",
      now: T0 + 10 * PERIOD,
      since: seen(T0 + 9 * PERIOD + 1, "m2"),
      recheckAfterMs: 1,
      sinceAfter: seen(T0 + 9 * PERIOD + 1, "m2"),
    },
    {
      ...m1Evicted,
      name: "the replacement stops being Available (2 of 4): kept, and the clock is reset",
      now: T0 + 10 * PERIOD,
      status: [healthy("m2", 2)],
      since: seen(T0, "m2"),
      recheckAfterMs: EVICTION_RECHECK_MS,
    },
    {
      ...m1Evicted,
      name: "the replacement moved to other clusters (m3 joins m2): the clock restarts, though both report Available",
      now: T0 + 10 * PERIOD,
      scheduled: [{ name: "m2", replicas: 2 }, { name: "m3", replicas: 2 }],
      clusters: [cluster("m1", false), cluster("m2", true), cluster("m3", true)],
      status: [healthy("m2", 4), healthy("m3", 2)],
      since: seen(T0, "m2"),
      targets: "m1=2 m2=2 m3=2",
      recheckAfterMs: EVICTION_RECHECK_MS,
      sinceAfter: seen(T0 + 10 * PERIOD, "m2", "m3"),
    },
    {
      ...m1Evicted,
      name: "the same clusters with other replicas (scaled down) keep their clock: released",
      now: T0 + 2 * PERIOD,
      scheduled: [{ name: "m2", replicas: 3 }],
      since: seen(T0 + PERIOD, "m2"),
      targets: "m2=3",
      tasksAfter: [],
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
      ...m1Evicted,
      name: "the replacement Available for the period, and the eviction's period over: the evicted copy goes",
      now: T0 + PERIOD,
      since: seen(T0, "m2"),
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
        ...(c.since ? { availableSince: c.since } : {}),
      });
      assert.equal(show(r.targets), c.targets);
      assert.deepEqual(r.tasks, c.tasksAfter);
      assert.equal(r.recheckAfterMs, c.recheckAfterMs);
      assert.deepEqual(r.availableSince, c.sinceAfter);
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
