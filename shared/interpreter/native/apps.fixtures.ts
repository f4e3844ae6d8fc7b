// Sample apps/v1 objects through every operation, with Flotilla's answers (and, recorded, Karmada's).
import type { KubeObject } from "../../api/types.ts";
import { item, type NativeCase, obj } from "./native.fixtures.ts";

/** A pod spec that asks for much: init containers, limits standing in for requests, overhead, node claims. */
export const richPodSpec = {
  priorityClassName: "high",
  nodeSelector: { zone: "a" },
  tolerations: [{ key: "gpu", operator: "Exists", effect: "NoSchedule" }],
  affinity: {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "disk", operator: "In", values: ["ssd"] }] }] },
    },
  },
  serviceAccountName: "web-sa",
  imagePullSecrets: [{ name: "regcred" }],
  initContainers: [{ name: "init", image: "busybox", resources: { requests: { cpu: "2", memory: "64Mi" } } }],
  containers: [
    {
      name: "app",
      image: "web",
      resources: { requests: { cpu: "500m", memory: "128Mi" }, limits: { "nvidia.com/gpu": "1" } },
      envFrom: [{ configMapRef: { name: "env-cm" } }],
      env: [{ name: "PASS", valueFrom: { secretKeyRef: { name: "db-pass", key: "p" } } }],
      volumeMounts: [{ name: "cfg", mountPath: "/cfg" }],
    },
    { name: "sidecar", image: "proxy", resources: { limits: { cpu: "250m", memory: "1Gi" } } },
  ],
  ephemeralContainers: [{ name: "debug", image: "busybox", env: [{ name: "X", valueFrom: { configMapKeyRef: { name: "debug-cm", key: "x" } } }] }],
  overhead: { cpu: "100m" },
  volumes: [
    { name: "cfg", configMap: { name: "cfg" } },
    { name: "cfg-again", configMap: { name: "cfg" } },
    { name: "tls", secret: { secretName: "tls" } },
    { name: "data", persistentVolumeClaim: { claimName: "data" } },
    { name: "both", projected: { sources: [{ configMap: { name: "cm2" } }, { secret: { name: "s2" } }, { serviceAccountToken: { path: "t" } }] } },
    { name: "csi", csi: { driver: "x", nodePublishSecretRef: { name: "csi-secret" } } },
  ],
};

/** What one replica of richPodSpec needs: cpu is the init container's 2 plus 100m overhead. */
export const richRequires = {
  nodeClaim: {
    nodeSelector: { zone: "a" },
    tolerations: [{ key: "gpu", operator: "Exists", effect: "NoSchedule" }],
    hardNodeAffinity: { nodeSelectorTerms: [{ matchExpressions: [{ key: "disk", operator: "In", values: ["ssd"] }] }] },
  },
  resourceRequest: { cpu: "2100m", memory: "1152Mi", "nvidia.com/gpu": "1" },
  namespace: "shop",
  priorityClassName: "high",
};

/** The dependencies of richPodSpec in namespace shop: sorted by kind then name, each once. */
export const richDependencies = [
  ["ConfigMap", "cfg"],
  ["ConfigMap", "cm2"],
  ["ConfigMap", "debug-cm"],
  ["ConfigMap", "env-cm"],
  ["PersistentVolumeClaim", "data"],
  ["Secret", "csi-secret"],
  ["Secret", "db-pass"],
  ["Secret", "regcred"],
  ["Secret", "s2"],
  ["Secret", "tls"],
  ["ServiceAccount", "web-sa"],
].map(([kind, name]) => ({ apiVersion: "v1", kind: kind as string, namespace: "shop", name: name as string }));

const meta = (extra: Partial<KubeObject["metadata"]> = {}) => ({ name: "web", namespace: "shop", generation: 3, ...extra });
const template = { metadata: { labels: { app: "web" } }, spec: richPodSpec };

export const deployment = (spec: Record<string, unknown> = {}, status?: Record<string, unknown>, m = meta()) =>
  obj("apps/v1", "Deployment", m, { spec: { replicas: 4, selector: { matchLabels: { app: "web" } }, template, ...spec }, ...(status ? { status } : {}) });
const statefulSet = (spec: Record<string, unknown> = {}, status?: Record<string, unknown>, m = meta()) =>
  obj("apps/v1", "StatefulSet", m, { spec: { replicas: 3, serviceName: "web", template, ...spec }, ...(status ? { status } : {}) });
const replicaSet = (spec: Record<string, unknown> = {}, status?: Record<string, unknown>, m = meta()) =>
  obj("apps/v1", "ReplicaSet", m, { spec: { replicas: 2, template, ...spec }, ...(status ? { status } : {}) });
const daemonSet = (status?: Record<string, unknown>, m = meta()) =>
  obj("apps/v1", "DaemonSet", m, { spec: { template }, ...(status ? { status } : {}) });

/** A member object rendered from template generation `tg`, with its own generation `g`. */
const member = (g: number, tg?: number) => meta({ generation: g, ...(tg === undefined ? {} : { annotations: { "resourcetemplate.karmada.io/generation": String(tg) } }) });

const settled = { observedGeneration: 3, replicas: 4, updatedReplicas: 4, readyReplicas: 4, availableReplicas: 4 };

export const appsCases: NativeCase[] = [
  // ---- Deployment
  { name: "replicas and what each needs", op: "InterpretReplica", object: deployment(), want: { replica: 4, requires: richRequires } },
  {
    name: "no requests and no node claim: no requirements",
    op: "InterpretReplica",
    object: deployment({ replicas: 2, template: { spec: { containers: [{ name: "a", image: "a" }] } } }),
    want: { replica: 2 },
  },
  {
    name: "spec.replicas unset reads as 0",
    op: "InterpretReplica",
    object: deployment({ replicas: undefined, template: { spec: { containers: [{ name: "a", image: "a", resources: { requests: { memory: "1000", cpu: "0.1" } } }] } } }),
    want: { replica: 0, requires: { resourceRequest: { cpu: "100m", memory: "1k" }, namespace: "shop" } },
  },
  { name: "sets spec.replicas", op: "ReviseReplica", object: deployment(), replicas: 1, want: deployment({ replicas: 1 }) },
  {
    name: "leaves a template without spec.replicas alone",
    op: "ReviseReplica",
    object: deployment({ replicas: undefined }),
    replicas: 1,
    want: deployment({ replicas: undefined }),
  },
  {
    name: "keeps the member's replicas under the retain-replicas label",
    op: "Retain",
    object: deployment({}, undefined, meta({ labels: { "resourcetemplate.karmada.io/retain-replicas": "true" } })),
    observed: deployment({ replicas: 7 }),
    want: deployment({ replicas: 7 }, undefined, meta({ labels: { "resourcetemplate.karmada.io/retain-replicas": "true" } })),
  },
  { name: "without the label the desired replicas win", op: "Retain", object: deployment(), observed: deployment({ replicas: 7 }), want: deployment() },
  {
    name: "the label with a member lacking spec.replicas fails",
    op: "Retain",
    object: deployment({}, undefined, meta({ labels: { "resourcetemplate.karmada.io/retain-replicas": "true" } })),
    observed: deployment({ replicas: undefined }),
    want: { error: "failed to get spec.replicas" },
  },
  {
    name: "reflects the counters with the member's and template's generations",
    op: "InterpretStatus",
    object: deployment({}, { ...settled, unavailableReplicas: 1, conditions: [{ type: "Available", status: "True" }], collisionCount: 1 }, member(5, 3)),
    want: { generation: 5, resourceTemplateGeneration: 3, observedGeneration: 3, replicas: 4, updatedReplicas: 4, readyReplicas: 4, availableReplicas: 4, unavailableReplicas: 1 },
  },
  {
    name: "a member without the template-generation annotation reads it as 0",
    op: "InterpretStatus",
    object: deployment({}, settled, member(3)),
    want: { generation: 3, ...settled },
    differs: "Karmada fails on a member without its annotation; Flotilla's renderer does not stamp it yet",
  },
  { name: "an empty status reflects nothing", op: "InterpretStatus", object: deployment({}, {}, member(0, 0)), want: null },
  {
    name: "a malformed template-generation annotation fails",
    op: "InterpretStatus",
    object: deployment({}, settled, meta({ annotations: { "resourcetemplate.karmada.io/generation": "x" } })),
    want: { error: "not an integer" },
  },
  {
    name: "sums counters and raises observedGeneration when every member is current",
    op: "AggregateStatus",
    object: deployment({}, { observedGeneration: 2, conditions: [{ type: "Available", status: "True" }] }),
    items: [
      item("m1", { generation: 4, resourceTemplateGeneration: 3, observedGeneration: 4, replicas: 2, readyReplicas: 2, updatedReplicas: 2, availableReplicas: 2 }),
      item("m2", { generation: 1, resourceTemplateGeneration: 3, observedGeneration: 1, replicas: 2, readyReplicas: 1, updatedReplicas: 2, availableReplicas: 1, unavailableReplicas: 1 }),
    ],
    want: { observedGeneration: 3, conditions: [{ type: "Available", status: "True" }], replicas: 4, updatedReplicas: 4, readyReplicas: 3, availableReplicas: 3, unavailableReplicas: 1 },
  },
  {
    name: "a member rendered from an older template keeps observedGeneration",
    op: "AggregateStatus",
    object: deployment({}, { observedGeneration: 2 }),
    items: [
      item("m1", { generation: 4, resourceTemplateGeneration: 2, observedGeneration: 4, replicas: 2 }),
      item("m2", { generation: 1, resourceTemplateGeneration: 3, observedGeneration: 1, replicas: 2 }),
    ],
    want: { observedGeneration: 2, replicas: 4, updatedReplicas: 0, readyReplicas: 0, availableReplicas: 0, unavailableReplicas: 0 },
  },
  {
    name: "a member not yet reporting keeps observedGeneration",
    op: "AggregateStatus",
    object: deployment({}, { observedGeneration: 2 }),
    items: [item("m1", { generation: 4, resourceTemplateGeneration: 3, observedGeneration: 4, replicas: 2 }), item("m2")],
    want: { observedGeneration: 2, replicas: 2, updatedReplicas: 0, readyReplicas: 0, availableReplicas: 0, unavailableReplicas: 0 },
  },
  { name: "settled", op: "InterpretHealth", object: deployment({}, settled), want: true, word: "Healthy" },
  { name: "generation not observed", op: "InterpretHealth", object: deployment({}, { ...settled, observedGeneration: 2 }), want: false, word: "Progressing" },
  { name: "fewer updated than spec.replicas", op: "InterpretHealth", object: deployment({}, { ...settled, updatedReplicas: 3 }), want: false, word: "Progressing" },
  { name: "updated but not available", op: "InterpretHealth", object: deployment({}, { ...settled, availableReplicas: 3 }), want: false, word: "Progressing" },
  {
    name: "ready counts are not read: settled but not ready is healthy",
    op: "InterpretHealth",
    object: deployment({}, { ...settled, readyReplicas: 1 }),
    want: true,
    word: "Progressing",
  },
  {
    name: "an extra old replica terminating is healthy",
    op: "InterpretHealth",
    object: deployment({}, { ...settled, replicas: 5 }),
    want: true,
    word: "Progressing",
  },
  { name: "the pod template's references", op: "InterpretDependency", object: deployment(), want: richDependencies },

  // ---- StatefulSet
  { name: "replicas and what each needs", op: "InterpretReplica", object: statefulSet(), want: { replica: 3, requires: richRequires } },
  { name: "sets spec.replicas", op: "ReviseReplica", object: statefulSet(), replicas: 2, want: statefulSet({ replicas: 2 }) },
  { name: "no native retain", op: "Retain", object: statefulSet(), observed: statefulSet(), want: { notInterpreted: true } },
  {
    name: "reflects counters without observedGeneration",
    op: "InterpretStatus",
    object: statefulSet({}, { observedGeneration: 3, replicas: 3, readyReplicas: 3, currentReplicas: 3, updatedReplicas: 3, availableReplicas: 3, currentRevision: "r1" }, member(3, 3)),
    want: { generation: 3, resourceTemplateGeneration: 3, availableReplicas: 3, currentReplicas: 3, readyReplicas: 3, replicas: 3, updatedReplicas: 3 },
  },
  {
    name: "sums counters; a member of generation > 0 never raises observedGeneration",
    op: "AggregateStatus",
    object: statefulSet({}, { observedGeneration: 2 }),
    items: [
      item("m1", { generation: 3, resourceTemplateGeneration: 3, replicas: 2, readyReplicas: 2, currentReplicas: 2, updatedReplicas: 2, availableReplicas: 2 }),
      item("m2", { generation: 3, resourceTemplateGeneration: 3, replicas: 1, readyReplicas: 1, currentReplicas: 1, updatedReplicas: 1, availableReplicas: 1 }),
    ],
    want: { observedGeneration: 2, availableReplicas: 3, currentReplicas: 3, readyReplicas: 3, replicas: 3, updatedReplicas: 3 },
  },
  {
    name: "settled",
    op: "InterpretHealth",
    object: statefulSet({}, { observedGeneration: 3, replicas: 3, readyReplicas: 3, currentReplicas: 3, updatedReplicas: 3, availableReplicas: 3 }),
    want: true,
    word: "Healthy",
  },
  {
    name: "a partitioned rollout (updated below replicas) is unhealthy",
    op: "InterpretHealth",
    object: statefulSet(
      { updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 2 } } },
      { observedGeneration: 3, replicas: 3, readyReplicas: 3, currentReplicas: 2, updatedReplicas: 1, availableReplicas: 3 },
    ),
    want: false,
    word: "Healthy",
  },
  {
    name: "claims of its volumeClaimTemplates are not dependencies",
    op: "InterpretDependency",
    object: statefulSet({ volumeClaimTemplates: [{ metadata: { name: "data" }, spec: {} }] }),
    want: richDependencies.filter((d) => d.kind !== "PersistentVolumeClaim"),
  },

  // ---- ReplicaSet
  { name: "replicas and what each needs", op: "InterpretReplica", object: replicaSet(), want: { replica: 2, requires: richRequires } },
  { name: "sets spec.replicas", op: "ReviseReplica", object: replicaSet(), replicas: 5, want: replicaSet({ replicas: 5 }) },
  {
    name: "reflects replicas, ready, available and observedGeneration",
    op: "InterpretStatus",
    object: replicaSet({}, { observedGeneration: 3, replicas: 2, readyReplicas: 2, availableReplicas: 1, fullyLabeledReplicas: 2 }, member(3, 3)),
    want: { generation: 3, resourceTemplateGeneration: 3, observedGeneration: 3, replicas: 2, readyReplicas: 2, availableReplicas: 1 },
  },
  {
    name: "sums replicas, ready and available",
    op: "AggregateStatus",
    object: replicaSet({}, {}),
    items: [
      item("m1", { generation: 1, resourceTemplateGeneration: 3, observedGeneration: 1, replicas: 1, readyReplicas: 1, availableReplicas: 1 }),
      item("m2", { generation: 1, resourceTemplateGeneration: 3, observedGeneration: 1, replicas: 1, readyReplicas: 0, availableReplicas: 0 }),
    ],
    want: { observedGeneration: 3, replicas: 2, readyReplicas: 1, availableReplicas: 1 },
  },
  { name: "available reaches spec.replicas", op: "InterpretHealth", object: replicaSet({}, { observedGeneration: 3, replicas: 2, readyReplicas: 2, availableReplicas: 2 }), want: true, word: "Healthy" },
  { name: "available below spec.replicas", op: "InterpretHealth", object: replicaSet({}, { observedGeneration: 3, replicas: 2, readyReplicas: 2, availableReplicas: 1 }), want: false, word: "Progressing" },
  {
    name: "a status without observedGeneration is not current",
    op: "InterpretHealth",
    object: replicaSet({}, { replicas: 2, readyReplicas: 2, availableReplicas: 2 }),
    want: false,
    word: "Healthy",
  },
  { name: "the pod template's references", op: "InterpretDependency", object: replicaSet(), want: richDependencies },

  // ---- DaemonSet
  { name: "no replicas: one pod per node", op: "InterpretReplica", object: daemonSet(), want: { notInterpreted: true } },
  { name: "nothing to revise", op: "ReviseReplica", object: daemonSet(), replicas: 2, want: { notInterpreted: true } },
  {
    name: "reflects the scheduling counters",
    op: "InterpretStatus",
    object: daemonSet(
      { observedGeneration: 3, currentNumberScheduled: 2, desiredNumberScheduled: 2, numberAvailable: 2, numberMisscheduled: 0, numberReady: 2, updatedNumberScheduled: 2, numberUnavailable: 0 },
      member(3, 3),
    ),
    want: { generation: 3, resourceTemplateGeneration: 3, observedGeneration: 3, currentNumberScheduled: 2, desiredNumberScheduled: 2, numberAvailable: 2, numberReady: 2, updatedNumberScheduled: 2 },
  },
  {
    name: "sums the scheduling counters",
    op: "AggregateStatus",
    object: daemonSet({ observedGeneration: 1 }),
    items: [
      item("m1", { generation: 2, resourceTemplateGeneration: 3, observedGeneration: 2, currentNumberScheduled: 2, desiredNumberScheduled: 2, numberAvailable: 2, numberReady: 2, updatedNumberScheduled: 2 }),
      item("m2", { generation: 2, resourceTemplateGeneration: 3, observedGeneration: 2, currentNumberScheduled: 3, desiredNumberScheduled: 3, numberAvailable: 1, numberReady: 1, updatedNumberScheduled: 3, numberUnavailable: 2, numberMisscheduled: 1 }),
    ],
    want: { observedGeneration: 3, currentNumberScheduled: 5, desiredNumberScheduled: 5, numberAvailable: 3, numberMisscheduled: 1, numberReady: 3, updatedNumberScheduled: 5, numberUnavailable: 2 },
  },
  {
    name: "every pod updated and available",
    op: "InterpretHealth",
    object: daemonSet({ observedGeneration: 3, desiredNumberScheduled: 2, updatedNumberScheduled: 2, numberAvailable: 2, numberReady: 2 }),
    want: true,
    word: "Healthy",
  },
  {
    name: "an updated pod not yet available",
    op: "InterpretHealth",
    object: daemonSet({ observedGeneration: 3, desiredNumberScheduled: 2, updatedNumberScheduled: 2, numberAvailable: 1, numberReady: 1 }),
    want: false,
    word: "Progressing",
  },
  { name: "the pod template's references", op: "InterpretDependency", object: daemonSet(), want: richDependencies },
];
