import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ResourceList, StaticClusterAssignment } from "../../shared/api/quota.ts";
import { formatExactQuantity, parseExactQuantity } from "../../shared/quantity.ts";
import { compareQuantities, excessOf, resourceList, specProblems, usageOf, type Workload } from "./quota-usage.ts";

describe("usageOf: replicas times what one replica requests, summed, for the names overall has", () => {
  const cases: { name: string; workloads: Workload[]; overall: ResourceList; want: Record<string, string> }[] = [
    { name: "one workload", workloads: [{ replicas: 3, requests: { cpu: "500m", memory: "128Mi" } }], overall: { cpu: "10", memory: "1Gi" }, want: { cpu: "1500m", memory: "384Mi" } },
    { name: "exact: 100m three times is 300m, not 0.30000000000000004", workloads: [{ replicas: 1, requests: { cpu: "100m" } }, { replicas: 1, requests: { cpu: "100m" } }, { replicas: 1, requests: { cpu: "100m" } }], overall: { cpu: "1" }, want: { cpu: "300m" } },
    { name: "names overall lacks are not counted", workloads: [{ replicas: 2, requests: { cpu: "1", "nvidia.com/gpu": "1" } }], overall: { cpu: "4" }, want: { cpu: "2" } },
    { name: "a name nothing requests is absent", workloads: [{ replicas: 2, requests: { cpu: "1" } }], overall: { cpu: "4", memory: "1Gi" }, want: { cpu: "2" } },
    { name: "zero replicas take nothing", workloads: [{ replicas: 0, requests: { cpu: "1" } }], overall: { cpu: "4" }, want: {} },
    { name: "a ResourceQuota's names: requests.cpu counts cpu, pods counts replicas", workloads: [{ replicas: 4, requests: { cpu: "250m" } }, { replicas: 1, requests: {} }], overall: { "requests.cpu": "4", pods: "10" }, want: { pods: "5", "requests.cpu": "1" } },
    { name: "an integer overall value", workloads: [{ replicas: 2, requests: { cpu: "2" } }], overall: { cpu: 8 }, want: { cpu: "4" } },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(resourceList(usageOf(c.workloads, c.overall)), c.want));
});

describe("excessOf: the resources use goes past, in name order", () => {
  const q = (s: string) => parseExactQuantity(s);
  const cases: { name: string; used: Record<string, string>; overall: ResourceList; want: string[] }[] = [
    { name: "within", used: { cpu: "2" }, overall: { cpu: "2" }, want: [] },
    { name: "past by a milli-core", used: { cpu: "2001m" }, overall: { cpu: "2" }, want: ["cpu 2001m > 2"] },
    { name: "binary and decimal units compare by value", used: { memory: "1Gi" }, overall: { memory: "1G" }, want: ["memory 1Gi > 1G"] },
    { name: "several, sorted", used: { memory: "3Gi", cpu: "5" }, overall: { memory: "2Gi", cpu: "4" }, want: ["cpu 5 > 4", "memory 3Gi > 2Gi"] },
    { name: "a name without use", used: {}, overall: { cpu: "0" }, want: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const used = new Map(Object.entries(c.used).map(([k, v]) => [k, q(v)]));
      assert.deepEqual(excessOf(used, c.overall).map((e) => `${e.resource} ${formatExactQuantity(e.used)} > ${formatExactQuantity(e.hard)}`), c.want);
    });
  }
  it("compareQuantities orders across exponents and formats", () => {
    assert.equal(compareQuantities(q("1500m"), q("1.5")), 0);
    assert.equal(compareQuantities(q("1Ki"), q("1k")), 1);
    assert.equal(compareQuantities(q("1e3"), q("1k")), 0);
    assert.equal(compareQuantities(q("999m"), q("1")), -1);
  });
});

describe("specProblems: what Karmada's webhook refuses, exactly", () => {
  const a = (clusterName: string, hard: ResourceList): StaticClusterAssignment => ({ clusterName, hard });
  const cases: { name: string; overall: ResourceList; assignments: StaticClusterAssignment[]; want: string[] }[] = [
    { name: "assignments that add up to overall exactly", overall: { cpu: "1" }, assignments: [a("m1", { cpu: "100m" }), a("m2", { cpu: "200m" }), a("m3", { cpu: "700m" })], want: [] },
    { name: "no assignments", overall: { cpu: "1" }, assignments: [], want: [] },
    { name: "assignments past overall", overall: { cpu: "10" }, assignments: [a("m1", { cpu: "6" }), a("m2", { cpu: "4500m" })], want: ['spec.overall[cpu]: Invalid value: "10": overall is less than assignments (10500m)'] },
    { name: "a resource overall lacks", overall: { cpu: "10" }, assignments: [a("m1", { memory: "1Gi" })], want: ['spec.staticAssignments[0].hard[memory]: Invalid value: "memory": assignment resourceName is not exist in overall'] },
    { name: "a negative integer and a name with a space", overall: { cpu: -1, "c p u": "1" }, assignments: [], want: ['spec.overall[cpu]: Invalid value: "-1": must be greater than or equal to 0', 'spec.overall[c p u]: Invalid value: "c p u": must be a standard resource name or a qualified name'] },
    { name: "an assignment value that is no quantity", overall: { cpu: "1" }, assignments: [a("m1", { cpu: "lots" })], want: ['spec.staticAssignments[0].hard[cpu]: Invalid value: "lots": must be a quantity'] },
    { name: "a cluster twice", overall: { cpu: "10" }, assignments: [a("m1", { cpu: "1" }), a("m1", { cpu: "1" })], want: ['spec.staticAssignments[1].clusterName: Duplicate value: "m1"'] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(specProblems(c.overall, c.assignments), c.want));
});
