import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CronFederatedHPA, CronFederatedHPARule, CrossVersionObjectReference, FederatedHPA, FederatedHPASpec, MetricSpec, MetricTarget } from "../api/autoscaling.ts";
import { validateCronFederatedHPA, validateFederatedHPA } from "./validation.ts";

const deployment: CrossVersionObjectReference = { apiVersion: "apps/v1", kind: "Deployment", name: "web" };
const fhpaRef: CrossVersionObjectReference = { apiVersion: "flotilla.dev/v1alpha1", kind: "FederatedHPA", name: "web" };

const fhpa = (spec: Partial<FederatedHPASpec>): FederatedHPA => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "FederatedHPA",
  metadata: { name: "web", namespace: "default" },
  spec: { scaleTargetRef: deployment, minReplicas: 1, maxReplicas: 10, ...spec },
});
const cpu = (target: MetricTarget): MetricSpec => ({ type: "Resource", resource: { name: "cpu", target } });

describe("validateFederatedHPA", () => {
  const cases: { name: string; obj: FederatedHPA; want: string[] }[] = [
    { name: "a FederatedHPA as Karmada's docs write one is valid", obj: fhpa({ metrics: [cpu({ type: "Utilization", averageUtilization: 50 })] }), want: [] },
    {
      name: "every metric source with its target is valid",
      obj: fhpa({
        metrics: [
          { type: "Pods", pods: { metric: { name: "packets-per-second" }, target: { type: "AverageValue", averageValue: "1k" } } },
          { type: "Object", object: { describedObject: { apiVersion: "networking.k8s.io/v1", kind: "Ingress", name: "main" }, metric: { name: "requests-per-second" }, target: { type: "Value", value: "10k" } } },
          { type: "External", external: { metric: { name: "queue_messages_ready", selector: { matchLabels: { queue: "worker_tasks" } } }, target: { type: "AverageValue", averageValue: 30 } } },
          { type: "ContainerResource", containerResource: { name: "memory", container: "app", target: { type: "AverageValue", averageValue: "500Mi" } } },
        ],
      }),
      want: [],
    },
    { name: "no minReplicas is valid (it defaults to 1)", obj: fhpa({ minReplicas: undefined, maxReplicas: 1 }), want: [] },
    { name: "minReplicas 0", obj: fhpa({ minReplicas: 0 }), want: ['spec.minReplicas: Invalid value: 0: must be greater than or equal to 1'] },
    { name: "maxReplicas 0", obj: fhpa({ minReplicas: undefined, maxReplicas: 0 }), want: ["spec.maxReplicas: Invalid value: 0: must be greater than 0"] },
    { name: "maxReplicas below minReplicas", obj: fhpa({ minReplicas: 5, maxReplicas: 3 }), want: ["spec.maxReplicas: Invalid value: 3: must be greater than or equal to `minReplicas`"] },
    { name: "a scaleTargetRef without a name", obj: fhpa({ scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "" } }), want: ["spec.scaleTargetRef.name: Required value: "] },
    { name: "a zero averageValue", obj: fhpa({ metrics: [cpu({ type: "AverageValue", averageValue: "0" })] }), want: ['spec.metrics[0].resource.target.averageValue: Invalid value: "0": must be positive'] },
    { name: "a negative value", obj: fhpa({ metrics: [{ type: "Object", object: { describedObject: deployment, metric: { name: "m" }, target: { type: "Value", value: "-1" } } }] }), want: ['spec.metrics[0].object.target.value: Invalid value: "-1": must be positive'] },
    { name: "a value that is not a quantity", obj: fhpa({ metrics: [cpu({ type: "AverageValue", averageValue: "lots" })] }), want: ['spec.metrics[0].resource.target.averageValue: Invalid value: "lots": not a quantity'] },
    { name: "a type without its source", obj: fhpa({ metrics: [{ type: "Pods" }] }), want: ["spec.metrics[0].pods: Required value: type Pods needs pods"] },
    {
      name: "a second source beside the type's",
      obj: fhpa({ metrics: [{ ...cpu({ type: "Utilization", averageUtilization: 80 }), pods: { metric: { name: "m" }, target: { type: "AverageValue", averageValue: 1 } } }] }),
      want: ["spec.metrics[0].pods: Forbidden: must populate the given metric source only"],
    },
    { name: "an unknown type", obj: fhpa({ metrics: [{ type: "Custom" as MetricSpec["type"] }] }), want: ['spec.metrics[0].type: Unsupported value: "Custom": supported values: "Object", "Pods", "Resource", "ContainerResource", "External"'] },
    { name: "a Resource target with both utilization and value", obj: fhpa({ metrics: [cpu({ type: "Utilization", averageUtilization: 80, averageValue: "1" })] }), want: ['spec.metrics[0].resource.target: Invalid value: "": set target.averageUtilization or target.averageValue, not both'] },
    { name: "a Resource target with neither", obj: fhpa({ metrics: [cpu({ type: "Value", value: "1" })] }), want: ['spec.metrics[0].resource.target: Invalid value: "": set target.averageUtilization or target.averageValue, not both'] },
    { name: "a Pods target without averageValue", obj: fhpa({ metrics: [{ type: "Pods", pods: { metric: { name: "m" }, target: { type: "Value", value: 1 } } }] }), want: ["spec.metrics[0].pods.target.averageValue: Required value: must specify a positive target averageValue"] },
    { name: "an External target with neither value", obj: fhpa({ metrics: [{ type: "External", external: { metric: { name: "m" }, target: { type: "Utilization", averageUtilization: 5 } } }] }), want: ["spec.metrics[0].external.target.averageValue: Required value: must set either a target value or averageValue"] },
    { name: "no spec", obj: { apiVersion: "flotilla.dev/v1alpha1", kind: "FederatedHPA", metadata: { name: "x" } } as FederatedHPA, want: ["spec: Required value: a FederatedHPA needs a spec"] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(validateFederatedHPA(c.obj), c.want));
});

const rule = (r: Partial<CronFederatedHPARule>): CronFederatedHPARule => ({ name: "scale-up", schedule: "0 8 * * MON-FRI", ...r });
const cron = (scaleTargetRef: CrossVersionObjectReference, rules: CronFederatedHPARule[]): CronFederatedHPA => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "CronFederatedHPA",
  metadata: { name: "web", namespace: "default" },
  spec: { scaleTargetRef, rules },
});

const karmadaFhpaRef = { apiVersion: "autoscaling.karmada.io/v1alpha1", kind: "FederatedHPA", name: "web" };

describe("validateCronFederatedHPA", () => {
  const cases: { name: string; obj: CronFederatedHPA; want: string[] }[] = [
    { name: "a workload rule with targetReplicas is valid", obj: cron(deployment, [rule({ targetReplicas: 5, timeZone: "Europe/Berlin" })]), want: [] },
    { name: "a workload may be scaled to 0", obj: cron(deployment, [rule({ targetReplicas: 0 })]), want: [] },
    { name: "a FederatedHPA rule with targetMaxReplicas alone is valid", obj: cron(fhpaRef, [rule({ targetMaxReplicas: 10 })]), want: [] },
    { name: "a FederatedHPA rule with both bounds is valid", obj: cron(fhpaRef, [rule({ targetMinReplicas: 2, targetMaxReplicas: 2 })]), want: [] },
    { name: "descriptors and several rules are valid", obj: cron(deployment, [rule({ name: "a", schedule: "@daily", targetReplicas: 1 }), rule({ name: "b", schedule: "30 18 * * *", targetReplicas: 3, suspend: true })]), want: [] },
    {
      name: "a workload's rule with targetMin/MaxReplicas is not refused, as in Karmada (they are unused)",
      obj: cron(deployment, [rule({ targetReplicas: 3, targetMinReplicas: 1, targetMaxReplicas: 5 })]),
      want: [],
    },
    {
      name: "a schedule that does not parse",
      obj: cron(deployment, [rule({ schedule: "0 8 * *", targetReplicas: 1 })]),
      want: ['spec.rules[0].schedule: Invalid value: "0 8 * *": invalid cron format: want 5 fields (minute hour day-of-month month day-of-week), got 4'],
    },
    {
      name: "@every, which Karmada's webhook refuses too",
      obj: cron(deployment, [rule({ schedule: "@every 1h", targetReplicas: 1 })]),
      want: ['spec.rules[0].schedule: Invalid value: "@every 1h": invalid cron format: unknown descriptor "@every 1h": want one of @yearly, @annually, @monthly, @weekly, @daily, @hourly'],
    },
    { name: "an unknown time zone", obj: cron(deployment, [rule({ timeZone: "Europe/Atlantis", targetReplicas: 1 })]), want: ['spec.rules[0].timeZone: Invalid value: "Europe/Atlantis": unknown time zone Europe/Atlantis'] },
    {
      name: "duplicate rule names, at the second",
      obj: cron(deployment, [rule({ targetReplicas: 1 }), rule({ name: "other", targetReplicas: 2 }), rule({ targetReplicas: 3 })]),
      want: ['spec.rules[2].name: Duplicate value: "scale-up"'],
    },
    {
      name: "a FederatedHPA rule without targetMin/MaxReplicas",
      obj: cron(fhpaRef, [rule({ targetReplicas: 3 })]),
      want: ['spec.rules[0].targetMaxReplicas: Invalid value: "": targetMinReplicas and targetMaxReplicas cannot both be absent when the target is a FederatedHPA'],
    },
    { name: "a FederatedHPA rule with targetMinReplicas 0", obj: cron(fhpaRef, [rule({ targetMinReplicas: 0 })]), want: ["spec.rules[0].targetMinReplicas: Invalid value: 0: targetMinReplicas should be larger than 0"] },
    { name: "a FederatedHPA rule with targetMaxReplicas 0", obj: cron(fhpaRef, [rule({ targetMaxReplicas: 0 })]), want: ["spec.rules[0].targetMaxReplicas: Invalid value: 0: targetMaxReplicas should be larger than 0"] },
    { name: "a FederatedHPA rule with min above max", obj: cron(fhpaRef, [rule({ targetMinReplicas: 5, targetMaxReplicas: 4 })]), want: ["spec.rules[0].targetMinReplicas: Invalid value: 5: targetMaxReplicas should be larger than or equal to targetMinReplicas"] },
    { name: "a workload rule without targetReplicas", obj: cron(deployment, [rule({ targetMaxReplicas: 3 })]), want: ['spec.rules[0].targetReplicas: Invalid value: "": targetReplicas cannot be absent when the target is a Deployment'] },
    { name: "a negative targetReplicas", obj: cron(deployment, [rule({ targetReplicas: -1 })]), want: ["spec.rules[0].targetReplicas: Invalid value: -1: targetReplicas should be larger than or equal to 0 (0 scales the workload to nothing)"] },
    {
      name: "a flotilla.dev target that is not a FederatedHPA is refused alone",
      obj: cron({ apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", name: "p" }, [rule({ schedule: "bad" })]),
      want: ['spec.scaleTargetRef.kind: Invalid value: "PropagationPolicy": invalid scaleTargetRef kind: PropagationPolicy, only FederatedHPA is supported in flotilla.dev/v1alpha1'],
    },
    // Issue 39: Karmada's documentation names the FederatedHPA by autoscaling.karmada.io/v1alpha1; so does a ported object.
    { name: "a FederatedHPA by Karmada's group is Flotilla's FederatedHPA: bounds alone are valid", obj: cron(karmadaFhpaRef, [rule({ targetMinReplicas: 5, targetMaxReplicas: 10 })]), want: [] },
    { name: "a FederatedHPA by Karmada's group: min above max", obj: cron(karmadaFhpaRef, [rule({ targetMinReplicas: 5, targetMaxReplicas: 4 })]), want: ["spec.rules[0].targetMinReplicas: Invalid value: 5: targetMaxReplicas should be larger than or equal to targetMinReplicas"] },
    {
      name: "a FederatedHPA by Karmada's group with neither bound nor targetReplicas",
      obj: cron(karmadaFhpaRef, [rule({})]),
      want: ['spec.rules[0].targetMaxReplicas: Invalid value: "": targetMinReplicas and targetMaxReplicas cannot both be absent when the target is a FederatedHPA'],
    },
    { name: "a FederatedHPA by Karmada's group with targetReplicas alone stays accepted, as before (the rule cannot run)", obj: cron(karmadaFhpaRef, [rule({ targetReplicas: 3 })]), want: [] },
    { name: "a FederatedHPA by Karmada's group with targetReplicas and bounds a workload rule ignored stays accepted, as before", obj: cron(karmadaFhpaRef, [rule({ targetReplicas: 3, targetMinReplicas: 0, targetMaxReplicas: -1 })]), want: [] },
    { name: "another kind of Karmada's group is a workload, as before", obj: cron({ ...karmadaFhpaRef, kind: "Deployment" }, [rule({ targetReplicas: 3 })]), want: [] },
    {
      name: "several problems, in rule order",
      obj: cron(deployment, [rule({ schedule: "* * * * * *", timeZone: "+02:00" }), rule({ name: "scale-up", targetReplicas: 1 })]),
      want: [
        'spec.rules[0].schedule: Invalid value: "* * * * * *": invalid cron format: want 5 fields (minute hour day-of-month month day-of-week), got 6',
        'spec.rules[0].timeZone: Invalid value: "+02:00": unknown time zone +02:00: give an IANA name (Europe/Berlin, Etc/GMT-1), not an offset',
        'spec.rules[0].targetReplicas: Invalid value: "": targetReplicas cannot be absent when the target is a Deployment',
        'spec.rules[1].name: Duplicate value: "scale-up"',
      ],
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(validateCronFederatedHPA(c.obj), c.want));
});
