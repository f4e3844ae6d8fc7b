import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CronFederatedHPA, CronFederatedHPARule } from "../../shared/api/autoscaling.ts";
import { type AutoscalerEvent, cronFederatedHpaEvents, dueEvents, federatedHpaEvents, type FederatedHpaOutcome, WARNING_REPEAT_MS } from "./autoscaler-events.ts";
import { unstartableRules } from "./cron-rules.ts";

const T0 = Date.parse("2026-11-24T12:00:00Z");
const brief = (events: AutoscalerEvent[]) => events.map((e) => `${e.type} ${e.reason}: ${e.message}`);
const NO_CPU = "failed to get cpu utilization: did not receive metrics for targeted pods (pods might be unready)";

describe("federatedHpaEvents", () => {
  const cases: { name: string; outcome: FederatedHpaOutcome; want: string[] }[] = [
    { name: "a run with nothing to say", outcome: { metricFailures: [] }, want: [] },
    {
      name: "a rescale the metrics asked for",
      outcome: { metricFailures: [], scaleTo: 4, rescaleReason: "cpu resource utilization (percentage of request) above target" },
      want: ["Normal SuccessfulRescale: New size: 4; reason: cpu resource utilization (percentage of request) above target"],
    },
    {
      name: "a rescale into the bounds while the metrics fail: each failure, then the rescale",
      outcome: {
        metricFailures: [{ reason: "FailedGetResourceMetric", error: NO_CPU }],
        scaleTo: 3,
        rescaleReason: "Current number of replicas below Spec.MinReplicas",
      },
      want: [`Warning FailedGetResourceMetric: ${NO_CPU}`, "Normal SuccessfulRescale: New size: 3; reason: Current number of replicas below Spec.MinReplicas"],
    },
    {
      name: "no count from the metrics: each failure and FailedComputeMetricsReplicas",
      outcome: {
        metricFailures: [{ reason: "FailedGetResourceMetric", error: NO_CPU }, { reason: "FailedGetExternalMetric", error: "unable to get external metric qps: no member cluster reported it" }],
        warning: { reason: "FailedComputeMetricsReplicas", message: `invalid metrics (2 invalid out of 2), first error is: ${NO_CPU}` },
      },
      want: [
        `Warning FailedGetResourceMetric: ${NO_CPU}`,
        "Warning FailedGetExternalMetric: unable to get external metric qps: no member cluster reported it",
        `Warning FailedComputeMetricsReplicas: invalid metrics (2 invalid out of 2), first error is: ${NO_CPU}`,
      ],
    },
    {
      name: "no target to scale",
      outcome: { metricFailures: [], warning: { reason: "FailedGetScale", message: "the HPA controller was unable to get the target's current scale: Deployment/web not found" } },
      want: ["Warning FailedGetScale: the HPA controller was unable to get the target's current scale: Deployment/web not found"],
    },
    {
      name: "the scale write failed: FailedRescale with the error, no SuccessfulRescale",
      outcome: { metricFailures: [], scaleTo: 8, rescaleReason: "All metrics below target", scaleError: "the server is currently unable to handle the request" },
      want: ["Warning FailedRescale: New size: 8; reason: All metrics below target; error: the server is currently unable to handle the request"],
    },
    { name: "the status write failed", outcome: { metricFailures: [], statusError: "conflict" }, want: ["Warning FailedUpdateStatus: conflict"] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(brief(federatedHpaEvents(c.outcome)), c.want));
});

describe("cronFederatedHpaEvents", () => {
  const cases: { name: string; args: Parameters<typeof cronFederatedHpaEvents>; want: string[] }[] = [
    { name: "rules that ran: nothing (Karmada records no Event for them)", args: [[{ rule: "up", scheduleTime: "t", ok: true, applied: { replicas: 4 } }], []], want: [] },
    { name: "a rule whose run failed: ScaleFailed", args: [[{ rule: "night", scheduleTime: "t", ok: false, message: "denied" }], []], want: ["Warning ScaleFailed: rule night: denied"] },
    { name: "a rule that cannot start: StartRuleFailed", args: [[], [{ rule: "bad", error: "unknown time zone Moon/Base" }]], want: ["Warning StartRuleFailed: rule bad: unknown time zone Moon/Base"] },
    { name: "the status write failed: UpdateStatusFailed", args: [[], [], "conflict"], want: ["Warning UpdateStatusFailed: conflict"] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(brief(cronFederatedHpaEvents(...c.args)), c.want));
});

describe("unstartableRules", () => {
  const deployment = { apiVersion: "apps/v1", kind: "Deployment", name: "web" };
  const cron = (rules: CronFederatedHPARule[], scaleTargetRef: CronFederatedHPA["spec"]["scaleTargetRef"] = deployment): CronFederatedHPA => ({
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "CronFederatedHPA",
    metadata: { name: "c", namespace: "shop" },
    spec: { scaleTargetRef, rules },
  });
  const karmadaFhpa = { apiVersion: "autoscaling.karmada.io/v1alpha1", kind: "FederatedHPA", name: "web" };
  const noBounds = "a rule that scales a FederatedHPA needs targetMinReplicas or targetMaxReplicas (targetReplicas sets a workload's replicas)";
  const cases: { name: string; rules: CronFederatedHPARule[]; target?: CronFederatedHPA["spec"]["scaleTargetRef"]; want: string[] }[] = [
    { name: "readable rules", rules: [{ name: "up", schedule: "0 8 * * 1-5", timeZone: "Europe/Berlin", targetReplicas: 4 }, { name: "d", schedule: "@daily", targetReplicas: 1 }], want: [] },
    { name: "a schedule that does not parse", rules: [{ name: "bad", schedule: "0 8 * *", targetReplicas: 4 }], want: ['bad: invalid schedule "0 8 * *": want 5 fields (minute hour day-of-month month day-of-week), got 4'] },
    { name: "an unknown zone", rules: [{ name: "moon", schedule: "0 8 * * *", timeZone: "Moon/Base", targetReplicas: 4 }], want: ["moon: unknown time zone Moon/Base"] },
    { name: "a suspended rule never starts, so it cannot fail to", rules: [{ name: "off", schedule: "never", suspend: true, targetReplicas: 4 }], want: [] },
    // Issue 39: Karmada's group names Flotilla's FederatedHPA; a targetReplicas rule (accepted before, as a workload's) has nothing to set.
    { name: "a FederatedHPA by Karmada's group with bounds runs", target: karmadaFhpa, rules: [{ name: "up", schedule: "@daily", targetMinReplicas: 2 }], want: [] },
    { name: "a FederatedHPA by Karmada's group with only targetReplicas cannot run", target: karmadaFhpa, rules: [{ name: "up", schedule: "@daily", targetReplicas: 4 }], want: [`up: ${noBounds}`] },
    { name: "a FederatedHPA by Flotilla's group with only targetReplicas cannot run", target: { ...karmadaFhpa, apiVersion: "flotilla.dev/v1alpha1" }, rules: [{ name: "up", schedule: "@daily", targetReplicas: 4 }], want: [`up: ${noBounds}`] },
    { name: "another kind of Karmada's group is a workload", target: { ...karmadaFhpa, kind: "CronFederatedHPA" }, rules: [{ name: "up", schedule: "@daily", targetReplicas: 4 }], want: [] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(unstartableRules(cron(c.rules, c.target)).map((u) => `${u.rule}: ${u.error}`), c.want));
});

describe("dueEvents", () => {
  const failing: AutoscalerEvent = { type: "Warning", reason: "FailedGetResourceMetric", message: NO_CPU };
  const other: AutoscalerEvent = { type: "Warning", reason: "FailedComputeMetricsReplicas", message: "invalid metrics (1 invalid out of 1)" };
  const rescale: AutoscalerEvent = { type: "Normal", reason: "SuccessfulRescale", message: "New size: 4; reason: All metrics below target" };
  const keyOf = (e: AutoscalerEvent) => JSON.stringify([e.type, e.reason, e.message]);
  const cases: { name: string; events: AutoscalerEvent[]; recorded: [AutoscalerEvent, number][]; now: number; want: AutoscalerEvent[]; remembered: AutoscalerEvent[] }[] = [
    { name: "a new Warning goes and is remembered", events: [failing], recorded: [], now: T0, want: [failing], remembered: [failing] },
    { name: "the same Warning on the next run (15 s later) waits", events: [failing], recorded: [[failing, T0 - 15_000]], now: T0, want: [], remembered: [failing] },
    { name: "just inside the repeat interval it still waits", events: [failing], recorded: [[failing, T0 - WARNING_REPEAT_MS + 1]], now: T0, want: [], remembered: [failing] },
    { name: "a standing Warning goes again once the interval has passed", events: [failing], recorded: [[failing, T0 - WARNING_REPEAT_MS]], now: T0, want: [failing], remembered: [failing] },
    { name: "a different Warning goes at once", events: [failing, other], recorded: [[failing, T0 - 15_000]], now: T0, want: [other], remembered: [failing, other] },
    { name: "a Normal rescale always goes and is not remembered", events: [rescale], recorded: [], now: T0, want: [rescale], remembered: [] },
    { name: "the same Event twice in one run goes once", events: [failing, failing], recorded: [], now: T0, want: [failing], remembered: [failing] },
    { name: "what was recorded long ago and did not come back is forgotten", events: [], recorded: [[failing, T0 - WARNING_REPEAT_MS]], now: T0, want: [], remembered: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = dueEvents(c.events, new Map(c.recorded.map(([e, at]) => [keyOf(e), at])), c.now);
      assert.deepEqual(got.due, c.want);
      assert.deepEqual([...got.recorded.keys()].sort(), c.remembered.map(keyOf).sort());
    });
  }
});
