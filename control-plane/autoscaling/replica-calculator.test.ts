import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { MetricSpec, Tolerances } from "./federated-hpa-api.ts";
import { replicasForMetric } from "./replica-calculator.ts";
import type { MemberMetrics } from "./workload-metrics.ts";
import { assertFailure, calculatorInput, member, resourceMember, resourceSums, silentMember } from "./workload-metrics.fixtures.ts";

const cpuUtilization = (percent: number): MetricSpec => ({ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: percent } } });
const cpuAverage = (value: string): MetricSpec => ({ type: "Resource", resource: { name: "cpu", target: { type: "AverageValue", averageValue: value } } });
const one = (d: Parameters<typeof resourceMember>[2]) => [resourceMember("a", "cpu", d)];

describe("replicasForMetric: Resource utilization", () => {
  const cases: { name: string; members: MemberMetrics[]; target: number; current: number; want: number; tolerances?: Tolerances; podRequests?: Record<string, bigint> }[] = [
    { name: "usage above the target scales up: 50 % of requests against 30 % on 3 pods asks for 5", members: one({ usage: [300, 500, 700] }), target: 30, current: 3, want: 5 },
    { name: "usage below the target scales down: 28 % against 50 % on 5 pods asks for 3", members: one({ usage: [100, 300, 500, 250, 250] }), target: 50, current: 5, want: 3 },
    { name: "a ratio of exactly 1.1 is within the tolerance: no change", members: one({ usage: [550, 550, 550] }), target: 50, current: 3, want: 3 },
    { name: "a ratio of 1.12 is past the tolerance: ceil(3.36) = 4", members: one({ usage: [560, 560, 560] }), target: 50, current: 3, want: 4 },
    { name: "a ratio of exactly 0.9 is within the tolerance: no change", members: one({ usage: Array(10).fill(450) }), target: 50, current: 10, want: 10 },
    { name: "a ratio of 0.88 is past the tolerance: ceil(8.8) = 9", members: one({ usage: Array(10).fill(440) }), target: 50, current: 10, want: 9 },
    { name: "utilization is whole percent, truncated: 33.3 % reads 33, within 10 % of 30", members: one({ usage: [1000, 0, 0] }), target: 30, current: 3, want: 3 },
    { name: "a zero scale-up tolerance scales on a ratio of 1.1", members: one({ usage: [1000, 0, 0] }), target: 30, current: 3, want: 4, tolerances: { scaleUp: 0, scaleDown: 0.1 } },
    { name: "a wider scale-down tolerance holds a ratio of 0.84 (42.5 % read as 42)", members: one({ usage: Array(4).fill(425) }), target: 50, current: 4, want: 4, tolerances: { scaleUp: 0.1, scaleDown: 0.2 } },
    { name: "the result is rounded up: a ratio of 1.2 on 4 pods asks for ceil(4.8) = 5", members: one({ usage: Array(4).fill(600) }), target: 50, current: 4, want: 5 },
    { name: "a whole result is not rounded further: a ratio of 1.2 on 5 pods asks for 6", members: one({ usage: Array(5).fill(600) }), target: 50, current: 5, want: 6 },
    { name: "scaling up with unready pods counts them at 0 %: 100 % on 3 ready + 1 unready against 50 % asks for 6", members: one({ usage: [1000, 1000, 1000], unready: 1 }), target: 50, current: 4, want: 6 },
    { name: "unready pods at 0 % turning a scale-up into a scale-down hold the count", members: one({ usage: [900, 900], unready: 2 }), target: 50, current: 4, want: 4 },
    { name: "unready pods are left out of a scale-down: 10 % on 2 ready pods asks for 1", members: one({ usage: [100, 100], unready: 2 }), target: 50, current: 4, want: 1 },
    { name: "scaling up, missing pods count 0 %: 100 % on 3 + 1 missing against 50 % asks for 6", members: one({ usage: [1000, 1000, 1000], missing: 1 }), target: 50, current: 4, want: 6 },
    { name: "scaling up, missing pods at 0 % may bring the ratio within tolerance: no change", members: one({ usage: [1000, 1000], missing: 2 }), target: 50, current: 4, want: 4 },
    { name: "scaling down, missing pods count 100 % of their request: 32 % against 80 % on 4 pods asks for 2", members: one({ usage: [100, 100, 100], missing: 1 }), target: 80, current: 4, want: 2 },
    { name: "scaling down, missing pods at 100 % turning the direction hold the count", members: one({ usage: [100, 100], missing: 2 }), target: 50, current: 4, want: 4 },
    { name: "scaling down against a target above 100 %, missing pods count at the target: asks for 2, not 1", members: one({ usage: [200, 200, 200], missing: 1 }), target: 200, current: 4, want: 2 },
    { name: "a scale-down whose count would rise above the current one holds it", members: one({ usage: [100], missing: 4 }), target: 100, current: 2, want: 2 },
    { name: "members' pods add up: 50 % over two clusters against 25 % asks for 8", members: [resourceMember("a", "cpu", { usage: [800, 800] }), resourceMember("b", "cpu", { usage: [200, 200] })], target: 25, current: 4, want: 8 },
    {
      name: "a member that sent nothing counts its pods missing: no scale-down on its silence",
      members: [resourceMember("a", "cpu", { usage: [100, 100] }), silentMember("b", 2)], target: 50, current: 4, want: 4,
    },
    {
      name: "a silent member's pods count 0 % on a scale-up: 100 % on 3 ready + 1 silent against 50 % asks for 6",
      members: [resourceMember("a", "cpu", { usage: [1000, 1000, 1000] }), silentMember("b", 1)], target: 50, current: 4, want: 6,
    },
    {
      name: "a silent member's pods request what the pod template requests",
      members: [resourceMember("a", "cpu", { usage: [100, 100, 100] }), silentMember("b", 1)], target: 80, current: 4, want: 3, podRequests: { cpu: 3000n },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = replicasForMetric(cpuUtilization(c.target), calculatorInput(c.members, c.current, { ...(c.tolerances ? { tolerances: c.tolerances } : {}), podRequests: c.podRequests }));
      assert.ok(got.ok, JSON.stringify(got));
      assert.equal(got.replicas, c.want);
    });
  }

  it("reports the utilization, the mean usage and the metric's name", () => {
    const got = replicasForMetric(cpuUtilization(30), calculatorInput(one({ usage: [300, 500, 700] }), 3));
    assert.deepEqual(got, {
      ok: true, replicas: 5, metricName: "cpu resource utilization (percentage of request)",
      status: { type: "Resource", resource: { name: "cpu", current: { averageUtilization: 50, averageValue: "500m" } } },
    });
  });
});

describe("replicasForMetric: Resource failures", () => {
  const cases: { name: string; metric: MetricSpec; members: MemberMetrics[]; reason: string; message: RegExp }[] = [
    { name: "a pod without a request for the resource", metric: cpuUtilization(50), members: [resourceMember("a", "cpu", { usage: [100] }), resourceMember("b", "cpu", { usage: [100], withoutRequest: 1 })], reason: "FailedGetResourceMetric", message: /failed to get cpu utilization: missing request for cpu in pods of cluster\(s\) b$/ },
    { name: "no pods at all", metric: cpuUtilization(50), members: [silentMember("a", 0)], reason: "FailedGetResourceMetric", message: /no pods returned by selector while calculating replica count/ },
    { name: "no ready pod with a sample", metric: cpuUtilization(50), members: one({ usage: [], unready: 2, missing: 1 }), reason: "FailedGetResourceMetric", message: /did not receive metrics for targeted pods \(pods might be unready\)/ },
    { name: "every member silent", metric: cpuAverage("100m"), members: [silentMember("a", 3)], reason: "FailedGetResourceMetric", message: /^the HPA was unable to compute the replica count: failed to get cpu usage: did not receive metrics/ },
    { name: "ready pods requesting zero", metric: cpuUtilization(50), members: one({ usage: [100], request: 0 }), reason: "FailedGetResourceMetric", message: /no metrics returned matched known pods/ },
    { name: "a target with neither utilization nor value", metric: { type: "Resource", resource: { name: "cpu", target: { type: "Utilization" } } }, members: one({ usage: [100] }), reason: "FailedGetResourceMetric", message: /neither an average utilization target nor an average value/ },
    { name: "a container resource without its container's report", metric: { type: "ContainerResource", containerResource: { name: "cpu", container: "app", target: { type: "Utilization", averageUtilization: 50 } } }, members: one({ usage: [100] }), reason: "FailedGetContainerResourceMetric", message: /did not receive metrics/ },
  ];
  for (const c of cases) {
    it(`${c.name}: ScalingActive reason ${c.reason}`, () => {
      assertFailure(replicasForMetric(c.metric, calculatorInput(c.members, 3)), c.reason, c.message);
    });
  }
});

describe("replicasForMetric: Resource average value and ContainerResource", () => {
  it("an average-value target: 700m mean against 500m on 3 pods asks for ceil(4.2) = 5", () => {
    const got = replicasForMetric(cpuAverage("500m"), calculatorInput(one({ usage: [600, 700, 800] }), 3));
    assert.ok(got.ok);
    assert.equal(got.replicas, 5);
    assert.equal(got.metricName, "cpu resource");
    assert.deepEqual(got.status.resource?.current, { averageValue: "700m" });
  });

  it("an average-value target scaling down counts missing pods at the target: asks for 3", () => {
    const got = replicasForMetric(cpuAverage("500m"), calculatorInput(one({ usage: [100, 100], missing: 2 }), 4));
    assert.ok(got.ok);
    assert.equal(got.replicas, 3);
  });

  it("a container's utilization reads that container's report only", () => {
    const metric: MetricSpec = { type: "ContainerResource", containerResource: { name: "cpu", container: "app", target: { type: "Utilization", averageUtilization: 50 } } };
    const members = [member("a", { pods: 2, resources: { "cpu@app": resourceSums({ usage: [1000, 1000] }), cpu: resourceSums({ usage: [500, 500] }) } })];
    const got = replicasForMetric(metric, calculatorInput(members, 2));
    assert.ok(got.ok);
    assert.equal(got.replicas, 4);
    assert.equal(got.metricName, "cpu container resource utilization (percentage of request)");
    assert.deepEqual(got.status, { type: "ContainerResource", containerResource: { name: "cpu", container: "app", current: { averageUtilization: 100, averageValue: "1" } } });
  });
});
