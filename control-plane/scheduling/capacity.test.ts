import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster, KubeObject } from "../../shared/api/types.ts";
import type { Component, ReplicaRequirements } from "../../shared/interpreter/interpreter.ts";
import { availableComponentSets, availableReplicas, componentSetRequest, podRequestsOf, replicaRequest, type ResourceAmounts, showAmounts } from "./capacity.ts";

const GI = 2 ** 30;

const cluster = (allocatable?: Record<string, string>, allocated?: Record<string, string>): Cluster => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "Cluster",
  metadata: { name: "m" },
  spec: {},
  status: allocatable === undefined ? {} : { resourceSummary: { allocatable, ...(allocated ? { allocated } : {}) } },
});

const deployment = (requests?: Record<string, string>): KubeObject => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: "default" },
  spec: { replicas: 1, template: { spec: { containers: [{ name: "c", ...(requests ? { resources: { requests } } : {}) }, { name: "sidecar", resources: { requests: { cpu: "100m" } } }] } } },
});
const flink: KubeObject = { apiVersion: "example.com/v1", kind: "FlinkLike", metadata: { name: "f", namespace: "default" }, spec: { jobManager: { replicas: 1 } } };

describe("replicaRequest: what one replica requests", () => {
  const cases: { name: string; template: KubeObject; requires?: ReplicaRequirements; want: ResourceAmounts }[] = [
    { name: "the interpreter's resourceRequest when it gives one (a RIC's GetReplicas on a CRD)", template: flink, requires: { resourceRequest: { cpu: "2", memory: "4Gi" } }, want: { pods: 1, cpu: 2, memory: 4 * GI } },
    { name: "the interpreter's resourceRequest wins over the pod template (a native kind: init containers and overhead counted)", template: deployment({ cpu: "500m" }), requires: { resourceRequest: { cpu: "1", memory: "1Gi" } }, want: { pods: 1, cpu: 1, memory: GI } },
    { name: "requirements without a resourceRequest (only a nodeClaim): the pod template", template: deployment({ cpu: "500m" }), requires: { nodeClaim: { nodeSelector: { disk: "ssd" } } }, want: { pods: 1, cpu: 0.6 } },
    { name: "an empty resourceRequest: the pod template", template: deployment({ cpu: "500m" }), requires: { resourceRequest: {} }, want: { pods: 1, cpu: 0.6 } },
    { name: "no requirements: the pod template's containers summed", template: deployment({ cpu: "500m", memory: "128Mi" }), want: { pods: 1, cpu: 0.6, memory: 128 * 2 ** 20 } },
    { name: "no requirements and no pod template (a CRD without a GetReplicas request): one pod", template: flink, want: { pods: 1 } },
    { name: "a malformed quantity is left out", template: flink, requires: { resourceRequest: { cpu: "lots", memory: "1Gi" } }, want: { pods: 1, memory: GI } },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(replicaRequest(c.template, c.requires), c.want));
  it("podRequestsOf reads the containers alone", () => assert.deepEqual(podRequestsOf(deployment({ cpu: "500m" })), { pods: 1, cpu: 0.6 }));
});

describe("componentSetRequest: what one complete set requests", () => {
  const jm: Component = { name: "jobmanager", replicas: 1, replicaRequirements: { resourceRequest: { cpu: "1", memory: "2Gi" } } };
  const tm: Component = { name: "taskmanager", replicas: 2, replicaRequirements: { resourceRequest: { cpu: "2", memory: "4Gi" } } };
  const cases: { name: string; components: Component[]; want: ResourceAmounts }[] = [
    { name: "Σ replicas × request per resource, and the pods (the proposal's FlinkDeployment)", components: [jm, tm], want: { pods: 3, cpu: 5, memory: 10 * GI } },
    { name: "a component without requirements counts its pods", components: [jm, { name: "proxy", replicas: 2 }], want: { pods: 3, cpu: 1, memory: 2 * GI } },
    { name: "a component of 0 replicas asks nothing", components: [jm, { ...tm, replicas: 0 }], want: { pods: 1, cpu: 1, memory: 2 * GI } },
    { name: "a negative replica count is read as 0", components: [jm, { ...tm, replicas: -3 }], want: { pods: 1, cpu: 1, memory: 2 * GI } },
    { name: "resources only one component asks for", components: [jm, { name: "gpu", replicas: 2, replicaRequirements: { resourceRequest: { "nvidia.com/gpu": "1" } } }], want: { pods: 3, cpu: 1, memory: 2 * GI, "nvidia.com/gpu": 2 } },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(componentSetRequest(c.components), c.want));
});

describe("availableReplicas: replicas a cluster can still hold", () => {
  const cases: { name: string; cluster: Cluster; perReplica: ResourceAmounts; held?: number; want: number }[] = [
    { name: "free ÷ request, the scarcest resource decides", cluster: cluster({ cpu: "4", memory: "4Gi", pods: "110" }, { cpu: "1" }), perReplica: { pods: 1, cpu: 0.5, memory: GI }, want: 4 },
    { name: "what the workload runs there is added (a full cluster keeps its own)", cluster: cluster({ cpu: "4", pods: "110" }, { cpu: "4" }), perReplica: { pods: 1, cpu: 1 }, held: 3, want: 3 },
    { name: "no summary yet: nothing known to be free", cluster: cluster(), perReplica: { pods: 1 }, want: 0 },
    { name: "a resource the cluster does not report is no limit", cluster: cluster({ cpu: "4", pods: "110" }), perReplica: { pods: 1, cpu: 1, "example.com/dongle": 1 }, want: 4 },
    { name: "decimal quantities divide exactly (0.7 ÷ 0.1 is 7)", cluster: cluster({ cpu: "700m", pods: "110" }), perReplica: { pods: 1, cpu: 0.1 }, want: 7 },
    { name: "over-allocated: 0, never negative", cluster: cluster({ cpu: "4", pods: "110" }, { cpu: "6" }), perReplica: { pods: 1, cpu: 1 }, want: 0 },
  ];
  for (const c of cases) it(c.name, () => assert.equal(availableReplicas(c.cluster, c.perReplica, c.held ? [{ name: "m", replicas: c.held }] : []), c.want));
});

describe("availableComponentSets: complete sets a cluster can still hold (MaxAvailableComponentSets)", () => {
  // The proposal's example: a set of 3 CPUs and 4Gi in a cluster with 6 CPUs and 8Gi free holds 2.
  const perSet: ResourceAmounts = { pods: 3, cpu: 3, memory: 4 * GI };
  const cases: { name: string; cluster: Cluster; holds?: boolean; want: number | undefined }[] = [
    { name: "the proposal's example: 6 CPUs, 8Gi free hold 2 sets", cluster: cluster({ cpu: "6", memory: "8Gi", pods: "110" }), want: 2 },
    { name: "room for every component but not all together: 0 (a set is whole or nothing)", cluster: cluster({ cpu: "6", memory: "8Gi", pods: "110" }, { cpu: "3500m" }), want: 0 },
    { name: "the pods limit counts too", cluster: cluster({ cpu: "60", memory: "80Gi", pods: "110" }, { pods: "106" }), want: 1 },
    { name: "a cluster that runs the workload counts its own set", cluster: cluster({ cpu: "6", memory: "8Gi", pods: "110" }, { cpu: "6", memory: "8Gi" }), holds: true, want: 1 },
    { name: "no summary: unknown", cluster: cluster(), want: undefined },
    { name: "no summary, even when it runs the workload: unknown", cluster: cluster(), holds: true, want: undefined },
  ];
  for (const c of cases) it(c.name, () => assert.equal(availableComponentSets(c.cluster, perSet, c.holds ?? false), c.want));
});

describe("showAmounts", () => {
  it("names sorted, memory in binary units, fractions of a core in milli", () => assert.equal(showAmounts({ pods: 3, memory: 10 * GI, cpu: 2.5 }), "cpu 2500m, memory 10Gi, pods 3"));
});
