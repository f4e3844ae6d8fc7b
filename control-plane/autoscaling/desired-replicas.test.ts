import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AutoscalerCondition, FederatedHPASpec } from "./federated-hpa-api.ts";
import type { DesiredReplicasInput } from "./desired-replicas.ts";
import { desiredReplicas } from "./desired-replicas.ts";
import type { MetricProposal } from "./replica-calculator.ts";
import type { ScaleHistory } from "./scale-behavior.ts";
import { EMPTY_HISTORY } from "./scale-behavior.ts";

const NOW = 2_000_000_000;
const ago = (seconds: number) => NOW - seconds * 1000;
const proposal = (replicas: number, metricName = "cpu resource utilization (percentage of request)"): MetricProposal => ({
  ok: true, replicas, metricName, status: { type: "Resource", resource: { name: "cpu", current: { averageUtilization: 50 } } },
});
const failure = (reason = "FailedGetResourceMetric", error = "failed to get cpu utilization: did not receive metrics for targeted pods (pods might be unready)"): MetricProposal => ({
  ok: false, reason, message: `the HPA was unable to compute the replica count: ${error}`, error,
});
const spec = (over: Partial<FederatedHPASpec> = {}): DesiredReplicasInput["spec"] => ({ minReplicas: 1, maxReplicas: 10, ...over });
const run = (current: number, proposals: MetricProposal[], over: Partial<DesiredReplicasInput> = {}) =>
  desiredReplicas({ spec: spec(), currentReplicas: current, proposals, history: EMPTY_HISTORY, now: NOW, ...over });
const reasons = (conditions: AutoscalerCondition[]) => Object.fromEntries(conditions.map((c) => [c.type, `${c.status} ${c.reason}`]));

describe("desiredReplicas", () => {
  const cases: { name: string; current: number; proposals: MetricProposal[]; over?: Partial<DesiredReplicasInput>; want: number; conditions: Record<string, string> }[] = [
    {
      name: "the largest metric proposal wins", current: 4, proposals: [proposal(3), proposal(7, "pods metric qps"), proposal(5)], want: 7,
      conditions: { AbleToScale: "True SucceededRescale", ScalingActive: "True ValidMetricFound", ScalingLimited: "False DesiredWithinRange" },
    },
    {
      name: "a failing metric is ignored while the others scale up", current: 4, proposals: [failure(), proposal(6)], want: 6,
      conditions: { AbleToScale: "True SucceededRescale", ScalingActive: "True ValidMetricFound", ScalingLimited: "False DesiredWithinRange" },
    },
    {
      name: "a failing metric forbids a scale-down by the others", current: 4, proposals: [proposal(2), failure("FailedGetPodsMetric")], want: 4,
      conditions: { ScalingActive: "False FailedGetPodsMetric" },
    },
    { name: "every metric failing: no scale, the first failure's reason", current: 4, proposals: [failure("FailedGetExternalMetric"), failure()], want: 4, conditions: { ScalingActive: "False FailedGetExternalMetric" } },
    {
      name: "a proposal above maxReplicas is held at it", current: 8, proposals: [proposal(20)], want: 10,
      conditions: { AbleToScale: "True SucceededRescale", ScalingActive: "True ValidMetricFound", ScalingLimited: "True TooManyReplicas" },
    },
    {
      name: "a proposal below minReplicas is held at it", current: 5, proposals: [proposal(1)], over: { spec: spec({ minReplicas: 3 }), defaultScaleDownWindowSeconds: 0 }, want: 3,
      conditions: { AbleToScale: "True SucceededRescale", ScalingActive: "True ValidMetricFound", ScalingLimited: "True TooFewReplicas" },
    },
    { name: "a proposal of 0 is held at the default minReplicas of 1", current: 2, proposals: [proposal(0)], over: { spec: { maxReplicas: 10 }, defaultScaleDownWindowSeconds: 0 }, want: 1, conditions: { ScalingLimited: "True TooFewReplicas" } },
    { name: "minReplicas 0 lets the target scale to zero", current: 2, proposals: [proposal(0)], over: { spec: spec({ minReplicas: 0 }), defaultScaleDownWindowSeconds: 0 }, want: 0, conditions: { ScalingLimited: "False DesiredWithinRange" } },
    { name: "minReplicas 0 and a target at zero still reads the metrics", current: 0, proposals: [proposal(3)], over: { spec: spec({ minReplicas: 0 }) }, want: 3, conditions: { ScalingActive: "True ValidMetricFound" } },
    { name: "a target at zero replicas with minReplicas above zero is not autoscaled", current: 0, proposals: [proposal(5)], want: 0, conditions: { ScalingActive: "False ScalingDisabled" } },
    { name: "a target above maxReplicas is brought down before any metric is read", current: 15, proposals: [failure()], want: 10, conditions: { AbleToScale: "True SucceededRescale" } },
    { name: "a target below minReplicas is brought up before any metric is read", current: 1, proposals: [proposal(1)], over: { spec: spec({ minReplicas: 2 }) }, want: 2, conditions: { AbleToScale: "True SucceededRescale" } },
    {
      name: "a scale-down waits for the window's highest recommendation", current: 8, proposals: [proposal(4)], over: { history: { ...EMPTY_HISTORY, recommendations: [{ at: ago(60), replicas: 8 }] } }, want: 8,
      conditions: { AbleToScale: "True ScaleDownStabilized", ScalingActive: "True ValidMetricFound", ScalingLimited: "False DesiredWithinRange" },
    },
    {
      name: "the default scale-up rate: from 2, at most 6", current: 2, proposals: [proposal(9)], want: 6,
      conditions: { AbleToScale: "True SucceededRescale", ScalingActive: "True ValidMetricFound", ScalingLimited: "True ScaleUpLimit" },
    },
    {
      name: "the same count as now: nothing to write", current: 5, proposals: [proposal(5)], want: 5,
      conditions: { AbleToScale: "True ReadyForNewScale", ScalingActive: "True ValidMetricFound", ScalingLimited: "False DesiredWithinRange" },
    },
    {
      name: "scale-down Disabled keeps the count", current: 6, proposals: [proposal(2)], over: { spec: spec({ behavior: { scaleDown: { selectPolicy: "Disabled", stabilizationWindowSeconds: 0 } } }) }, want: 6,
      conditions: { AbleToScale: "True ReadyForNewScale", ScalingLimited: "True ScaleDownLimit" },
    },
  ];
  for (const c of cases) {
    it(`${c.name}: ${c.want}`, () => {
      const got = run(c.current, c.proposals, c.over);
      assert.equal(got.replicas, c.want);
      assert.equal(got.rescale, c.want !== c.current);
      const seen = reasons(got.conditions);
      for (const [type, want] of Object.entries(c.conditions)) assert.equal(seen[type], want, type);
    });
  }

  describe("the rescale reason (kube-controller-manager's words, for its rescale Events)", () => {
    const cases: { name: string; current: number; proposals: MetricProposal[]; over?: Partial<DesiredReplicasInput>; want: string | undefined }[] = [
      { name: "above maxReplicas", current: 15, proposals: [failure()], want: "Current number of replicas above Spec.MaxReplicas" },
      { name: "below minReplicas", current: 1, proposals: [failure()], over: { spec: spec({ minReplicas: 2 }) }, want: "Current number of replicas below Spec.MinReplicas" },
      { name: "the largest metric asks for more: it is named", current: 4, proposals: [proposal(3), proposal(7, "pods metric qps")], want: "pods metric qps above target" },
      { name: "held by the rate limit: still the metric that asked", current: 2, proposals: [proposal(9)], want: "cpu resource utilization (percentage of request) above target" },
      { name: "the metrics ask for fewer", current: 5, proposals: [proposal(1)], over: { spec: spec({ minReplicas: 3 }), defaultScaleDownWindowSeconds: 0 }, want: "All metrics below target" },
      { name: "no change: none", current: 5, proposals: [proposal(5)], want: undefined },
      { name: "stabilized to no change: none", current: 8, proposals: [proposal(4)], over: { history: { ...EMPTY_HISTORY, recommendations: [{ at: ago(60), replicas: 8 }] } }, want: undefined },
    ];
    for (const c of cases) it(c.name, () => assert.equal(run(c.current, c.proposals, c.over).rescaleReason, c.want));
  });

  it("says which metric it scaled on, and the new count", () => {
    const got = run(4, [proposal(3), proposal(7, "pods metric qps")]);
    const byType = Object.fromEntries(got.conditions.map((c) => [c.type, c.message]));
    assert.equal(byType.ScalingActive, "the HPA was able to successfully calculate a replica count from pods metric qps");
    assert.equal(byType.AbleToScale, "the HPA controller was able to update the target scale to 7");
  });

  it("with a failing metric, reports Kubernetes' warning and keeps the computed metrics' statuses", () => {
    const got = run(4, [proposal(2), failure()]);
    assert.equal(got.warning, "invalid metrics (1 invalid out of 2), first error is: failed to get cpu utilization: did not receive metrics for targeted pods (pods might be unready)");
    assert.equal(got.currentMetrics.length, 1);
  });

  it("keeps the recommendation and, on a rescale, the scale event", () => {
    const got = run(4, [proposal(6)]);
    const want: ScaleHistory = { recommendations: [{ at: NOW, replicas: 6 }], scaleUpEvents: [{ at: NOW, change: 2 }], scaleDownEvents: [] };
    assert.deepEqual(got.history, want);
  });

  it("a stabilized scale-down goes through once the high recommendation leaves the window", () => {
    const first = run(8, [proposal(4)], { history: { ...EMPTY_HISTORY, recommendations: [{ at: ago(290), replicas: 8 }] } });
    assert.equal(first.replicas, 8);
    const later = run(8, [proposal(4)], { history: first.history, now: NOW + 11_000 });
    assert.equal(later.replicas, 4);
    assert.deepEqual(later.history.scaleDownEvents, [{ at: NOW + 11_000, change: 4 }]);
  });

  it("a rate-limited scale-up continues once its period has passed", () => {
    const first = run(2, [proposal(20)], { spec: spec({ maxReplicas: 50 }) });
    assert.equal(first.replicas, 6);
    const soon = run(6, [proposal(20)], { spec: spec({ maxReplicas: 50 }), history: first.history, now: NOW + 10_000 });
    assert.equal(soon.replicas, 6);
    const later = run(6, [proposal(20)], { spec: spec({ maxReplicas: 50 }), history: first.history, now: NOW + 16_000 });
    assert.equal(later.replicas, 12);
  });
});
