import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AggregatedStatusItem, Cluster, KubeObject, PropagationPolicy, ReplicaSchedulingStrategy, ResourceBinding, Taint, Toleration } from "../../shared/api/types.ts";
import { placementAfter, TAINT_REASON } from "./graceful-eviction.ts";
import { noExecuteAsNoSchedule } from "./no-execute.ts";
import { scheduleTemplate } from "./schedule.ts";

const T0 = Date.parse("2026-11-25T05:00:00Z");
const PERIOD = 60_000;
const cluster = (name: string, taints: Taint[] = []): Cluster => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "Cluster",
  metadata: { name },
  spec: { taints },
  status: { conditions: [{ type: "Ready", status: "True", reason: "", message: "", lastTransitionTime: "" }] },
});
const noExecute: Taint = { key: "not-ready", effect: "NoExecute" };
const deployment: KubeObject = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: "default" }, spec: { replicas: 4, template: { spec: { containers: [{ name: "c" }] } } } };
const divided: ReplicaSchedulingStrategy = { replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted" };
const policy = (o: { divided?: boolean; tolerations?: Toleration[] } = {}): PropagationPolicy => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "PropagationPolicy",
  metadata: { name: "p", namespace: "default" },
  spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment" }], placement: { ...(o.divided ? { replicaScheduling: divided } : {}), ...(o.tolerations ? { clusterTolerations: o.tolerations } : {}) } },
});
const binding = (clusters: { name: string; replicas?: number }[], status: AggregatedStatusItem[] = []): ResourceBinding => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "ResourceBinding",
  metadata: { name: "web-deployment", namespace: "default" },
  spec: { resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name: "web" }, clusters },
  status: { aggregatedStatus: status },
});
const healthy = (name: string, availableReplicas: number): AggregatedStatusItem => ({ clusterName: name, applied: true, health: "Healthy", status: { availableReplicas } });
const show = (ts: { name: string; replicas?: number }[]) => ts.map((t) => `${t.name}=${t.replicas ?? "-"}`).join(" ");

/** Schedules and places as the binding controller does, over clusters as Caches.placeableClusters shows them. */
function place(o: { evict: boolean; policy: PropagationPolicy; clusters: Cluster[]; existing: ResourceBinding; now?: number }) {
  const live = o.evict ? o.clusters : o.clusters.map(noExecuteAsNoSchedule);
  const schedule = scheduleTemplate(deployment, o.policy, live, o.existing.spec.clusters);
  return placementAfter({ schedule, existing: o.existing, policy: o.policy, live, now: o.now ?? T0, evictionPeriodMs: PERIOD });
}

describe("NoExecute under --enable-no-execute-taint-eviction", () => {
  const cases: { name: string; evict: boolean; divided?: boolean; tolerations?: Toleration[]; existing: ResourceBinding; now?: number; targets: string; reasons: string[] }[] = [
    { name: "off (the default): a held Duplicated copy stays", evict: false, existing: binding([{ name: "a", replicas: 4 }, { name: "b", replicas: 4 }]), targets: "a=4 b=4", reasons: [] },
    { name: "off: a held Divided share stays", evict: false, divided: true, existing: binding([{ name: "a", replicas: 2 }, { name: "b", replicas: 2 }]), targets: "a=2 b=2", reasons: [] },
    { name: "off: nothing new goes to the tainted cluster", evict: false, existing: binding([{ name: "a", replicas: 4 }]), targets: "a=4", reasons: [] },
    {
      name: "on: the Duplicated copy is held (TaintUntolerated) until the rest is Available and the period passed",
      evict: true,
      existing: binding([{ name: "a", replicas: 4 }, { name: "b", replicas: 4 }]),
      targets: "a=4 b=4",
      reasons: [TAINT_REASON],
    },
    {
      name: "on: the Divided share moves, the old copy held while the new one comes up",
      evict: true,
      divided: true,
      existing: binding([{ name: "a", replicas: 2 }, { name: "b", replicas: 2 }], [healthy("a", 2)]),
      targets: "a=4 b=2",
      reasons: [TAINT_REASON],
    },
    { name: "on, tolerated: nothing moves", evict: true, tolerations: [{ key: "not-ready", operator: "Exists" }], existing: binding([{ name: "a", replicas: 4 }, { name: "b", replicas: 4 }]), targets: "a=4 b=4", reasons: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const p = policy({ ...(c.divided ? { divided: true } : {}), ...(c.tolerations ? { tolerations: c.tolerations } : {}) });
      const got = place({ evict: c.evict, policy: p, clusters: [cluster("a"), cluster("b", [noExecute])], existing: c.existing });
      assert.equal(show(got.targets), c.targets);
      assert.deepEqual(got.evictions.map((t) => t.reason), c.reasons);
    });
  }

  it("on: the copy goes only after the replacement was Available for the period (add first, then remove)", () => {
    const p = policy({ divided: true });
    const clusters = [cluster("a"), cluster("b", [noExecute])];
    const first = place({ evict: true, policy: p, clusters, existing: binding([{ name: "a", replicas: 2 }, { name: "b", replicas: 2 }]) });
    const moving = binding(first.targets, [healthy("a", 4)]);
    moving.spec.gracefulEvictionTasks = first.evictions;
    const early = place({ evict: true, policy: p, clusters, existing: moving, now: T0 + PERIOD / 2 });
    assert.equal(show(early.targets), "a=4 b=2", "held within the period");
    const seen = placementAfter({ schedule: scheduleTemplate(deployment, p, clusters, moving.spec.clusters), existing: moving, policy: p, live: clusters, now: T0 + PERIOD, evictionPeriodMs: PERIOD, availableSince: { clusters: ["a"], since: T0 } });
    assert.equal(show(seen.targets), "a=4", "released once Available for the period");
  });
});

describe("noExecuteAsNoSchedule", () => {
  it("shows NoExecute as NoSchedule and keeps the rest", () => {
    const c = cluster("b", [noExecute, { key: "m", value: "v", effect: "NoSchedule" }]);
    assert.deepEqual(noExecuteAsNoSchedule(c).spec.taints, [{ key: "not-ready", effect: "NoSchedule" }, { key: "m", value: "v", effect: "NoSchedule" }]);
    assert.deepEqual(c.spec.taints?.[0], noExecute, "the cached object is not changed");
  });
  it("returns the same object when there is no NoExecute taint (no copy per schedule)", () => {
    const c = cluster("a", [{ key: "m", effect: "NoSchedule" }]);
    assert.equal(noExecuteAsNoSchedule(c), c);
  });
});
