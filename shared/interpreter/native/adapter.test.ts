import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../api/types.ts";
import { InterpreterError, type KindInterpreter } from "../interpreter.ts";
import { aggregatedStatusOf, jobCompletionsFor, replicasOf, reviseForMember, statusItemsOf } from "./adapter.ts";
import { obj } from "./native.fixtures.ts";

const job = obj("batch/v1", "Job", { name: "crunch", namespace: "batch", uid: "" }, {
  spec: { parallelism: 4, completions: 8, template: { spec: { restartPolicy: "Never", containers: [{ name: "w", image: "w" }] } } },
});
const crd = (spec: Record<string, unknown>): KubeObject => obj("example.com/v1", "Widget", { name: "w", namespace: "x" }, { spec });

describe("native adapter", () => {
  it("a Job's replicas are its parallelism (today: none, so never divided)", () => {
    assert.deepEqual(replicasOf(job), { replicas: 4 });
  });
  it("a DaemonSet has no replicas to divide, even with a spec.replicas field", () => {
    assert.equal(replicasOf(obj("apps/v1", "DaemonSet", { name: "d" }, { spec: { replicas: 3, template: {} } })), undefined);
  });
  it("a kind without a native interpreter keeps today's spec.replicas", () => {
    assert.deepEqual(replicasOf(crd({ replicas: 5 })), { replicas: 5 });
    assert.equal(replicasOf(crd({})), undefined);
  });
  it("a Divided Job (parallelism 4, completions 8) runs 2 + 2 with completions 4 + 4", () => {
    const completions = jobCompletionsFor(job, [{ name: "m1", replicas: 2 }, { name: "m2", replicas: 2 }]);
    assert.deepEqual(completions, new Map([["m1", 4], ["m2", 4]]));
    const m1 = reviseForMember(job, 2, completions?.get("m1"));
    assert.deepEqual([m1.spec], [{ ...(job.spec as object), parallelism: 2, completions: 4 }]);
    assert.equal((job.spec as { parallelism: number }).parallelism, 4, "the template is not changed");
  });
  it("a member's Job statuses sum to the fleet's completions with Complete", () => {
    const done = { succeeded: 4, startTime: "2026-11-24T08:00:00Z", completionTime: "2026-11-24T08:03:00Z", conditions: [{ type: "Complete", status: "True", lastTransitionTime: "2026-11-24T08:03:00Z" }] };
    const items = statusItemsOf([
      { clusterName: "m1", applied: true, health: "Healthy", status: done },
      { clusterName: "m2", applied: true, health: "Healthy", status: { ...done, completionTime: "2026-11-24T08:04:00Z" } },
    ]);
    const status = aggregatedStatusOf(job, items);
    assert.equal(status?.succeeded, 8);
    assert.equal(status?.completionTime, "2026-11-24T08:04:00Z");
    assert.deepEqual((status?.conditions as { type: string }[]).map((c) => c.type), ["Complete"]);
  });
  it("a kind without a native interpreter keeps today's rendering: spec.replicas set only when present", () => {
    assert.deepEqual(reviseForMember(crd({ replicas: 5 }), 2).spec, { replicas: 2 });
    assert.deepEqual(reviseForMember(crd({}), 2).spec, {});
  });
  it("a DaemonSet's copy is the template's", () => {
    const ds = obj("apps/v1", "DaemonSet", { name: "d" }, { spec: { template: {} } });
    assert.deepEqual(reviseForMember(ds, 2), ds);
  });
  it("a Progressing member is not healthy to AggregateStatus, as Karmada's boolean", () => {
    assert.deepEqual(statusItemsOf([{ clusterName: "m1", health: "Progressing", message: "" }]), [{ clusterName: "m1", health: "Unhealthy" }]);
  });
  it("kinds without a native sum give none", () => {
    const cm = obj("v1", "ConfigMap", { name: "c", namespace: "x" }, { data: {} });
    assert.equal(aggregatedStatusOf(cm, []), undefined);
  });
});

describe("reviseForMember: a customization's ReviseReplica keeps the object it was given (issue 37)", () => {
  const widget = crd({ replicas: 5 });
  const revising = (change: (o: KubeObject) => KubeObject): KindInterpreter => ({ reviseReplica: (o, n) => change({ ...o, spec: { replicas: n } }) });
  const cases: { name: string; change: (o: KubeObject) => KubeObject; fails?: RegExp }[] = [
    { name: "the replicas set: applied", change: (o) => o },
    { name: "a label added: applied", change: (o) => ({ ...o, metadata: { ...o.metadata, labels: { shard: "a" } } }) },
    { name: "another name: fails", change: (o) => ({ ...o, metadata: { ...o.metadata, name: "w-copy" } }), fails: /ReviseReplica: the script returned Widget\/w-copy \(example.com\/v1, namespace x\), not the object it was given/ },
    { name: "another namespace: fails", change: (o) => ({ ...o, metadata: { ...o.metadata, namespace: "kube-system" } }), fails: /namespace kube-system/ },
    { name: "another apiVersion: fails", change: (o) => ({ ...o, apiVersion: "example.com/v2" }), fails: /example.com\/v2/ },
    { name: "another kind: fails", change: (o) => ({ ...o, kind: "Gadget" }), fails: /Gadget\/w/ },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const run = () => reviseForMember(widget, 2, undefined, revising(c.change));
      if (c.fails === undefined) assert.deepEqual(run().spec, { replicas: 2 });
      else assert.throws(run, (err: unknown) => err instanceof InterpreterError && err.operation === "ReviseReplica" && c.fails!.test(err.message));
    });
  }
});
