// The FederatedHPA and CronFederatedHPA CRDs' test cases (test/crds.test.ts runs them against a
// real apiserver): manifests in the shape Karmada's autoscaling docs use with only the apiVersion
// changed, objects with every field, and objects the schemas refuse with the field and the reason.
import type { KubernetesObject } from "@kubernetes/client-node";
import { API_VERSION } from "../shared/api/types.ts";

type Obj = Record<string, unknown>;
export type AutoscalingFixture = KubernetesObject & Obj;
const NS = "default";

const object = (kind: string) => (name: string, spec: Obj | undefined): AutoscalingFixture => ({
  apiVersion: API_VERSION,
  kind,
  metadata: { name, namespace: NS },
  ...(spec === undefined ? {} : { spec }),
});
export const fhpa = object("FederatedHPA");
export const cronFhpa = object("CronFederatedHPA");

/** A FederatedHPA as Karmada's docs write one (scale on cpu, short stabilization windows), apiVersion changed. */
export const karmadaFhpaManifest = `apiVersion: ${API_VERSION}
kind: FederatedHPA
metadata:
  name: nginx
  namespace: ${NS}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: nginx
  minReplicas: 1
  maxReplicas: 10
  behavior:
    scaleDown:
      stabilizationWindowSeconds: 10
    scaleUp:
      stabilizationWindowSeconds: 10
  metrics:
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: 10
`;

/** CronFederatedHPAs as Karmada's docs write them, one for a Deployment and one for a FederatedHPA. */
export const karmadaCronManifest = `apiVersion: ${API_VERSION}
kind: CronFederatedHPA
metadata:
  name: nginx-cronfhpa
  namespace: ${NS}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: nginx
  rules:
    - name: "scale-up"
      schedule: "*/1 * * * *"
      targetReplicas: 5
      suspend: false
---
apiVersion: ${API_VERSION}
kind: CronFederatedHPA
metadata:
  name: nginx-fhpa-cronfhpa
  namespace: ${NS}
spec:
  scaleTargetRef:
    apiVersion: ${API_VERSION}
    kind: FederatedHPA
    name: nginx
  rules:
    - name: "scale-up"
      schedule: "0 8 * * MON-FRI"
      targetMinReplicas: 5
      targetMaxReplicas: 10
      timeZone: Europe/Berlin
`;

const deployment = { apiVersion: "apps/v1", kind: "Deployment", name: "web" };
const selector = { matchLabels: { queue: "tasks" }, matchExpressions: [{ key: "env", operator: "In", values: ["prod"] }] };

/** A FederatedHPA with every metric source and every behavior field. */
export const everyField = fhpa("every-field", {
  scaleTargetRef: deployment,
  minReplicas: 2,
  maxReplicas: 20,
  metrics: [
    { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 60 } } },
    { type: "ContainerResource", containerResource: { name: "memory", container: "app", target: { type: "AverageValue", averageValue: "512Mi" } } },
    { type: "Pods", pods: { metric: { name: "packets-per-second", selector }, target: { type: "AverageValue", averageValue: "1k" } } },
    { type: "Object", object: { describedObject: { apiVersion: "networking.k8s.io/v1", kind: "Ingress", name: "main" }, metric: { name: "requests-per-second" }, target: { type: "Value", value: "10k" } } },
    { type: "External", external: { metric: { name: "queue_messages_ready", selector }, target: { type: "AverageValue", averageValue: 30 } } },
  ],
  behavior: {
    scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: "Max", policies: [{ type: "Pods", value: 4, periodSeconds: 15 }, { type: "Percent", value: 100, periodSeconds: 15 }], tolerance: "0.05" },
    scaleDown: { stabilizationWindowSeconds: 300, selectPolicy: "Min", policies: [{ type: "Percent", value: 100, periodSeconds: 1800 }] },
  },
});

/** An autoscaling/v2 status with every field, as the controller will write it. */
export const fhpaStatus = {
  observedGeneration: 1,
  lastScaleTime: "2026-01-01T10:00:00Z",
  currentReplicas: 3,
  desiredReplicas: 4,
  currentMetrics: [
    { type: "Resource", resource: { name: "cpu", current: { averageUtilization: 75, averageValue: "150m" } } },
    { type: "ContainerResource", containerResource: { name: "memory", container: "app", current: { averageValue: "400Mi" } } },
    { type: "Pods", pods: { metric: { name: "packets-per-second" }, current: { averageValue: "900" } } },
    { type: "Object", object: { describedObject: { apiVersion: "networking.k8s.io/v1", kind: "Ingress", name: "main" }, metric: { name: "requests-per-second" }, current: { value: "8k" } } },
    { type: "External", external: { metric: { name: "queue_messages_ready" }, current: { averageValue: "20" } } },
  ],
  conditions: [
    { type: "AbleToScale", status: "True", lastTransitionTime: "2026-01-01T10:00:00Z", reason: "ReadyForNewScale", message: "recommended size matches current size" },
    { type: "ScalingActive", status: "True", lastTransitionTime: "2026-01-01T10:00:00Z", reason: "ValidMetricFound", message: "the HPA was able to compute the replica count" },
  ],
};

/** A CronFederatedHPA status with every field. */
export const cronStatus = {
  executionHistories: [
    {
      ruleName: "scale-up",
      nextExecutionTime: "2026-01-02T07:00:00Z",
      successfulExecutions: [{ scheduleTime: "2026-01-01T07:00:00Z", executionTime: "2026-01-01T07:00:01Z", appliedMinReplicas: 5, appliedMaxReplicas: 10 }],
      failedExecutions: [{ scheduleTime: "2025-12-31T07:00:00Z", executionTime: "2025-12-31T07:00:01Z", message: "FederatedHPA default/nginx not found" }],
    },
  ],
};

interface BadCase {
  what: string;
  obj: AutoscalingFixture;
  message: RegExp[];
}

const cpu80 = { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } } };
const withMetric = (metric: Obj) => ({ scaleTargetRef: deployment, maxReplicas: 3, metrics: [metric] });
const rule = (r: Obj) => ({ name: "r", schedule: "0 * * * *", targetReplicas: 1, ...r });
const onDeployment = (...rules: Obj[]) => ({ scaleTargetRef: deployment, rules });
const fhpaTarget = { apiVersion: API_VERSION, kind: "FederatedHPA", name: "web" };

export const badAutoscaling: BadCase[] = [
  { what: "a FederatedHPA without maxReplicas", obj: fhpa("no-max", { scaleTargetRef: deployment }), message: [/spec\.maxReplicas: Required value/] },
  { what: "a FederatedHPA without scaleTargetRef", obj: fhpa("no-ref", { maxReplicas: 3 }), message: [/spec\.scaleTargetRef: Required value/] },
  { what: "maxReplicas 0", obj: fhpa("max-0", { scaleTargetRef: deployment, maxReplicas: 0 }), message: [/spec\.maxReplicas/, /greater than or equal to 1/] },
  { what: "minReplicas 0", obj: fhpa("min-0", { scaleTargetRef: deployment, minReplicas: 0, maxReplicas: 3 }), message: [/spec\.minReplicas/, /greater than or equal to 1/] },
  { what: "minReplicas above maxReplicas", obj: fhpa("min-above-max", { scaleTargetRef: deployment, minReplicas: 5, maxReplicas: 3 }), message: [/spec\.maxReplicas/, /maxReplicas must be greater than or equal to minReplicas/] },
  { what: "a scaleTargetRef name with a slash", obj: fhpa("slash", { scaleTargetRef: { ...deployment, name: "a/b" }, maxReplicas: 3 }), message: [/spec\.scaleTargetRef\.name/] },
  { what: "an unknown metric type", obj: fhpa("bad-type", withMetric({ ...cpu80, type: "Custom" })), message: [/spec\.metrics\[0\]\.type: Unsupported value: "Custom"/] },
  { what: "a metric type without its source", obj: fhpa("no-source", withMetric({ type: "Pods", resource: cpu80.resource })), message: [/spec\.metrics\[0\]\.pods/, /type Pods needs pods/] },
  {
    what: "a metric with two sources",
    obj: fhpa("two-sources", withMetric({ ...cpu80, pods: { metric: { name: "m" }, target: { type: "AverageValue", averageValue: 1 } } })),
    message: [/spec\.metrics\[0\]/, /set exactly one of object, pods, resource, containerResource and external/],
  },
  { what: "a Resource target with utilization and value", obj: fhpa("both", withMetric({ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50, averageValue: "1" } } })), message: [/spec\.metrics\[0\]\.resource\.target/, /not both/] },
  { what: "a Resource target with neither", obj: fhpa("neither", withMetric({ type: "Resource", resource: { name: "cpu", target: { type: "Value", value: "1" } } })), message: [/spec\.metrics\[0\]\.resource\.target/, /set target\.averageUtilization or target\.averageValue/] },
  { what: "a Pods target without averageValue", obj: fhpa("pods-value", withMetric({ type: "Pods", pods: { metric: { name: "m" }, target: { type: "Value", value: 1 } } })), message: [/spec\.metrics\[0\]\.pods\.target/, /set target\.averageValue/] },
  { what: "averageUtilization 0", obj: fhpa("util-0", withMetric({ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 0 } } })), message: [/spec\.metrics\[0\]\.resource\.target\.averageUtilization/] },
  { what: "a target value that is not a quantity", obj: fhpa("not-quantity", withMetric({ type: "Resource", resource: { name: "cpu", target: { type: "AverageValue", averageValue: "lots" } } })), message: [/spec\.metrics\[0\]\.resource\.target\.averageValue/] },
  { what: "a container name that is no DNS label", obj: fhpa("container", withMetric({ type: "ContainerResource", containerResource: { name: "cpu", container: "App_1", target: { type: "Utilization", averageUtilization: 50 } } })), message: [/spec\.metrics\[0\]\.containerResource\.container/] },
  { what: "a stabilization window over an hour", obj: fhpa("window", { scaleTargetRef: deployment, maxReplicas: 3, behavior: { scaleDown: { stabilizationWindowSeconds: 3601 } } }), message: [/spec\.behavior\.scaleDown\.stabilizationWindowSeconds/, /3600/] },
  { what: "an unknown selectPolicy", obj: fhpa("select", { scaleTargetRef: deployment, maxReplicas: 3, behavior: { scaleUp: { selectPolicy: "Average" } } }), message: [/spec\.behavior\.scaleUp\.selectPolicy: Unsupported value/] },
  { what: "an empty policy list", obj: fhpa("no-policies", { scaleTargetRef: deployment, maxReplicas: 3, behavior: { scaleUp: { policies: [] } } }), message: [/spec\.behavior\.scaleUp\.policies/] },
  { what: "a policy period over 30 minutes", obj: fhpa("period", { scaleTargetRef: deployment, maxReplicas: 3, behavior: { scaleUp: { policies: [{ type: "Pods", value: 1, periodSeconds: 1801 }] } } }), message: [/spec\.behavior\.scaleUp\.policies\[0\]\.periodSeconds/, /1800/] },
  { what: "a policy value 0", obj: fhpa("value-0", { scaleTargetRef: deployment, maxReplicas: 3, behavior: { scaleUp: { policies: [{ type: "Percent", value: 0, periodSeconds: 60 }] } } }), message: [/spec\.behavior\.scaleUp\.policies\[0\]\.value/] },
  { what: "a CronFederatedHPA without rules", obj: cronFhpa("no-rules", { scaleTargetRef: deployment }), message: [/spec\.rules: Required value/] },
  { what: "a rule without schedule", obj: cronFhpa("no-schedule", onDeployment({ name: "r", targetReplicas: 1 })), message: [/spec\.rules\[0\]\.schedule: Required value/] },
  { what: "a rule name over 32 characters", obj: cronFhpa("long-name", onDeployment(rule({ name: "r".repeat(33) }))), message: [/spec\.rules\[0\]\.name/, /32/] },
  { what: "two rules of one name", obj: cronFhpa("duplicate", onDeployment(rule({}), rule({ schedule: "@daily" }))), message: [/spec\.rules\[1\]: Duplicate value/] },
  { what: "a workload's rule without targetReplicas", obj: cronFhpa("no-target", onDeployment({ name: "r", schedule: "@daily", targetMaxReplicas: 3 })), message: [/spec\.rules/, /a rule that scales a workload needs targetReplicas/] },
  { what: "a FederatedHPA's rule without targetMin/MaxReplicas", obj: cronFhpa("fhpa-no-bounds", { scaleTargetRef: fhpaTarget, rules: [rule({})] }), message: [/spec\.rules/, /needs targetMinReplicas or targetMaxReplicas/] },
  { what: "a flotilla.dev target that is not a FederatedHPA", obj: cronFhpa("bad-kind", { scaleTargetRef: { ...fhpaTarget, kind: "PropagationPolicy" }, rules: [rule({ targetMaxReplicas: 3 })] }), message: [/spec\.scaleTargetRef\.kind/, /only FederatedHPA is supported/] },
  { what: "targetMinReplicas above targetMaxReplicas", obj: cronFhpa("min-above-max", { scaleTargetRef: fhpaTarget, rules: [rule({ targetMinReplicas: 5, targetMaxReplicas: 4 })] }), message: [/spec\.rules\[0\]\.targetMinReplicas/, /larger than or equal to targetMinReplicas/] },
  { what: "a negative targetReplicas", obj: cronFhpa("negative", onDeployment(rule({ targetReplicas: -1 }))), message: [/spec\.rules\[0\]\.targetReplicas/] },
  { what: "a successfulHistoryLimit of 0", obj: cronFhpa("history-0", onDeployment(rule({ successfulHistoryLimit: 0 }))), message: [/spec\.rules\[0\]\.successfulHistoryLimit/] },
  { what: "a failedHistoryLimit over 32", obj: cronFhpa("history-33", onDeployment(rule({ failedHistoryLimit: 33 }))), message: [/spec\.rules\[0\]\.failedHistoryLimit/, /32/] },
];
