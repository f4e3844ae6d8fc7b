import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster, KubeObject } from "../../shared/api/types.ts";
import type { ReplicaRequirements } from "../../shared/interpreter/interpreter.ts";
import { availableReplicas, podRequestsOf, replicaRequest, type ResourceAmounts } from "./capacity.ts";

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
