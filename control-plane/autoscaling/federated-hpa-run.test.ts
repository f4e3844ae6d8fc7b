import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { FederatedHPA } from "../../shared/api/autoscaling.ts";
import { mergeConditions, membersOf, runFederatedHpa, type ScaleTarget } from "./federated-hpa-run.ts";
import { EMPTY_HISTORY } from "./scale-behavior.ts";
import { resourceSums } from "./workload-metrics.fixtures.ts";
import type { WorkloadMetricsSummary } from "./workload-metrics.ts";

const NOW = Date.parse("2026-11-24T12:00:00Z");
const fhpa = (o: Partial<FederatedHPA["spec"]> = {}, status?: FederatedHPA["status"]): FederatedHPA => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "FederatedHPA",
  metadata: { name: "web", namespace: "shop", generation: 3 },
  spec: {
    scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
    minReplicas: 1,
    maxReplicas: 10,
    metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } } }],
    ...o,
  },
  ...(status ? { status } : {}),
});
/** A member whose pods each use `milli` of a 1000m request. */
const cpu = (usage: number[]): WorkloadMetricsSummary => ({ pods: usage.length, readyPods: usage.length, resources: { cpu: resourceSums({ usage, request: 1000 }) } });
const divided: ScaleTarget = { specReplicas: 4, statusReplicas: 4, placement: [{ cluster: "m1", replicas: 2 }, { cluster: "m2", replicas: 2 }] };

describe("runFederatedHpa", () => {
  it("90% CPU against a 50% target on 2 + 2 pods: 8 replicas, said in the status", () => {
    const run = runFederatedHpa({ fhpa: fhpa(), target: divided, summaries: new Map([["m1", cpu([900, 900])], ["m2", cpu([900, 900])]]), history: EMPTY_HISTORY, now: NOW });
    assert.equal(run.scaleTo, 8);
    assert.equal(run.status.desiredReplicas, 8);
    assert.equal(run.status.currentReplicas, 4);
    assert.equal(run.status.lastScaleTime, "2026-11-24T12:00:00.000Z");
    assert.equal(run.status.observedGeneration, 3);
    assert.deepEqual(run.status.currentMetrics, [{ type: "Resource", resource: { name: "cpu", current: { averageUtilization: 90, averageValue: "900m" } } }]);
    assert.deepEqual(run.status.conditions?.map((c) => `${c.type}=${c.status} ${c.reason}`), ["AbleToScale=True SucceededRescale", "ScalingActive=True ValidMetricFound", "ScalingLimited=False DesiredWithinRange"]);
    assert.equal(run.rescaleReason, "cpu resource utilization (percentage of request) above target");
    assert.deepEqual(run.metricFailures, []);
  });

  it("hands each failing metric to the shell (for its Warning Events)", () => {
    const run = runFederatedHpa({ fhpa: fhpa(), target: divided, summaries: new Map(), history: EMPTY_HISTORY, now: NOW });
    assert.deepEqual(run.metricFailures.map((f) => f.reason), ["FailedGetResourceMetric"]);
    assert.equal(run.warning?.reason, "FailedComputeMetricsReplicas");
  });

  it("within tolerance nothing is written but the status; a member that sent nothing never lets it scale down", () => {
    const within = runFederatedHpa({ fhpa: fhpa(), target: divided, summaries: new Map([["m1", cpu([520, 520])], ["m2", cpu([520, 520])]]), history: EMPTY_HISTORY, now: NOW });
    assert.equal(within.scaleTo, undefined);
    assert.equal(within.status.desiredReplicas, 4);
    // Low usage in m1, m2 silent: its pods count as missing at 100% of the request, so no scale-down.
    const silent = runFederatedHpa({ fhpa: fhpa(), target: divided, summaries: new Map([["m1", cpu([100, 100])]]), history: EMPTY_HISTORY, now: NOW });
    assert.equal(silent.scaleTo, undefined, JSON.stringify(silent.status));
  });

  it("Duplicated: every cluster runs all the replicas, so each is expected to hold them all", () => {
    const dup: ScaleTarget = { specReplicas: 3, statusReplicas: 6, placement: [{ cluster: "m1" }, { cluster: "m2" }] };
    assert.deepEqual(membersOf(dup, new Map()).map((m) => m.expectedPods), [3, 3]);
  });

  it("a target that does not exist, or has no replicas: AbleToScale False FailedGetScale, nothing written, a warning", () => {
    for (const [target, why] of [[undefined, /not found/], [{ ...divided, specReplicas: undefined }, /no replicas/]] as const) {
      const run = runFederatedHpa({ fhpa: fhpa(), target, summaries: new Map(), history: EMPTY_HISTORY, now: NOW });
      assert.equal(run.scaleTo, undefined);
      assert.equal(run.warning?.reason, "FailedGetScale");
      const able = run.status.conditions?.find((c) => c.type === "AbleToScale");
      assert.equal(able?.status, "False");
      assert.match(able?.message ?? "", why);
    }
  });

  it("no metrics in the spec: Karmada's default, cpu at 80%", () => {
    const run = runFederatedHpa({ fhpa: fhpa({ metrics: [] }), target: divided, summaries: new Map([["m1", cpu([900, 900])], ["m2", cpu([900, 900])]]), history: EMPTY_HISTORY, now: NOW });
    assert.equal(run.scaleTo, 5, "ceil(4 × 90 / 80)");
  });

  it("bounded by maxReplicas, and says so", () => {
    const run = runFederatedHpa({ fhpa: fhpa({ maxReplicas: 6 }), target: divided, summaries: new Map([["m1", cpu([900, 900])], ["m2", cpu([900, 900])]]), history: EMPTY_HISTORY, now: NOW });
    assert.equal(run.scaleTo, 6);
    assert.equal(run.status.conditions?.find((c) => c.type === "ScalingLimited")?.reason, "TooManyReplicas");
  });
});

describe("mergeConditions", () => {
  const earlier = "2026-11-24T11:00:00.000Z";
  it("keeps a condition's transition time while its status holds, moves it when it changes, keeps those not decided", () => {
    const stored = [
      { type: "AbleToScale", status: "True" as const, lastTransitionTime: earlier, reason: "ReadyForNewScale", message: "m" },
      { type: "ScalingActive", status: "True" as const, lastTransitionTime: earlier, reason: "ValidMetricFound", message: "m" },
      { type: "ScalingLimited", status: "False" as const, lastTransitionTime: earlier, reason: "DesiredWithinRange", message: "m" },
    ];
    const merged = mergeConditions(stored, [
      { type: "ScalingActive", status: "True", reason: "ValidMetricFound", message: "new words" },
      { type: "ScalingLimited", status: "True", reason: "TooManyReplicas", message: "capped" },
    ], NOW);
    assert.deepEqual(merged.map((c) => [c.type, c.lastTransitionTime, c.reason]), [
      ["AbleToScale", earlier, "ReadyForNewScale"],
      ["ScalingActive", earlier, "ValidMetricFound"],
      ["ScalingLimited", "2026-11-24T12:00:00.000Z", "TooManyReplicas"],
    ]);
  });
});
