import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AggregatedStatusItem, KubeObject } from "../../shared/api/types.ts";
import { InterpreterError, type KindInterpreter } from "../../shared/interpreter/interpreter.ts";
import { NATIVE_INTERPRETERS } from "../../shared/interpreter/registry.ts";
import { templateStatusPatch, type TemplateStatusInput } from "./template-status.ts";

const item = (clusterName: string, status: Record<string, unknown>): AggregatedStatusItem => ({ clusterName, applied: true, status });
const input = (template: KubeObject, items: AggregatedStatusItem[], o: Partial<TemplateStatusInput> = {}): TemplateStatusInput => ({
  template,
  targets: items.map((i) => i.clusterName),
  items,
  workOf: () => undefined,
  interpreter: NATIVE_INTERPRETERS.for(template),
  ...o,
});

describe("templateStatusPatch", () => {
  it("a CronJob's `active` the members no longer have is removed (null in the merge patch)", () => {
    const cron: KubeObject & { status?: unknown } = { apiVersion: "batch/v1", kind: "CronJob", metadata: { name: "c", namespace: "n" }, status: { active: [{ kind: "Job", name: "c-1" }], lastScheduleTime: "2026-11-24T09:00:00Z" } };
    const out = templateStatusPatch(input(cron, [item("m1", { lastScheduleTime: "2026-11-24T09:00:00Z" })]));
    assert.ok(out !== undefined && "patch" in out);
    assert.equal(out.patch.active, null);
    assert.equal(out.patch.lastScheduleTime, "2026-11-24T09:00:00Z");
  });

  it("a Deployment is summed by its native interpreter, with the fleet's rollout fields over it", () => {
    const d: KubeObject = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "d", namespace: "n", generation: 2 }, spec: { replicas: 4 } };
    const m1 = { replicas: 2, readyReplicas: 2, availableReplicas: 2, updatedReplicas: 2, unavailableReplicas: 0, observedGeneration: 5, generation: 5 };
    const m2 = { replicas: 3, readyReplicas: 1, availableReplicas: 1, updatedReplicas: 3, unavailableReplicas: 2, observedGeneration: 4, generation: 5 };
    const sum = { replicas: 5, readyReplicas: 3, availableReplicas: 3, unavailableReplicas: 2 };
    // m1 runs the current Work and its controller observed it; m2's has not observed its spec yet.
    const items = [{ ...item("m1", m1), observedHash: "h1" }, { ...item("m2", m2), observedHash: "h2" }];
    const works = { m1: { hash: "h1", templateGeneration: 2 }, m2: { hash: "h2", templateGeneration: 2 } } as Record<string, { hash: string; templateGeneration: number }>;
    const rolling = templateStatusPatch(input(d, items, { workOf: (c) => works[c] }));
    assert.ok(rolling !== undefined && "patch" in rolling);
    assert.deepEqual({ ...rolling.patch, conditions: undefined }, { ...sum, updatedReplicas: 2, conditions: undefined }, "only members on the current spec count as updated; observedGeneration not raised");
    const done = templateStatusPatch(input(d, [items[0] as AggregatedStatusItem, { ...item("m2", { ...m2, observedGeneration: 5 }), observedHash: "h2" }], { workOf: (c) => works[c] }));
    assert.ok(done !== undefined && "patch" in done);
    assert.equal(done.patch.observedGeneration, 2, "the template's generation once every member observed the current Work");
    assert.equal(done.patch.updatedReplicas, 5);
  });

  it("a DaemonSet's counters and a LoadBalancer Service's addresses are the native interpreters' (Karmada's fields and order)", () => {
    const ds: KubeObject = { apiVersion: "apps/v1", kind: "DaemonSet", metadata: { name: "ds", namespace: "n" } };
    const out = templateStatusPatch(input(ds, [item("m1", { desiredNumberScheduled: 3, numberAvailable: 2, numberUnavailable: 1, numberReady: 3 }), item("m2", { desiredNumberScheduled: 2, numberAvailable: 2, numberReady: 2 })]));
    assert.ok(out !== undefined && "patch" in out);
    assert.deepEqual([out.patch.desiredNumberScheduled, out.patch.numberAvailable, out.patch.numberUnavailable, out.patch.numberReady], [5, 4, 1, 5]);
    const svc: KubeObject = { apiVersion: "v1", kind: "Service", metadata: { name: "s", namespace: "n" }, spec: { type: "LoadBalancer" } };
    const lb = templateStatusPatch(input(svc, [item("m1", { loadBalancer: { ingress: [{ ip: "10.0.0.2" }, { hostname: "b.example.com" }] } }), item("m2", { loadBalancer: { ingress: [{ ip: "10.0.0.1" }, { ip: "10.0.0.2" }] } })]));
    assert.ok(lb !== undefined && "patch" in lb);
    assert.deepEqual(lb.patch.loadBalancer, { ingress: [{ hostname: "b.example.com" }, { ip: "10.0.0.1" }, { ip: "10.0.0.2" }] });
    const clusterIp: KubeObject & { status?: unknown } = { apiVersion: "v1", kind: "Service", metadata: { name: "c", namespace: "n" }, spec: { type: "ClusterIP" }, status: { loadBalancer: {} } };
    assert.equal(templateStatusPatch(input(clusterIp, [item("m1", { loadBalancer: {} })])), undefined, "a Service without a load balancer has nothing to write");
  });

  it("a customized AggregateStatus is used even for a kind summed before, and its failure leaves the status as it is", () => {
    const d: KubeObject = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "d", namespace: "n" } };
    const custom: KindInterpreter = { aggregateStatus: (o, items) => ({ ...o, status: { clusters: items.length } }) };
    const used = templateStatusPatch(input(d, [item("m1", { replicas: 2 })], { interpreter: custom }));
    assert.ok(used !== undefined && "patch" in used);
    assert.equal(used.patch.clusters, 1);
    const failing: KindInterpreter = {
      aggregateStatus: () => {
        throw new InterpreterError("AggregateStatus", "luaScript:1: boom");
      },
    };
    assert.deepEqual(templateStatusPatch(input(d, [item("m1", { replicas: 2 })], { interpreter: failing })), { failed: "AggregateStatus: luaScript:1: boom" });
  });

  it("nothing to write when the status already holds, or the kind has no sum", () => {
    const j: KubeObject & { status?: unknown } = { apiVersion: "batch/v1", kind: "Job", metadata: { name: "j", namespace: "n" } };
    const first = templateStatusPatch(input(j, [item("m1", { succeeded: 1 })]));
    assert.ok(first !== undefined && "patch" in first);
    assert.equal(templateStatusPatch(input({ ...j, status: first.patch }, [item("m1", { succeeded: 1 })])), undefined);
    const cm: KubeObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "n" } };
    assert.equal(templateStatusPatch(input(cm, [item("m1", {})])), undefined);
  });
});
