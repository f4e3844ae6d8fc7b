import assert from "node:assert/strict";
import { it } from "node:test";
import type { WorkloadMetrics } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { metricsWanted } from "../../shared/workload-metrics-wire.ts";
import { admitWorkloadMetrics, wantedIndex } from "./metrics-admission.ts";

const ref = (name: string) => ({ apiVersion: "apps/v1", kind: "Deployment", namespace: "shop", name });
const index = wantedIndex(
  metricsWanted([{ workload: ref("web"), podSelector: undefined, metrics: ["cpu", "queue"].map((key) => ({ key, type: "Resource", resource: key, container: "", metricName: "", metricSelector: undefined, describedObject: undefined })) }]),
);
const report = (name: string, keys: string[]): WorkloadMetrics => ({
  workload: ref(name), wantedHash: "h", pods: 0, readyPods: 0, podsMetrics: [], objectMetrics: [], windowStartMs: 0, windowEndMs: 0, problems: [],
  resources: keys.map((key) => ({ key, readyPods: 0, readyUsage: "0", readyRequests: "0", unreadyPods: 0, unreadyRequests: "0", missingPods: 0, missingRequests: "0", podsWithoutRequest: 0 })),
  externalMetrics: keys.map((key) => ({ key, value: "1" })),
});

it("takes a summary of a wanted workload, leaving out the keys not wanted for it, and drops any other workload's", () => {
  const whole = admitWorkloadMetrics(report("web", ["cpu"]), index);
  assert.deepEqual(whole.accept && [whole.unwantedKeys, whole.value.resources.map((r) => r.key)], [0, ["cpu"]]);
  const cut = admitWorkloadMetrics(report("web", ["cpu", "made-up"]), index);
  assert.deepEqual(cut.accept && [cut.unwantedKeys, cut.value.resources.map((r) => r.key), cut.value.externalMetrics.map((v) => v.key)], [2, ["cpu"], ["cpu"]]);
  assert.deepEqual(admitWorkloadMetrics(report("api", ["cpu"]), index), { accept: false, reason: "NotWanted" });
  assert.deepEqual(admitWorkloadMetrics(report("web", ["cpu"]), wantedIndex(metricsWanted([]))), { accept: false, reason: "NotWanted" }, "nothing wanted: nothing taken");
});
