import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AggregatedStatusItem, Cluster, GracefulEvictionTask, KubeObject, PropagationPolicy, ResourceBinding, TargetCluster } from "../../shared/api/types.ts";
import { CACHE_LAG_MS, cacheBehind, FRESH_RESCHEDULE_REASON, freshRescheduleDue, holdDroppedClusters, laterOf, previousTargets, triggerNeeded } from "./fresh-reschedule.ts";
import { scheduleTemplate } from "./schedule.ts";

const T1 = "2026-11-24T10:00:00Z";
const T2 = "2026-11-24T11:00:00Z";
const NOW = Date.parse("2026-11-24T12:00:00Z");

const cluster = (name: string, opts: { ready?: boolean; cpu?: string; usedCpu?: string } = {}): Cluster => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "Cluster",
  metadata: { name },
  spec: {},
  status: {
    conditions: [{ type: "Ready", status: opts.ready === false ? "False" : "True", reason: "", message: "", lastTransitionTime: "" }],
    ...(opts.cpu ? { resourceSummary: { allocatable: { cpu: opts.cpu, pods: "110" }, allocated: { cpu: opts.usedCpu ?? "0", pods: "0" } } } : {}),
  },
});

const binding = (o: { trigger?: string; served?: string; clusters?: TargetCluster[]; tasks?: GracefulEvictionTask[]; status?: AggregatedStatusItem[] } = {}): ResourceBinding => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "ResourceBinding",
  metadata: { name: "web-deployment", namespace: "default", ...(o.served ? { annotations: { "flotilla.dev/reschedule-served": o.served } } : {}) },
  spec: {
    resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name: "web", uid: "u" },
    clusters: o.clusters ?? [],
    ...(o.trigger ? { rescheduleTriggeredAt: o.trigger } : {}),
    ...(o.tasks ? { gracefulEvictionTasks: o.tasks } : {}),
  },
  ...(o.status ? { status: { aggregatedStatus: o.status } } : {}),
});

describe("freshRescheduleDue: a trigger is served once", () => {
  const cases: { name: string; b: ResourceBinding | undefined; servedHere?: string; want: string | undefined }[] = [
    { name: "no binding", b: undefined, want: undefined },
    { name: "no trigger", b: binding(), want: undefined },
    { name: "a trigger never served", b: binding({ trigger: T1 }), want: T1 },
    { name: "the trigger already served (the annotation written with the schedule)", b: binding({ trigger: T1, served: T1 }), want: undefined },
    { name: "a later trigger than the one served", b: binding({ trigger: T2, served: T1 }), want: T2 },
    { name: "an earlier trigger than the one served (set back by hand): ignored", b: binding({ trigger: T1, served: T2 }), want: undefined },
    { name: "served by this process, the cache not showing it yet", b: binding({ trigger: T1 }), servedHere: T1, want: undefined },
    { name: "a later trigger than this process served", b: binding({ trigger: T2 }), servedHere: T1, want: T2 },
  ];
  for (const c of cases) it(c.name, () => assert.equal(freshRescheduleDue(c.b, c.servedHere), c.want));
});

describe("cacheBehind: a schedule is never built on a cached binding from before this process' fresh one", () => {
  const here = { trigger: T2, at: NOW };
  const cases: { name: string; b: ResourceBinding | undefined; now?: number; servedHere?: typeof here; want: boolean }[] = [
    { name: "nothing served here", b: binding({ trigger: T2 }), want: false },
    { name: "no binding in the cache", b: undefined, servedHere: here, want: false },
    { name: "the cache shows the write (the annotation)", b: binding({ trigger: T2, served: T2 }), servedHere: here, want: false },
    { name: "the cache shows the binding from before the write", b: binding({ trigger: T2 }), servedHere: here, want: true },
    { name: "the cache shows an earlier serve only", b: binding({ trigger: T2, served: T1 }), servedHere: here, want: true },
    { name: "long after the write the cache is the truth (the annotation removed by hand)", b: binding({ trigger: T2 }), servedHere: here, now: NOW + CACHE_LAG_MS, want: false },
  ];
  for (const c of cases) it(c.name, () => assert.equal(cacheBehind(c.b, c.servedHere, c.now ?? NOW + 100), c.want));
});

describe("triggerNeeded: a rebalancer never sets a later request back (Karmada's rule)", () => {
  const cases: { name: string; requested: string; current?: string; want: boolean }[] = [
    { name: "no trigger on the binding", requested: T1, want: true },
    { name: "an earlier trigger", requested: T2, current: T1, want: true },
    { name: "the same trigger (written before a restart)", requested: T1, current: T1, want: false },
    { name: "a later trigger (a newer rebalancer)", requested: T1, current: T2, want: false },
  ];
  for (const c of cases) it(c.name, () => assert.equal(triggerNeeded(c.requested, c.current), c.want));
  it("laterOf picks the later, either absent", () => {
    assert.deepEqual([laterOf(T1, T2), laterOf(T2, T1), laterOf(undefined, T1), laterOf(T1, undefined), laterOf(undefined, undefined)], [T2, T2, T1, T1, undefined]);
  });
});

describe("scheduleTemplate, fresh: the previous assignment is disregarded, what a cluster runs still counts as its room", () => {
  const deployment = (replicas: number): KubeObject => ({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "default" },
    spec: { replicas, template: { spec: { containers: [{ name: "c", resources: { requests: { cpu: "1" } } }] } } },
  });
  const policy = (placement: PropagationPolicy["spec"]["placement"]): PropagationPolicy => ({ apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name: "p", namespace: "default" }, spec: { resourceSelectors: [], placement } });
  const dynamic = { replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted", weightPreference: { dynamicWeight: "AvailableReplicas" } } as const;
  const show = (t: TargetCluster[]) => t.map((x) => `${x.name}=${x.replicas ?? "-"}`).join(" ");
  const cases: { name: string; replicas: number; placement: PropagationPolicy["spec"]["placement"]; clusters: Cluster[]; previous: TargetCluster[]; steady: string; fresh: string }[] = [
    {
      // member2 runs all 6 (6 of its 8 CPUs): its room is 2 free + 6 its own = 8, as member1's.
      name: "one cluster at most (spread constraint): steady stays where it runs, fresh goes by room, then name",
      replicas: 6,
      placement: { replicaScheduling: dynamic, spreadConstraints: [{ spreadByField: "cluster", maxGroups: 1, minGroups: 1 }] },
      clusters: [cluster("member1", { cpu: "8" }), cluster("member2", { cpu: "8", usedCpu: "6" })],
      previous: [{ name: "member2", replicas: 6 }],
      steady: "member2=6",
      fresh: "member1=6",
    },
    {
      // The e2e's case: placed 5 + 1 while member2 was full; its room came back since.
      name: "dynamic weights: steady keeps the whole last assignment, fresh divides by room again",
      replicas: 6,
      placement: { replicaScheduling: dynamic },
      clusters: [cluster("member1", { cpu: "8", usedCpu: "5" }), cluster("member2", { cpu: "8", usedCpu: "1" })],
      previous: [{ name: "member1", replicas: 5 }, { name: "member2", replicas: 1 }],
      steady: "member1=5 member2=1",
      fresh: "member1=3 member2=3",
    },
    {
      name: "dynamic weights, equal room, an odd replica: steady leaves it where it was, fresh by name",
      replicas: 3,
      placement: { replicaScheduling: dynamic },
      clusters: [cluster("member1", { cpu: "8", usedCpu: "1" }), cluster("member2", { cpu: "8", usedCpu: "2" })],
      previous: [{ name: "member1", replicas: 1 }, { name: "member2", replicas: 2 }],
      steady: "member1=1 member2=2",
      fresh: "member1=2 member2=1",
    },
    {
      name: "room counts what the workload runs: fresh does not shed a full cluster's own replicas",
      replicas: 4,
      placement: { replicaScheduling: dynamic },
      clusters: [cluster("member1", { cpu: "4", usedCpu: "4" }), cluster("member2", { cpu: "4" })],
      previous: [{ name: "member1", replicas: 4 }],
      steady: "member1=2 member2=2",
      fresh: "member1=2 member2=2",
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const p = policy(c.placement);
      assert.equal(show(scheduleTemplate(deployment(c.replicas), p, c.clusters, c.previous).targets), c.steady, "steady");
      assert.equal(show(scheduleTemplate(deployment(c.replicas), p, c.clusters, c.previous, undefined, new Map(), true).targets), c.fresh, "fresh");
    });
  }
});

describe("holdDroppedClusters: a Ready cluster a fresh reschedule drops keeps its copy until the new placement is Available", () => {
  const [m1, m2] = [cluster("member1"), cluster("member2")];
  const healthy = (name: string, availableReplicas: number): AggregatedStatusItem => ({ clusterName: name, applied: true, health: "Healthy", status: { availableReplicas } });
  const task = (from: string, replicas: number): GracefulEvictionTask => ({ fromCluster: from, replicas, reason: FRESH_RESCHEDULE_REASON, creationTimestamp: new Date(NOW - 1000).toISOString() });
  const was = [{ name: "member2", replicas: 6 }];
  const now = [{ name: "member1", replicas: 6 }];
  type Case = { name: string; fresh: boolean; existing: ResourceBinding | undefined; live?: Cluster[]; selected?: string[]; targets?: TargetCluster[]; evictions?: GracefulEvictionTask[]; want: { targets: string; tasks: string; recheck: boolean } };
  const cases: Case[] = [
    { name: "no binding yet: nothing to hold", fresh: true, existing: undefined, want: { targets: "member1=6", tasks: "", recheck: false } },
    {
      name: "fresh, the replacement not Available yet: member2 held with what it had (add first)",
      fresh: true,
      existing: binding({ clusters: was, status: [healthy("member2", 6)] }),
      want: { targets: "member1=6 member2=6", tasks: "member2=6:FreshReschedule", recheck: true },
    },
    {
      name: "later (not fresh), its task still pending and the replacement still short: still held, the task as it was",
      fresh: false,
      existing: binding({ clusters: [...now, ...was], tasks: [task("member2", 6)], status: [healthy("member1", 3), healthy("member2", 6)] }),
      want: { targets: "member1=6 member2=6", tasks: "member2=6:FreshReschedule", recheck: true },
    },
    {
      name: "the replacement Available: member2 released",
      fresh: false,
      existing: binding({ clusters: [...now, ...was], tasks: [task("member2", 6)], status: [healthy("member1", 6), healthy("member2", 6)] }),
      want: { targets: "member1=6", tasks: "", recheck: false },
    },
    {
      name: "fresh, the replacement Available already (it only scales down elsewhere): nothing held",
      fresh: true,
      existing: binding({ clusters: [{ name: "member1", replicas: 8 }, ...was], status: [healthy("member1", 8), healthy("member2", 6)] }),
      want: { targets: "member1=6", tasks: "", recheck: false },
    },
    { name: "not fresh and no task: an ordinary schedule holds nothing here", fresh: false, existing: binding({ clusters: was }), want: { targets: "member1=6", tasks: "", recheck: false } },
    { name: "the dropped cluster is not Ready: graceful eviction's to hold, not this", fresh: true, existing: binding({ clusters: was }), live: [m1, cluster("member2", { ready: false })], want: { targets: "member1=6", tasks: "", recheck: false } },
    { name: "the policy no longer selects it: the user's intent, it goes at once", fresh: true, existing: binding({ clusters: was }), selected: ["member1"], want: { targets: "member1=6", tasks: "", recheck: false } },
    { name: "it is leaving (unjoined): never held", fresh: true, existing: binding({ clusters: was }), live: [m1], want: { targets: "member1=6", tasks: "", recheck: false } },
    {
      name: "graceful eviction holds it already (it went NotReady while held): left as graceful eviction says",
      fresh: false,
      existing: binding({ clusters: [...now, ...was], tasks: [task("member2", 6)] }),
      live: [m1, cluster("member2", { ready: false })],
      targets: [...now, ...was],
      evictions: [task("member2", 6)],
      want: { targets: "member1=6 member2=6", tasks: "member2=6:FreshReschedule", recheck: false },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const selected = new Set(c.selected ?? ["member1", "member2"]);
      const r = holdDroppedClusters({ fresh: c.fresh, existing: c.existing, targets: c.targets ?? now, evictions: c.evictions ?? [], live: c.live ?? [m1, m2], selected: (n) => selected.has(n), now: NOW });
      assert.deepEqual(
        { targets: r.targets.map((t) => `${t.name}=${t.replicas}`).join(" "), tasks: r.evictions.map((t) => `${t.fromCluster}=${t.replicas}:${t.reason}`).join(" "), recheck: r.recheckAfterMs !== undefined },
        c.want,
      );
    });
  }

  it("a held cluster is not the previous assignment the next schedule builds on", () => {
    assert.deepEqual(previousTargets(binding({ clusters: [...now, ...was], tasks: [task("member2", 6)] })), now);
    assert.deepEqual(previousTargets(binding({ clusters: [...now, ...was] })), [...now, ...was]);
    assert.equal(previousTargets(undefined), undefined);
  });
});
