import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fleetResourceSums, objectMetricKey, podsMetricKey, resourceKey } from "./workload-metrics.ts";
import { resourceMember, silentMember } from "./workload-metrics.fixtures.ts";

describe("fleetResourceSums", () => {
  const a = resourceMember("a", "cpu", { usage: [100, 300], request: 500, unready: 1, missing: 1 });
  const b = resourceMember("b", "cpu", { usage: [200], request: 1000, withoutRequest: 1 });

  it("adds the members' groups and names the members whose pods lack requests", () => {
    assert.deepEqual(fleetResourceSums([a, b], "cpu"), {
      readyPods: 3, readyUsage: 600n, readyRequests: 2000n, unreadyPods: 1, unreadyRequests: 500n, missingPods: 1, missingRequests: 500n, clustersWithoutRequest: ["b"],
    });
  });

  const silentCases: { name: string; podRequest?: bigint; missingRequests: bigint }[] = [
    { name: "a silent member's pods are missing, requesting what the pod template requests", podRequest: 800n, missingRequests: 500n + 3n * 800n },
    { name: "without the template's request, the mean request of the pods that reported", missingRequests: 500n + 3n * 500n },
  ];
  for (const c of silentCases) {
    it(c.name, () => {
      const sums = fleetResourceSums([a, silentMember("c", 3)], "cpu", c.podRequest);
      assert.equal(sums.missingPods, 4);
      assert.equal(sums.missingRequests, c.missingRequests);
    });
  }

  it("a member whose summary lacks the resource counts as silent", () => {
    assert.equal(fleetResourceSums([a], "memory").missingPods, 4);
  });
});

describe("metric keys an agent reports under", () => {
  it("are stable whatever the selector's key order", () => {
    assert.equal(resourceKey("cpu"), "cpu");
    assert.equal(resourceKey("memory", "app"), "memory@app");
    const one = podsMetricKey({ name: "q", selector: { matchLabels: { a: "1", b: "2" } } });
    const two = podsMetricKey({ name: "q", selector: { matchLabels: { b: "2", a: "1" } } });
    assert.equal(one, two);
    assert.equal(objectMetricKey({ apiVersion: "v1", kind: "Service", name: "web" }, { name: "rps" }), "v1/Service/web:rps");
  });
});
