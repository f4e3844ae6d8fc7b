import assert from "node:assert/strict";
import { it } from "node:test";
import { withoutManagedFields } from "../../shared/informer.ts";
import { nodeSummary, podSummary } from "./heartbeat.ts";

const meta = { name: "p", namespace: "d", uid: "u", resourceVersion: "7", labels: { a: "b" }, managedFields: [{ manager: "kubelet" }] };

it("keeps of a Pod only what a heartbeat sums and a workload summary reads", () => {
  const pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { ...meta, annotations: { big: "x".repeat(1000) } },
    spec: {
      nodeName: "n1",
      volumes: [{ name: "v" }],
      containers: [{ name: "c", image: "i", resources: { requests: { cpu: "1" }, limits: { cpu: "2" } } }, { name: "s", image: "i" }],
      initContainers: [{ name: "init", image: "i", resources: { requests: { cpu: "4" } } }, { name: "proxy", image: "i", restartPolicy: "Always", resources: { requests: { cpu: "100m" } } }],
    },
    status: {
      phase: "Running",
      startTime: "2026-01-01T00:00:00Z",
      conditions: [{ type: "PodScheduled", status: "True" }, { type: "Ready", status: "True", lastTransitionTime: "2026-01-01T00:00:10Z", reason: "r" }],
      podIP: "10.0.0.1",
      containerStatuses: [{ name: "c", image: "i" }],
    },
  };
  assert.deepEqual(podSummary(pod), {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p", namespace: "d", uid: "u", resourceVersion: "7", labels: { a: "b" } },
    spec: { nodeName: "n1", containers: [{ name: "c", resources: { requests: { cpu: "1" } } }, { name: "s" }], initContainers: [{ name: "proxy", restartPolicy: "Always", resources: { requests: { cpu: "100m" } } }] },
    status: { phase: "Running", startTime: "2026-01-01T00:00:00Z", conditions: [{ type: "Ready", status: "True", lastTransitionTime: "2026-01-01T00:00:10Z" }] },
  });
});

it("keeps of a Node its allocatable and its conditions' type and status", () => {
  const node = {
    apiVersion: "v1",
    kind: "Node",
    metadata: { ...meta, namespace: undefined },
    status: { allocatable: { cpu: "16" }, capacity: { cpu: "16" }, images: [{ names: ["x"] }], conditions: [{ type: "Ready", status: "True", message: "kubelet is ready", lastHeartbeatTime: "t" }] },
  };
  assert.deepEqual(nodeSummary(node).status, { allocatable: { cpu: "16" }, conditions: [{ type: "Ready", status: "True" }] });
  assert.equal(nodeSummary(node).metadata.resourceVersion, "7", "the watch resumes from it");
});

it("an informer caches objects without managedFields by default", () => {
  const o = { apiVersion: "v1", kind: "ConfigMap", metadata: meta, data: { k: "v" } };
  assert.deepEqual(withoutManagedFields(o), { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "p", namespace: "d", uid: "u", resourceVersion: "7", labels: { a: "b" } }, data: { k: "v" } });
  const bare = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "p" } };
  assert.equal(withoutManagedFields(bare), bare, "nothing to strip: the same object");
});
