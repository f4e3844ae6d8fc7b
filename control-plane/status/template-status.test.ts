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
  customized: false,
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

  it("a Deployment nobody customizes keeps today's sum", () => {
    const d: KubeObject = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "d", namespace: "n", generation: 1 }, spec: { replicas: 4 } };
    const out = templateStatusPatch(input(d, [item("m1", { replicas: 2, readyReplicas: 2 }), item("m2", { replicas: 2, readyReplicas: 1 })]));
    assert.ok(out !== undefined && "patch" in out);
    assert.equal(out.patch.replicas, 4);
    assert.equal(out.patch.readyReplicas, 3);
  });

  it("a customized AggregateStatus is used even for a kind summed before, and its failure leaves the status as it is", () => {
    const d: KubeObject = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "d", namespace: "n" } };
    const custom: KindInterpreter = { aggregateStatus: (o, items) => ({ ...o, status: { clusters: items.length } }) };
    const used = templateStatusPatch(input(d, [item("m1", { replicas: 2 })], { interpreter: custom, customized: true }));
    assert.ok(used !== undefined && "patch" in used);
    assert.equal(used.patch.clusters, 1);
    const failing: KindInterpreter = {
      aggregateStatus: () => {
        throw new InterpreterError("AggregateStatus", "luaScript:1: boom");
      },
    };
    assert.deepEqual(templateStatusPatch(input(d, [item("m1", { replicas: 2 })], { interpreter: failing, customized: true })), { failed: "AggregateStatus: luaScript:1: boom" });
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
