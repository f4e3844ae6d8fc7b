import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { statusHolds, sumWorkloadStatus, summableKinds } from "./status-sum.ts";

const cases: { name: string; kind: string; statuses: Record<string, unknown>[]; want: Record<string, unknown> | undefined }[] = [
  {
    name: "deployment counts add up across clusters",
    kind: "Deployment",
    statuses: [
      { observedGeneration: 3, replicas: 2, readyReplicas: 2, availableReplicas: 2, updatedReplicas: 2, conditions: [] },
      { observedGeneration: 1, replicas: 3, readyReplicas: 1, availableReplicas: 1, updatedReplicas: 3 },
    ],
    want: { replicas: 5, readyReplicas: 3, availableReplicas: 3, updatedReplicas: 5 },
  },
  {
    name: "absent counts are zero and all four fields are written",
    kind: "Deployment",
    statuses: [{ replicas: 1 }, {}],
    want: { replicas: 1, readyReplicas: 0, availableReplicas: 0, updatedReplicas: 0 },
  },
  {
    name: "no clusters sum to zero",
    kind: "StatefulSet",
    statuses: [],
    want: { replicas: 0, readyReplicas: 0, availableReplicas: 0, updatedReplicas: 0 },
  },
  {
    name: "non-numeric counts are ignored",
    kind: "ReplicaSet",
    statuses: [{ replicas: "3", readyReplicas: null }, { replicas: 2, readyReplicas: 2, availableReplicas: 2 }],
    want: { replicas: 2, readyReplicas: 2, availableReplicas: 2, updatedReplicas: 0 },
  },
  {
    name: "statefulset writes the same four fields",
    kind: "StatefulSet",
    statuses: [
      { replicas: 2, currentReplicas: 2, readyReplicas: 2, availableReplicas: 2, updatedReplicas: 2, currentRevision: "a" },
      { replicas: 1, readyReplicas: 1, availableReplicas: 1, updatedReplicas: 1 },
    ],
    want: { replicas: 3, readyReplicas: 3, availableReplicas: 3, updatedReplicas: 3 },
  },
  {
    name: "daemonset sums its six counts",
    kind: "DaemonSet",
    statuses: [
      {
        currentNumberScheduled: 3,
        desiredNumberScheduled: 3,
        numberAvailable: 2,
        numberMisscheduled: 0,
        numberReady: 3,
        updatedNumberScheduled: 3,
        observedGeneration: 2,
      },
      { currentNumberScheduled: 1, desiredNumberScheduled: 2, numberMisscheduled: 1, numberReady: 1 },
    ],
    want: {
      currentNumberScheduled: 4,
      desiredNumberScheduled: 5,
      numberAvailable: 2,
      numberMisscheduled: 1,
      numberReady: 4,
      updatedNumberScheduled: 3,
    },
  },
  {
    name: "job sums active, succeeded, failed and nothing else",
    kind: "Job",
    statuses: [
      { active: 1, succeeded: 2, startTime: "2024-01-01T00:00:00Z", conditions: [{ type: "Complete", status: "True" }] },
      { failed: 1, succeeded: 1, ready: 0 },
    ],
    want: { active: 1, succeeded: 3, failed: 1 },
  },
  {
    name: "load balancer ingress is the union, deduplicated, addresses before hostnames",
    kind: "Service",
    statuses: [
      { loadBalancer: { ingress: [{ ip: "10.0.0.2" }, { hostname: "b.example.com" }] } },
      { loadBalancer: { ingress: [{ ip: "10.0.0.1", ipMode: "VIP" }, { ip: "10.0.0.2" }] } },
      { loadBalancer: { ingress: [{ hostname: "a.example.com" }] } },
    ],
    want: {
      loadBalancer: {
        ingress: [{ ip: "10.0.0.1", ipMode: "VIP" }, { ip: "10.0.0.2" }, { hostname: "a.example.com" }, { hostname: "b.example.com" }],
      },
    },
  },
  {
    name: "services without an address write an empty loadBalancer",
    kind: "Service",
    statuses: [{ loadBalancer: {} }, {}],
    want: { loadBalancer: {} },
  },
  { name: "a ConfigMap has nothing to write", kind: "ConfigMap", statuses: [{}], want: undefined },
  { name: "a custom kind has nothing to write", kind: "Widget", statuses: [{ replicas: 1 }], want: undefined },
];

describe("sumWorkloadStatus", () => {
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(sumWorkloadStatus(c.kind, c.statuses), c.want);
    });
  }

  it("summableKinds lists exactly the kinds that produce a sum", () => {
    const kinds = ["Deployment", "StatefulSet", "ReplicaSet", "DaemonSet", "Job", "Service", "Pod", "ConfigMap", "Widget"];
    for (const k of kinds) assert.equal(summableKinds.has(k), sumWorkloadStatus(k, []) !== undefined, k);
    assert.deepEqual([...summableKinds].sort(), ["DaemonSet", "Deployment", "Job", "ReplicaSet", "Service", "StatefulSet"]);
  });
});

describe("statusHolds: whether the template's .status already says what would be written", () => {
  const condition = { type: "Available", status: "True", reason: "MinimumReplicasAvailable", message: "m" };
  const cases: { name: string; want: unknown; have: unknown; holds: boolean }[] = [
    { name: "the same counts", want: { replicas: 2 }, have: { replicas: 2, observedGeneration: 1 }, holds: true },
    { name: "a changed count", want: { replicas: 3 }, have: { replicas: 2 }, holds: false },
    { name: "zero and absent are one (nothing to write at first)", want: { replicas: 0 }, have: {}, holds: true },
    { name: "conditions the apiserver stored with null times of its own", want: { conditions: [condition] }, have: { conditions: [{ ...condition, lastUpdateTime: null, lastTransitionTime: null }] }, holds: true },
    { name: "a condition whose status changed", want: { conditions: [condition] }, have: { conditions: [{ ...condition, status: "False" }] }, holds: false },
    { name: "a condition more or less", want: { conditions: [condition] }, have: { conditions: [condition, condition] }, holds: false },
    { name: "conditions not written yet", want: { conditions: [condition] }, have: {}, holds: false },
  ];
  for (const c of cases) it(c.name, () => assert.equal(statusHolds(c.want, c.have), c.holds));
});
