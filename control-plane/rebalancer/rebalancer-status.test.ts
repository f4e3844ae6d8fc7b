import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ObservedWorkload, WorkloadRebalancer, WorkloadRebalancerStatus, WorkloadReference } from "../../shared/api/rebalancer.ts";
import { finished, nextStatus, observedWorkloads, ttlAction } from "./rebalancer-status.ts";

const deploy = (name: string, namespace = "default"): WorkloadReference => ({ apiVersion: "apps/v1", kind: "Deployment", name, namespace });
const crd = (name: string): WorkloadReference => ({ apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", name });
const ok = (w: WorkloadReference): ObservedWorkload => ({ workload: w, result: "Successful" });
const failed = (w: WorkloadReference): ObservedWorkload => ({ workload: w, result: "Failed", reason: "ReferencedBindingNotFound" });
const pending = (w: WorkloadReference): ObservedWorkload => ({ workload: w });
const names = (items: ObservedWorkload[]) => items.map((i) => `${i.workload.name}:${i.result ?? "-"}`);

describe("observedWorkloads: what status lists (Karmada's rules for spec edits)", () => {
  const cases: { name: string; spec: WorkloadReference[]; status?: ObservedWorkload[]; want: string[] }[] = [
    { name: "a new rebalancer: every workload, none done", spec: [deploy("b"), deploy("a")], want: ["a:-", "b:-"] },
    { name: "one listed twice counts once", spec: [deploy("a"), deploy("a")], want: ["a:-"] },
    { name: "results are kept", spec: [deploy("a"), deploy("b")], status: [ok(deploy("a")), failed(deploy("b"))], want: ["a:Successful", "b:Failed"] },
    { name: "a workload added to spec later is listed to be done", spec: [deploy("a"), deploy("c")], status: [ok(deploy("a"))], want: ["a:Successful", "c:-"] },
    { name: "one removed from spec stays if it was Successful (it was rescheduled)", spec: [deploy("b")], status: [ok(deploy("a")), ok(deploy("b"))], want: ["a:Successful", "b:Successful"] },
    { name: "one removed from spec goes if it Failed or was not done", spec: [deploy("c")], status: [failed(deploy("a")), pending(deploy("b")), ok(deploy("c"))], want: ["c:Successful"] },
    { name: "a changed entry (another namespace) is a removed one and an added one", spec: [deploy("a", "other")], status: [failed(deploy("a"))], want: ["a:-"] },
    { name: "sorted by apiVersion, kind, namespace, name; a cluster-scoped workload has none", spec: [deploy("z"), crd("y"), deploy("a", "b-ns")], want: ["y:-", "a:-", "z:-"] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(names(observedWorkloads(c.spec, c.status)), c.want));
  it("an empty namespace is written as none", () => assert.deepEqual(observedWorkloads([{ ...crd("y"), namespace: "" }], undefined), [{ workload: crd("y") }]));
});

describe("nextStatus: finishTime", () => {
  const NOW = new Date("2026-11-24T12:00:05.678Z");
  const r = (status?: WorkloadRebalancerStatus, generation = 1): WorkloadRebalancer => ({ apiVersion: "flotilla.dev/v1alpha1", kind: "WorkloadRebalancer", metadata: { name: "r", generation }, spec: { workloads: [deploy("a"), deploy("b")] }, ...(status ? { status } : {}) });
  const done = [ok(deploy("a")), failed(deploy("b"))];
  const cases: { name: string; r: WorkloadRebalancer; items: ObservedWorkload[]; want: WorkloadRebalancerStatus }[] = [
    { name: "every workload done: finished now (seconds, as metav1.Time)", r: r(), items: done, want: { observedWorkloads: done, observedGeneration: 1, finishTime: "2026-11-24T12:00:05Z" } },
    { name: "a workload waits for a retry: not finished", r: r(), items: [ok(deploy("a")), pending(deploy("b"))], want: { observedWorkloads: [ok(deploy("a")), pending(deploy("b"))], observedGeneration: 1 } },
    {
      name: "nothing changed: the finish time is kept",
      r: r({ observedWorkloads: done, observedGeneration: 1, finishTime: "2026-11-24T11:00:00Z" }),
      items: done,
      want: { observedWorkloads: done, observedGeneration: 1, finishTime: "2026-11-24T11:00:00Z" },
    },
    {
      name: "a workload added and done (a new generation): finished again, now",
      r: r({ observedWorkloads: [ok(deploy("a"))], observedGeneration: 1, finishTime: "2026-11-24T11:00:00Z" }, 2),
      items: done,
      want: { observedWorkloads: done, observedGeneration: 2, finishTime: "2026-11-24T12:00:05Z" },
    },
    {
      name: "a workload added, not done yet: the old finish time goes (it is not finished)",
      r: r({ observedWorkloads: [ok(deploy("a"))], observedGeneration: 1, finishTime: "2026-11-24T11:00:00Z" }, 2),
      items: [ok(deploy("a")), pending(deploy("b"))],
      want: { observedWorkloads: [ok(deploy("a")), pending(deploy("b"))], observedGeneration: 2 },
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(nextStatus(c.r, c.items, NOW), c.want));
  it("finished: every workload has a result", () => assert.deepEqual([finished(done), finished([pending(deploy("a"))]), finished([])], [true, false, true]));
});

describe("ttlAction: ttlSecondsAfterFinished deletes the rebalancer itself", () => {
  const NOW = Date.parse("2026-11-24T12:00:00Z");
  const r = (ttl?: number): WorkloadRebalancer => ({ apiVersion: "flotilla.dev/v1alpha1", kind: "WorkloadRebalancer", metadata: { name: "r" }, spec: { workloads: [deploy("a")], ...(ttl === undefined ? {} : { ttlSecondsAfterFinished: ttl }) } });
  const at = (finishTime?: string): WorkloadRebalancerStatus => (finishTime ? { finishTime } : {});
  const cases: { name: string; r: WorkloadRebalancer; status: WorkloadRebalancerStatus; want: ReturnType<typeof ttlAction> }[] = [
    { name: "no TTL: kept", r: r(), status: at("2026-11-24T11:00:00Z"), want: undefined },
    { name: "not finished: kept, whatever the TTL", r: r(0), status: at(), want: undefined },
    { name: "TTL 0: deleted as soon as it finishes", r: r(0), status: at("2026-11-24T12:00:00Z"), want: "delete" },
    { name: "TTL not passed yet: wait the rest", r: r(60), status: at("2026-11-24T11:59:30Z"), want: { waitMs: 30_000 } },
    { name: "TTL passed: deleted", r: r(60), status: at("2026-11-24T11:58:00Z"), want: "delete" },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(ttlAction(c.r, c.status, NOW), c.want));
});
