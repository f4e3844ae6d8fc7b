import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { MetricSpec, MetricTarget } from "./federated-hpa-api.ts";
import { replicasForMetric } from "./replica-calculator.ts";
import type { MemberMetrics } from "./workload-metrics.ts";
import { externalMetricKey, objectMetricKey, podsMetricKey } from "./workload-metrics.ts";
import { assertFailure, calculatorInput, member, silentMember } from "./workload-metrics.fixtures.ts";

const qps: MetricSpec = { type: "Pods", pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "10" } } };
const podsMember = (cluster: string, values: number[], unready = 0, missing = 0): MemberMetrics =>
  member(cluster, {
    pods: values.length + unready + missing, readyPods: values.length,
    podsMetrics: { [podsMetricKey({ name: "qps" })]: { readyPods: values.length, readyValue: BigInt(values.reduce((s, v) => s + v * 1000, 0)), unreadyPods: unready, missingPods: missing } },
  });

describe("replicasForMetric: Pods average value", () => {
  const cases: { name: string; members: MemberMetrics[]; current: number; want: number }[] = [
    { name: "15 per pod against 10 on 4 pods asks for 6", members: [podsMember("a", [15, 15, 15, 15])], current: 4, want: 6 },
    { name: "within tolerance (10.5 against 10): no change", members: [podsMember("a", [10, 11])], current: 2, want: 2 },
    { name: "scaling up, unready pods count 0: 20 on 2 ready + 2 unready reads 10, within tolerance", members: [podsMember("a", [20, 20], 2)], current: 4, want: 4 },
    { name: "scaling down, missing pods count the target: 2 on 2 ready + 2 missing reads 6, asks for 3", members: [podsMember("a", [2, 2], 0, 2)], current: 4, want: 3 },
    { name: "a ratio of exactly 1 leaves missing pods out: no change", members: [podsMember("a", [10], 0, 9)], current: 10, want: 10 },
    { name: "members add up: 30 per pod on 2 + 2 pods asks for 12", members: [podsMember("a", [30, 30]), podsMember("b", [30, 30])], current: 4, want: 12 },
    { name: "a silent member's pods count missing: 2 per pod on 2 + 2 silent asks for 3, not 1", members: [podsMember("a", [2, 2]), silentMember("b", 2)], current: 4, want: 3 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = replicasForMetric(qps, calculatorInput(c.members, c.current));
      assert.ok(got.ok, JSON.stringify(got));
      assert.equal(got.replicas, c.want);
    });
  }

  it("names the metric and reports the mean", () => {
    const got = replicasForMetric(qps, calculatorInput([podsMember("a", [15, 15, 15, 15])], 4));
    assert.ok(got.ok);
    assert.equal(got.metricName, "pods metric qps");
    assert.deepEqual(got.status, { type: "Pods", pods: { metric: { name: "qps" }, current: { averageValue: "15" } } });
  });

  it("no member reports it: FailedGetPodsMetric", () => {
    const got = replicasForMetric(qps, calculatorInput([silentMember("a", 2)], 2));
    assert.ok(!got.ok);
    assert.equal(got.reason, "FailedGetPodsMetric");
  });
});

const ingress = { apiVersion: "networking.k8s.io/v1", kind: "Ingress", name: "web" };
const objectMetric = (target: MetricTarget): MetricSpec => ({
  type: "Object", object: { describedObject: ingress, metric: { name: "requests" }, target },
});
const objectMember = (cluster: string, value: number, pods: number, readyPods = pods): MemberMetrics =>
  member(cluster, { pods, readyPods, objectMetrics: { [objectMetricKey(ingress, { name: "requests" })]: BigInt(value * 1000) } });

const queue = { name: "queue_depth", selector: { matchLabels: { queue: "jobs" } } };
const externalMetric = (value: string, perPod = false): MetricSpec => ({
  type: "External", external: { metric: queue, target: perPod ? { type: "AverageValue", averageValue: value } : { type: "Value", value } },
});
const externalMember = (cluster: string, value: number | undefined, pods: number): MemberMetrics =>
  member(cluster, { pods, externalMetrics: value === undefined ? {} : { [externalMetricKey(queue)]: BigInt(value * 1000) } });

describe("replicasForMetric: Object and External", () => {
  const cases: { name: string; metric: MetricSpec; members: MemberMetrics[]; spec: number; status?: number; want: number }[] = [
    { name: "Object value twice the target on 3 ready pods asks for 6", metric: objectMetric({ type: "Value", value: "100" }), members: [objectMember("a", 200, 3)], spec: 3, want: 6 },
    { name: "Object value counts ready pods only: 2 of 3 ready ask for 4", metric: objectMetric({ type: "Value", value: "100" }), members: [objectMember("a", 200, 3, 2)], spec: 3, want: 4 },
    { name: "Object value within tolerance: no change", metric: objectMetric({ type: "Value", value: "100" }), members: [objectMember("a", 105, 3)], spec: 3, want: 3 },
    { name: "Object value within tolerance needs no pods: no change", metric: objectMetric({ type: "Value", value: "100" }), members: [objectMember("a", 100, 0)], spec: 3, want: 3 },
    { name: "Object value from zero replicas scales to ceil(ratio)", metric: objectMetric({ type: "Value", value: "100" }), members: [objectMember("a", 250, 0)], spec: 0, want: 3 },
    { name: "Object average value: 1000 against 100 per pod asks for 10", metric: objectMetric({ type: "AverageValue", averageValue: "100" }), members: [objectMember("a", 1000, 5)], spec: 5, want: 10 },
    { name: "Object average value divides by the pods that exist (status), not the spec", metric: objectMetric({ type: "AverageValue", averageValue: "100" }), members: [objectMember("a", 1050, 10)], spec: 5, status: 10, want: 10 },
    { name: "External value summed over members: 60 against 20 on 4 ready pods asks for 12", metric: externalMetric("20"), members: [externalMember("a", 30, 2), externalMember("b", 30, 2)], spec: 4, want: 12 },
    { name: "External value: a member without the series counts 0", metric: externalMetric("20"), members: [externalMember("a", 60, 2), externalMember("b", undefined, 2)], spec: 4, want: 12 },
    { name: "External value with a silent member never scales down", metric: externalMetric("20"), members: [externalMember("a", 10, 2), silentMember("b", 2)], spec: 4, want: 4 },
    { name: "External value with a silent member still scales up", metric: externalMetric("20"), members: [externalMember("a", 100, 2), silentMember("b", 2)], spec: 4, want: 10 },
    { name: "External average value: 45 against 10 per pod asks for 5", metric: externalMetric("10", true), members: [externalMember("a", 45, 2)], spec: 2, want: 5 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = replicasForMetric(c.metric, calculatorInput(c.members, c.spec, { statusReplicas: c.status ?? c.spec }));
      assert.ok(got.ok, JSON.stringify(got));
      assert.equal(got.replicas, c.want);
    });
  }

  it("reports the value, and the per-pod value rounded up", () => {
    const whole = replicasForMetric(objectMetric({ type: "Value", value: "100" }), calculatorInput([objectMember("a", 200, 3)], 3));
    assert.ok(whole.ok);
    assert.equal(whole.metricName, "Ingress metric requests");
    assert.deepEqual(whole.status.object?.current, { value: "200" });
    const perPod = replicasForMetric(externalMetric("10", true), calculatorInput([externalMember("a", 10, 3)], 3));
    assert.ok(perPod.ok);
    assert.deepEqual(perPod.status.external?.current, { averageValue: "3334m" });
  });

  const failures: { name: string; metric: MetricSpec; members: MemberMetrics[]; reason: string; message: RegExp }[] = [
    { name: "no member reports the object", metric: objectMetric({ type: "Value", value: "100" }), members: [silentMember("a", 2)], reason: "FailedGetObjectMetric", message: /no member cluster reported it/ },
    { name: "no member reports the external metric", metric: externalMetric("20"), members: [externalMember("a", undefined, 2)], reason: "FailedGetExternalMetric", message: /unable to get external metric queue_depth/ },
    { name: "an Object value target with no pods", metric: objectMetric({ type: "Value", value: "100" }), members: [objectMember("a", 300, 0)], reason: "FailedGetObjectMetric", message: /no pods returned by selector/ },
    { name: "an External target with neither value", metric: { type: "External", external: { metric: queue, target: { type: "Value" } } }, members: [externalMember("a", 1, 1)], reason: "FailedGetExternalMetric", message: /neither a value target nor an average value target/ },
    { name: "an unknown metric type", metric: { type: "Custom" } as unknown as MetricSpec, members: [], reason: "InvalidMetricSourceType", message: /unknown metric source type "Custom"/ },
    { name: "a type without its source", metric: { type: "Pods" }, members: [], reason: "InvalidMetricSourceType", message: /has no pods source/ },
  ];
  for (const c of failures) {
    it(`${c.name}: ScalingActive reason ${c.reason}`, () => {
      assertFailure(replicasForMetric(c.metric, calculatorInput(c.members, 2)), c.reason, c.message);
    });
  }
});
