// The flotilla.dev CRDs in a real control cluster: what they accept, and that they refuse bad
// input at create time with a message naming the field.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  ApiextensionsV1Api,
  ApiException,
  CustomObjectsApi,
  type KubeConfig,
  type KubernetesObject,
  KubernetesObjectApi,
} from "@kubernetes/client-node";
import { installCrds, loadCrds } from "../control-plane/crd-install/crds.ts";
import { API_VERSION, type KubeObject } from "../shared/api/types.ts";
import { DNS_GROUP } from "../shared/api/dns.ts";
import { CRD_REVISION } from "../control-plane/crd-install/crd-revision.ts";
import { badDns, DNS_NS, kubefedIngressManifest, kubefedServiceManifest, serviceRecordStatus, validDns } from "./dns-crds.fixtures.ts";
import { badRic, everyOperation, karmadaExampleManifest } from "./ric-crds.fixtures.ts";
import { badAutoscaling, cronFhpa, cronStatus, everyField, fhpa, fhpaStatus, karmadaCronManifest, karmadaFhpaManifest } from "./autoscaling-crds.fixtures.ts";
import { badOverrides, validOverrides } from "./override-crds.fixtures.ts";
import { badRebalancers, everyRebalancerField, karmadaRebalancerManifest, rebalancerStatus } from "./rebalancer-crds.fixtures.ts";
import { badTaintPolicies, karmadaTaintPolicyManifest } from "./taint-policy-crds.fixtures.ts";
import { karmadaCronOfFhpaManifest, karmadaGraciouslyManifest, karmadaSpreadManifest } from "./karmada-docs-crds.fixtures.ts";
import { binaryPath, ensureBinaries } from "./env/binaries.ts";
import { type Cluster, startCluster } from "./env/cluster.ts";

const exec = promisify(execFile);
const NS = "default";
const gv = { group: "flotilla.dev", version: "v1alpha1" };

type Obj = Record<string, unknown>;
/** An object as client-node's KubernetesObjectApi takes and returns it. */
type Fixture = KubernetesObject & { spec?: Obj };

function object(kind: string, name: string, spec: Obj | undefined, namespaced: boolean): Fixture {
  return {
    apiVersion: API_VERSION,
    kind,
    metadata: namespaced ? { name, namespace: NS } : { name },
    ...(spec === undefined ? {} : { spec }),
  };
}
const cluster = (name: string, spec?: Obj) => object("Cluster", name, spec, false);
const pp = (name: string, spec: Obj) => object("PropagationPolicy", name, spec, true);
const cpp = (name: string, spec: Obj) => object("ClusterPropagationPolicy", name, spec, false);
const rb = (name: string, spec: Obj) => object("ResourceBinding", name, spec, true);
const crb = (name: string, spec: Obj) => object("ClusterResourceBinding", name, spec, false);
const op = (name: string, spec: Obj) => object("OverridePolicy", name, spec, true);
const cop = (name: string, spec: Obj) => object("ClusterOverridePolicy", name, spec, false);

const deploymentSelector = { apiVersion: "apps/v1", kind: "Deployment" };
/** A valid policy spec with one label-selector requirement swapped in. */
const withRequirement = (req: Obj) => ({
  resourceSelectors: [{ ...deploymentSelector, labelSelector: { matchExpressions: [req] } }],
});
const withFieldRequirement = (req: Obj) => ({
  resourceSelectors: [deploymentSelector],
  placement: { clusterAffinity: { fieldSelector: { matchExpressions: [req] } } },
});
const deployRef = { apiVersion: "apps/v1", kind: "Deployment", namespace: NS, name: "web" };

/** Every Karmada placement field, to check none is pruned. */
const fullPlacement = {
  clusterAffinity: {
    clusterNames: ["member1", "member2"],
    exclude: ["member3"],
    labelSelector: {
      matchLabels: { env: "prod" },
      matchExpressions: [
        { key: "tier", operator: "In", values: ["gold", "silver"] },
        { key: "legacy", operator: "DoesNotExist" },
        { key: "gpus", operator: "Gt", values: ["3"] },
        { key: "cost", operator: "Lt", values: ["-10"] },
      ],
    },
    fieldSelector: {
      matchExpressions: [
        { key: "region", operator: "In", values: ["eu-west-1"] },
        { key: "provider", operator: "NotIn", values: ["onprem"] },
      ],
    },
  },
  clusterTolerations: [
    { key: "maintenance", operator: "Exists", effect: "NoExecute", tolerationSeconds: 60 },
    { key: "dedicated", operator: "Equal", value: "ml", effect: "NoSchedule" },
  ],
  spreadConstraints: [
    { spreadByField: "region", maxGroups: 2, minGroups: 1 },
    { spreadByLabel: "rack", maxGroups: 3 },
  ],
  replicaScheduling: {
    replicaSchedulingType: "Divided",
    replicaDivisionPreference: "Weighted",
    weightPreference: {
      staticWeightList: [
        { targetCluster: { clusterNames: ["member1"] }, weight: 2, minReplicas: 1, maxReplicas: 5 },
        { targetCluster: {}, weight: 0 },
      ],
    },
  },
};

const fullPolicySpec = {
  resourceSelectors: [
    { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
    { apiVersion: "v1", kind: "ConfigMap", labelSelector: { matchLabels: { app: "web" } } },
  ],
  placement: fullPlacement,
  priority: 10,
  conflictResolution: "Overwrite",
  failover: {
    application: { decisionConditions: { tolerationSeconds: 120 }, purgeMode: "Gracefully", gracePeriodSeconds: 300, statePreservation: { rules: [{ aliasLabelName: "example.com/checkpoint", jsonPath: "{.checkpoint.id}" }] } },
    cluster: { purgeMode: "Directly", statePreservation: { rules: [{ aliasLabelName: "replicas", jsonPath: "{.replicas}" }] } },
  },
  propagateDeps: true,
  suspension: { dispatching: false, dispatchingOnClusters: { clusterNames: ["member2"] } },
  preserveResourcesOnDeletion: true,
  rollout: fullRollout(),
};

/** A progressive rollout with every field (issue 23). */
function fullRollout() {
  return {
    groups: [
      { name: "canary", clusterNames: ["member1"], approval: "AfterGroup" },
      { name: "eu", clusterSelector: { matchLabels: { region: "eu" }, matchExpressions: [{ key: "tier", operator: "In", values: ["prod"] }] }, maxConcurrency: "50%", approval: "BeforeGroup" },
      { name: "us", clusterNames: ["member2", "member3"], maxConcurrency: 1, approval: "None" },
    ],
    minSuccessTime: "1m30s",
    progressDeadline: "10m",
    maxFailures: "10%",
    maxUnavailable: 2,
    onFailure: "Rollback",
  };
}

/** Every overrider, each with every field (and plaintext values of every JSON type). */
const fullOverriders = {
  plaintext: [
    { path: "/spec/replicas", operator: "replace", value: 5 },
    { path: "/metadata/labels/tier", operator: "add", value: "gold" },
    { path: "/spec/template/spec/nodeSelector", operator: "add", value: { disk: "ssd", zone: "a" } },
    { path: "/spec/template/spec/containers/0/ports", operator: "replace", value: [{ containerPort: 8080 }] },
    { path: "/spec/paused", value: true },
    // null is kept (nullable), not pruned to a missing value.
    { path: "/spec/template/spec/affinity", operator: "replace", value: null },
    { path: "/metadata/annotations/a~1b", operator: "remove" },
    // Karmada ignores a remove's value: allowed.
    { path: "/spec/template/spec/tolerations/0", operator: "remove", value: "ignored" },
  ],
  imageOverrider: [
    { component: "Registry", operator: "replace", value: "registry.example.com:5000" },
    {
      predicate: { path: "/spec/template/spec/initContainers/0/image" },
      component: "Repository",
      operator: "add",
      value: "mirror",
    },
    { component: "Tag", operator: "remove" },
  ],
  labelsOverrider: [
    { operator: "add", value: { tier: "gold", "flotilla.dev/member": "eu" } },
    { operator: "remove", value: { legacy: "" } },
  ],
  annotationsOverrider: [{ operator: "replace", value: { "example.com/note": "a long annotation value ".repeat(8) } }],
  commandOverrider: [
    { containerName: "web", operator: "add", value: ["--verbose", "--region=eu"] },
    { containerName: "sidecar", operator: "remove", value: ["--debug"] },
  ],
  argsOverrider: [
    { containerName: "web", operator: "remove", value: ["--dev"] },
    { containerName: "web", operator: "add" },
  ],
};

const fullOverrideSpec = {
  resourceSelectors: [
    { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
    { apiVersion: "v1", kind: "ConfigMap", labelSelector: { matchLabels: { app: "web" } } },
  ],
  overrideRules: [
    { targetCluster: fullPlacement.clusterAffinity, overriders: fullOverriders },
    {
      targetCluster: { clusterNames: ["member2"] },
      overriders: { labelsOverrider: [{ operator: "add", value: { a: "b" } }] },
    },
    { overriders: { plaintext: [{ path: "/spec/replicas", operator: "replace", value: 1 }], imageOverrider: [] } },
  ],
};
/** An override policy spec with one overrider list swapped in, and no resourceSelectors. */
const withOverriders = (overriders: Obj) => ({ overrideRules: [{ overriders }] });

/** Objects the CRDs accept; each must come back with every field it was sent. */
const valid: Fixture[] = [
  cluster("member1"),
  cluster("eu-west-1a", {
    provider: "aws",
    region: "eu-west-1",
    zone: "eu-west-1a",
    taints: [
      { key: "maintenance", effect: "NoExecute", timeAdded: "2026-01-02T03:04:05Z" },
      { key: "dedicated", value: "ml", effect: "PreferNoSchedule" },
    ],
  }),
  pp("minimal", { resourceSelectors: [deploymentSelector] }),
  pp("full", fullPolicySpec),
  // Karmada's user guides name the policy's own namespace in its selectors.
  pp("own-ns", { resourceSelectors: [{ ...deploymentSelector, namespace: NS }] }),
  op("own-ns", { resourceSelectors: [{ ...deploymentSelector, namespace: NS }], ...withOverriders({ plaintext: [{ path: "/spec/replicas", operator: "replace", value: 2 }] }) }),
  pp("karmada-v119", {
    resourceSelectors: [deploymentSelector],
    association: true,
    dependentOverrides: ["web-overrides"],
    schedulerName: "default-scheduler",
    activationPreference: "Lazy",
    schedulePriority: { priorityClassSource: "KubePriorityClass", priorityClassName: "high" },
    placement: {
      clusterAffinities: [{ affinityName: "primary", clusterNames: ["member1"], overflowAffinities: [{ affinityName: "burst", labelSelector: { matchLabels: { burst: "yes" } }, exclude: ["member2"] }] }],
      replicaScheduling: { replicaSchedulingType: "Divided", replicaDivisionPreference: "Aggregated" },
      workloadAffinity: { affinity: { groupByLabelKey: "app.example.com/group" }, antiAffinity: { groupByLabelKey: "tier" } },
    },
  }),
  cpp("minimal", { resourceSelectors: [{ apiVersion: "v1", kind: "Namespace" }] }),
  cpp("full", {
    ...fullPolicySpec,
    resourceSelectors: [...fullPolicySpec.resourceSelectors, { apiVersion: "v1", kind: "Secret", namespace: "team-a" }],
  }),
  cpp("dynamic", {
    resourceSelectors: [deploymentSelector],
    placement: {
      clusterAffinities: [
        { affinityName: "primary", clusterNames: ["member1"] },
        { affinityName: "backup", labelSelector: { matchLabels: { role: "backup" } } },
      ],
      replicaScheduling: {
        replicaSchedulingType: "Divided",
        replicaDivisionPreference: "Weighted",
        weightPreference: { dynamicWeight: "AvailableReplicas" },
      },
    },
  }),
  rb("web-deployment", {
    resource: { ...deployRef, uid: "1f7e0d8c-0000-4000-8000-000000000001", resourceVersion: "42" },
    replicas: 3,
    clusters: [{ name: "member1", replicas: 2 }, { name: "member2", replicas: 1 }],
    placement: fullPlacement,
    conflictResolution: "Abort",
    rescheduleTriggeredAt: "2026-11-24T12:00:00Z",
    gracefulEvictionTasks: [{ fromCluster: "member3", replicas: 2, reason: "FreshReschedule", creationTimestamp: "2026-11-24T12:00:01Z" }],
    rollout: fullRollout(),
  }),
  rb("conf-configmap", {
    resource: { apiVersion: "v1", kind: "ConfigMap", namespace: NS, name: "conf" },
    clusters: [{ name: "member1" }, { name: "member2" }],
    conflictResolution: "Abort",
    requiredBy: [
      { name: "web-deployment", clusters: ["member1"], resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: NS, name: "web" } },
      { name: "api-deployment", clusters: ["member1", "member2"] },
    ],
  }),
  crb("ns-team-a", {
    resource: { apiVersion: "v1", kind: "Namespace", name: "team-a" },
    clusters: [{ name: "member1" }],
    propagateDeps: true,
    preserveResourcesOnDeletion: true,
  }),
  op("minimal", withOverriders({ plaintext: [{ path: "/spec/replicas", value: 2 }] })),
  op("full", fullOverrideSpec),
  cop("minimal", withOverriders({ argsOverrider: [{ containerName: "web", operator: "add", value: ["-v"] }] })),
  cop("full", {
    ...fullOverrideSpec,
    resourceSelectors: [
      ...fullOverrideSpec.resourceSelectors,
      { apiVersion: "v1", kind: "Secret", namespace: "team-a" },
    ],
  }),
];

interface BadCase {
  what: string;
  obj: Fixture;
  /** Every pattern must match the apiserver's message. */
  message: RegExp[];
}

const bad: BadCase[] = [
  // resource selectors
  {
    what: "a policy without resourceSelectors",
    obj: pp("no-selectors", {}),
    message: [/spec\.resourceSelectors: Required value/],
  },
  {
    what: "a policy with an empty resourceSelectors",
    obj: cpp("empty-selectors", { resourceSelectors: [] }),
    message: [/spec\.resourceSelectors/, /at least 1 items/],
  },
  {
    what: "a resourceSelector without kind",
    obj: pp("no-kind", { resourceSelectors: [{ apiVersion: "v1" }] }),
    message: [/spec\.resourceSelectors\[0\]\.kind: Required value/],
  },
  {
    what: "a resourceSelector with an empty apiVersion",
    obj: cpp("empty-apiversion", { resourceSelectors: [{ apiVersion: "", kind: "ConfigMap" }] }),
    message: [/spec\.resourceSelectors\[0\]\.apiVersion/],
  },
  // Karmada v1.19's fields (issue 26)
  {
    what: "overflowAffinities without dynamic division",
    obj: pp("overflow-static", { resourceSelectors: [deploymentSelector], placement: { clusterAffinities: [{ affinityName: "a", clusterNames: ["member1"], overflowAffinities: [{ affinityName: "b" }] }] } }),
    message: [/overflowAffinities can only be used together with dynamic weight or aggregated scheduling/],
  },
  {
    what: "workloadAffinity with the same groupByLabelKey twice",
    obj: pp("same-key", { resourceSelectors: [deploymentSelector], placement: { workloadAffinity: { affinity: { groupByLabelKey: "app" }, antiAffinity: { groupByLabelKey: "app" } } } }),
    message: [/spec\.placement\.workloadAffinity/, /must not use the same groupByLabelKey/],
  },
  {
    what: "a groupByLabelKey that is no label key",
    obj: cpp("bad-key", { resourceSelectors: [deploymentSelector], placement: { workloadAffinity: { antiAffinity: { groupByLabelKey: "not a key!" } } } }),
    message: [/spec\.placement\.workloadAffinity\.antiAffinity\.groupByLabelKey/, /label key/],
  },
  {
    what: "an activationPreference other than Lazy",
    obj: pp("eager", { resourceSelectors: [deploymentSelector], activationPreference: "Eager" }),
    message: [/spec\.activationPreference: Unsupported value: "Eager"/],
  },
  {
    what: "a schedulePriority from an unknown source",
    obj: pp("pod-priority", { resourceSelectors: [deploymentSelector], schedulePriority: { priorityClassSource: "PodPriorityClass", priorityClassName: "high" } }),
    message: [/spec\.schedulePriority\.priorityClassSource: Unsupported value: "PodPriorityClass"/],
  },
  // conflictResolution, priority
  {
    what: "an unknown conflictResolution",
    obj: pp("conflict", { resourceSelectors: [deploymentSelector], conflictResolution: "Merge" }),
    message: [/spec\.conflictResolution: Unsupported value: "Merge"/, /"Abort", "Overwrite"/],
  },
  // failover (issue 26)
  {
    what: "gracePeriodSeconds with purgeMode Directly",
    obj: pp("failover-grace", { resourceSelectors: [deploymentSelector], failover: { application: { decisionConditions: {}, purgeMode: "Directly", gracePeriodSeconds: 30 } } }),
    message: [/spec\.failover\.application\.gracePeriodSeconds/, /only takes effect when purgeMode is Gracefully/],
  },
  {
    what: "a purge mode no Karmada version knows",
    obj: pp("failover-purge", { resourceSelectors: [deploymentSelector], failover: { application: { decisionConditions: {}, purgeMode: "Instantly" } } }),
    message: [/spec\.failover\.application\.purgeMode: Unsupported value: "Instantly"/, /"Directly", "Gracefully", "Never", "Immediately", "Graciously"/],
  },
  {
    what: "a negative tolerationSeconds",
    obj: cpp("failover-toleration", { resourceSelectors: [deploymentSelector], failover: { application: { decisionConditions: { tolerationSeconds: -1 } } } }),
    message: [/spec\.failover\.application\.decisionConditions\.tolerationSeconds/, /greater than or equal to 0/],
  },
  {
    what: "application failover without decisionConditions",
    obj: pp("failover-conditions", { resourceSelectors: [deploymentSelector], failover: { application: { purgeMode: "Never" } } }),
    message: [/spec\.failover\.application\.decisionConditions: Required value/],
  },
  {
    what: "a statePreservation aliasLabelName that is no label name",
    obj: pp("failover-alias", { resourceSelectors: [deploymentSelector], failover: { cluster: { statePreservation: { rules: [{ aliasLabelName: "not a label", jsonPath: "{.replicas}" }] } } } }),
    message: [/spec\.failover\.cluster\.statePreservation\.rules\[0\]\.aliasLabelName/],
  },
  {
    what: "a priority that is not an integer",
    obj: cpp("priority", { resourceSelectors: [deploymentSelector], priority: "high" }),
    message: [/spec\.priority/, /integer/],
  },
  // label selectors
  {
    what: "an unknown label selector operator",
    obj: pp("op", withRequirement({ key: "tier", operator: "Near", values: ["x"] })),
    message: [
      /spec\.resourceSelectors\[0\]\.labelSelector\.matchExpressions\[0\]\.operator: Unsupported value: "Near"/,
    ],
  },
  {
    what: "In without values",
    obj: pp("in-empty", withRequirement({ key: "tier", operator: "In" })),
    message: [/matchExpressions\[0\]\.values/, /In and NotIn need at least one value/],
  },
  {
    what: "NotIn with an empty values list",
    obj: cpp("notin-empty", withRequirement({ key: "tier", operator: "NotIn", values: [] })),
    message: [/matchExpressions\[0\]\.values/, /In and NotIn/],
  },
  {
    what: "Exists with values",
    obj: pp("exists-values", withRequirement({ key: "tier", operator: "Exists", values: ["gold"] })),
    message: [/matchExpressions\[0\]\.values/, /Exists and DoesNotExist take no values/],
  },
  {
    what: "Gt with a value that is not an integer",
    obj: pp("gt-text", withRequirement({ key: "gpus", operator: "Gt", values: ["many"] })),
    message: [/matchExpressions\[0\]\.values/, /Gt and Lt take exactly one value, an integer/],
  },
  {
    what: "Lt with two values",
    obj: cpp("lt-two", withRequirement({ key: "gpus", operator: "Lt", values: ["1", "2"] })),
    message: [/matchExpressions\[0\]\.values/, /Gt and Lt/],
  },
  {
    what: "Gt without a value",
    obj: pp("gt-none", withRequirement({ key: "gpus", operator: "Gt" })),
    message: [/Gt and Lt/],
  },
  {
    what: "a cluster label selector with a bad Gt (the rule holds in placement too)",
    obj: cpp("placement-gt", {
      resourceSelectors: [deploymentSelector],
      placement: {
        clusterAffinity: { labelSelector: { matchExpressions: [{ key: "gpus", operator: "Gt", values: ["1.5"] }] } },
      },
    }),
    message: [/spec\.placement\.clusterAffinity\.labelSelector\.matchExpressions\[0\]\.values/, /Gt and Lt/],
  },
  {
    what: "a label selector requirement without key",
    obj: pp("no-key", withRequirement({ operator: "Exists" })),
    message: [/matchExpressions\[0\]\.key: Required value/],
  },
  // clusterAffinities and spreadConstraints
  {
    what: "clusterAffinity and clusterAffinities together",
    obj: pp("both-affinities", { resourceSelectors: [deploymentSelector], placement: { clusterAffinity: {}, clusterAffinities: [{ affinityName: "a" }] } }),
    message: [/set clusterAffinity or clusterAffinities, not both/],
  },
  {
    what: "two cluster groups with the same name",
    obj: cpp("dup-groups", { resourceSelectors: [deploymentSelector], placement: { clusterAffinities: [{ affinityName: "a" }, { affinityName: "a" }] } }),
    message: [/spec\.placement\.clusterAffinities\[1\]: Duplicate value/],
  },
  {
    what: "a spread constraint by field and label at once",
    obj: pp("spread-both", { resourceSelectors: [deploymentSelector], placement: { spreadConstraints: [{ spreadByField: "region", spreadByLabel: "rack" }] } }),
    message: [/set at most one of spreadByField and spreadByLabel/],
  },
  {
    what: "a spread constraint with minGroups above maxGroups",
    obj: pp("spread-min-max", { resourceSelectors: [deploymentSelector], placement: { spreadConstraints: [{ spreadByField: "region", minGroups: 3, maxGroups: 2 }] } }),
    message: [/spreadConstraints\[0\]\.minGroups/, /minGroups must not exceed maxGroups/],
  },
  {
    what: "a negative maxGroups",
    obj: cpp("spread-negative", { resourceSelectors: [deploymentSelector], placement: { spreadConstraints: [{ spreadByField: "cluster", maxGroups: -1 }] } }),
    message: [/spreadConstraints\[0\]\.maxGroups: Invalid value: -1/],
  },
  // field selectors
  {
    what: "a fieldSelector on an unknown field",
    obj: pp("field-key", withFieldRequirement({ key: "country", operator: "In", values: ["fr"] })),
    message: [
      /spec\.placement\.clusterAffinity\.fieldSelector\.matchExpressions\[0\]\.key: Unsupported value: "country"/,
    ],
  },
  {
    what: "a fieldSelector with operator Exists",
    obj: cpp("field-op", withFieldRequirement({ key: "region", operator: "Exists", values: ["x"] })),
    message: [/fieldSelector\.matchExpressions\[0\]\.operator: Unsupported value: "Exists"/],
  },
  {
    what: "a fieldSelector without values",
    obj: pp("field-values", withFieldRequirement({ key: "zone", operator: "NotIn", values: [] })),
    message: [/fieldSelector\.matchExpressions\[0\]\.values/, /at least 1 items/],
  },
  // Karmada extras keep their enums
  {
    what: "an unknown replicaSchedulingType",
    obj: cpp("rs-type", {
      resourceSelectors: [deploymentSelector],
      placement: { replicaScheduling: { replicaSchedulingType: "Split" } },
    }),
    message: [/spec\.placement\.replicaScheduling\.replicaSchedulingType: Unsupported value/],
  },
  // override policies
  {
    what: "a plaintext path without a leading /",
    obj: op("relative-path", withOverriders({ plaintext: [{ path: "spec/replicas", value: 1 }] })),
    message: [
      /spec\.overrideRules\[0\]\.overriders\.plaintext\[0\]\.path/,
      /plaintext path must be a JSON pointer starting with "\/"/,
    ],
  },
  ...["/apiVersion", "/kind", "/metadata", "/metadata/name", "/metadata/namespace"].map((path, i) => ({
    what: `a plaintext path ${path} (an override may not change what the object is)`,
    obj: (i % 2 === 0 ? op : cop)(`identity-${i}`, withOverriders({ plaintext: [{ path: "/spec/replicas", value: 1 }, { path, operator: "replace", value: "x" }] })),
    message: [/spec\.overrideRules\[0\]\.overriders\.plaintext\[1\]\.path/, /plaintext path may not change the object's apiVersion, kind, metadata\.name or metadata\.namespace/],
  })),
  {
    what: "an image predicate path at metadata.name",
    obj: cop("predicate-name", withOverriders({ imageOverrider: [{ predicate: { path: "/metadata/name" }, component: "Registry", operator: "replace", value: "m.io" }] })),
    message: [/imageOverrider\[0\]\.predicate\.path/, /predicate path may not point at the object's apiVersion, kind, metadata\.name or metadata\.namespace/],
  },
  {
    what: "a plaintext overrider without path",
    obj: cop("no-path", withOverriders({ plaintext: [{ operator: "remove" }] })),
    message: [/spec\.overrideRules\[0\]\.overriders\.plaintext\[0\]\.path: Required value/],
  },
  {
    what: "an unknown plaintext operator",
    obj: op("plaintext-op", withOverriders({ plaintext: [{ path: "/spec/replicas", operator: "merge", value: 1 }] })),
    message: [/spec\.overrideRules\[0\]\.overriders\.plaintext\[0\]\.operator: Unsupported value: "merge"/],
  },
  {
    what: "an unknown image component",
    obj: cop("image-component", withOverriders({ imageOverrider: [{ component: "Digest", operator: "remove" }] })),
    message: [/spec\.overrideRules\[0\]\.overriders\.imageOverrider\[0\]\.component: Unsupported value: "Digest"/],
  },
  {
    what: "an imageOverrider without component",
    obj: op("image-no-component", withOverriders({ imageOverrider: [{ operator: "replace", value: "v2" }] })),
    message: [/spec\.overrideRules\[0\]\.overriders\.imageOverrider\[0\]\.component: Required value/],
  },
  {
    what: "an unknown image operator",
    obj: op("image-op", withOverriders({ imageOverrider: [{ component: "Tag", operator: "set", value: "v2" }] })),
    message: [/spec\.overrideRules\[0\]\.overriders\.imageOverrider\[0\]\.operator: Unsupported value: "set"/],
  },
  {
    what: "an image replace without value",
    obj: cop("image-no-value", withOverriders({ imageOverrider: [{ component: "Tag", operator: "replace" }] })),
    message: [
      /spec\.overrideRules\[0\]\.overriders\.imageOverrider\[0\]\.value/,
      /non-empty for operators add and replace/,
    ],
  },
  {
    what: "an image predicate path without a leading /",
    obj: op(
      "predicate-path",
      withOverriders({
        imageOverrider: [{ predicate: { path: "spec/containers/0/image" }, component: "Tag", operator: "remove" }],
      }),
    ),
    message: [/imageOverrider\[0\]\.predicate\.path/, /predicate path must be a JSON pointer starting with "\/"/],
  },
  {
    what: "an unknown labelsOverrider operator",
    obj: cop("labels-op", withOverriders({ labelsOverrider: [{ operator: "merge", value: { a: "b" } }] })),
    message: [/spec\.overrideRules\[0\]\.overriders\.labelsOverrider\[0\]\.operator: Unsupported value: "merge"/],
  },
  {
    what: "an annotationsOverrider value that is not a string",
    obj: op("annotation-value", withOverriders({ annotationsOverrider: [{ operator: "add", value: { n: 3 } }] })),
    message: [/spec\.overrideRules\[0\]\.overriders\.annotationsOverrider\[0\]\.value\.n/, /string/],
  },
  {
    what: "a commandOverrider without containerName",
    obj: op("no-container", withOverriders({ commandOverrider: [{ operator: "add", value: ["-v"] }] })),
    message: [/spec\.overrideRules\[0\]\.overriders\.commandOverrider\[0\]\.containerName: Required value/],
  },
  {
    what: "an argsOverrider with operator replace (only add and remove)",
    obj: cop("args-replace", withOverriders({ argsOverrider: [{ containerName: "web", operator: "replace" }] })),
    message: [/spec\.overrideRules\[0\]\.overriders\.argsOverrider\[0\]\.operator: Unsupported value: "replace"/],
  },
  {
    what: "a targetCluster with a bad Gt (the label selector rules hold there too)",
    obj: cop("target-gt", {
      overrideRules: [
        {
          targetCluster: { labelSelector: { matchExpressions: [{ key: "gpus", operator: "Gt", values: ["x"] }] } },
          overriders: { plaintext: [{ path: "/spec/replicas", value: 1 }] },
        },
      ],
    }),
    message: [/spec\.overrideRules\[0\]\.targetCluster\.labelSelector\.matchExpressions\[0\]\.values/, /Gt and Lt/],
  },
  {
    what: "a targetCluster fieldSelector on an unknown field",
    obj: op("target-field", {
      overrideRules: [
        {
          targetCluster: { fieldSelector: { matchExpressions: [{ key: "country", operator: "In", values: ["fr"] }] } },
          overriders: { plaintext: [{ path: "/spec/replicas", value: 1 }] },
        },
      ],
    }),
    message: [/spec\.overrideRules\[0\]\.targetCluster\.fieldSelector\.matchExpressions\[0\]\.key: Unsupported value/],
  },
  // Cluster
  {
    what: "a Cluster named like a DNS subdomain, not a label",
    obj: cluster("eu.west"),
    message: [/metadata\.name/, /DNS-1123 label/],
  },
  {
    what: "a Cluster name longer than 63 characters",
    obj: cluster("c".repeat(64)),
    message: [/metadata\.name/, /at most 63 characters/],
  },
  {
    what: "a taint with an unknown effect",
    obj: cluster("bad-effect", { taints: [{ key: "k", effect: "Sometimes" }] }),
    message: [/spec\.taints\[0\]\.effect: Unsupported value: "Sometimes"/],
  },
  {
    what: "a taint without key",
    obj: cluster("no-taint-key", { taints: [{ effect: "NoSchedule" }] }),
    message: [/spec\.taints\[0\]\.key: Required value/],
  },
  // bindings
  {
    what: "a binding without resource",
    obj: rb("no-resource", { clusters: [] }),
    message: [/spec\.resource: Required value/],
  },
  {
    what: "a binding resource without name",
    obj: rb("no-resource-name", { resource: { apiVersion: "apps/v1", kind: "Deployment" } }),
    message: [/spec\.resource\.name: Required value/],
  },
  {
    what: "a binding resource without apiVersion",
    obj: crb("no-resource-apiversion", { resource: { kind: "Namespace", name: "x" } }),
    message: [/spec\.resource\.apiVersion: Required value/],
  },
  {
    what: "a target cluster without name",
    obj: rb("no-cluster-name", { resource: deployRef, clusters: [{ replicas: 1 }] }),
    message: [/spec\.clusters\[0\]\.name: Required value/],
  },
  {
    what: "negative replicas for a target cluster",
    obj: crb("negative-cluster-replicas", { resource: deployRef, clusters: [{ name: "member1", replicas: -1 }] }),
    message: [/spec\.clusters\[0\]\.replicas/, /greater than or equal to 0/],
  },
  {
    what: "negative binding replicas",
    obj: rb("negative-replicas", { resource: deployRef, replicas: -2 }),
    message: [/spec\.replicas/, /greater than or equal to 0/],
  },
  {
    what: "a target cluster listed twice",
    obj: rb("duplicate-cluster", { resource: deployRef, clusters: [{ name: "member1" }, { name: "member1" }] }),
    message: [/spec\.clusters\[1\]: Duplicate value/],
  },  // progressive rollout (issue 23)
  {
    what: "a rollout with both groups and clustersPerGroup",
    obj: pp("rollout-both", { resourceSelectors: [deploymentSelector], rollout: { groups: [{ name: "a", clusterNames: ["member1"] }], clustersPerGroup: 2 } }),
    message: [/spec\.rollout/, /groups or clustersPerGroup, not both/],
  },
  {
    what: "a rollout percentage over 100%",
    obj: cpp("rollout-percent", { resourceSelectors: [deploymentSelector], rollout: { maxFailures: "150%" } }),
    message: [/spec\.rollout\.maxFailures/],
  },
  {
    what: "a rollout duration that is not one",
    obj: pp("rollout-duration", { resourceSelectors: [deploymentSelector], rollout: { minSuccessTime: "ten minutes" } }),
    message: [/spec\.rollout\.minSuccessTime/],
  },
  {
    what: "a rollout group listed twice",
    obj: pp("rollout-twice", { resourceSelectors: [deploymentSelector], rollout: { groups: [{ name: "a" }, { name: "a" }] } }),
    message: [/spec\.rollout\.groups\[1\]: Duplicate value/],
  },
  {
    what: "an unknown onFailure",
    obj: pp("rollout-onfailure", { resourceSelectors: [deploymentSelector], rollout: { onFailure: "Explode" } }),
    message: [/spec\.rollout\.onFailure/, /Unsupported value/],
  },
];

const condition = (type: string, status: string) => ({
  type,
  status,
  reason: status === "True" ? "AsDesired" : "CheckClusters",
  message: "",
  lastTransitionTime: "2026-01-02T03:04:05Z",
});

const clusterStatus = {
  conditions: [condition("Ready", "True")],
  kubernetesVersion: "v1.36.3",
  agentVersion: "0.1.0",
  apiEnablements: [{ groupVersion: "v1" }, { groupVersion: "apps/v1" }],
  nodeSummary: { totalNum: 2, readyNum: 2 },
  resourceSummary: { allocatable: { cpu: "32", memory: "128Gi", pods: "220" }, allocated: { cpu: "1500m" } },
  lastHeartbeatTime: "2026-01-02T03:04:05Z",
};

const bindingStatus = {
  conditions: [condition("Scheduled", "True"), condition("FullyApplied", "False")],
  aggregatedStatus: [
    {
      clusterName: "member1",
      applied: true,
      health: "Healthy",
      reason: "",
      observedHash: "sha256:abc",
      status: { replicas: 2, readyReplicas: 2, conditions: [{ type: "Available", status: "True" }] },
    },
    {
      clusterName: "member2",
      applied: false,
      health: "Unknown",
      reason: "ClusterNotReady",
      message: "cluster member2 is not ready",
    },
  ],
  schedulerObservedGeneration: 1,
  rollout: {
    revision: "b2c3",
    stableRevision: "a1b2",
    phase: "WaitingForApproval",
    acceptedFailures: 1,
    message: "group canary is done: approve it to go on",
    approvals: ["BeforeGroup/canary"],
    waitingFor: "AfterGroup/canary",
    paused: false,
    clusters: [
      { name: "member1", revision: "b2c3", phase: "Succeeded", since: "2026-11-24T12:00:00Z", updatedAt: "2026-11-24T11:59:00Z" },
      { name: "member2", revision: "a1b2", phase: "Failed", since: "2026-11-24T12:00:00Z", message: "UpdateFailed: denied" },
    ],
  },
};

interface BadStatus {
  what: string;
  target: "cluster" | "binding";
  status: Obj;
  message: RegExp[];
}

const badStatus: BadStatus[] = [
  {
    what: "two conditions of one type",
    target: "cluster",
    status: { conditions: [condition("Ready", "True"), condition("Ready", "False")] },
    message: [/status\.conditions\[1\]: Duplicate value/],
  },
  {
    what: "a condition status other than True, False, Unknown",
    target: "cluster",
    status: { conditions: [condition("Ready", "Maybe")] },
    message: [/status\.conditions\[0\]\.status: Unsupported value: "Maybe"/],
  },
  {
    what: "a lastHeartbeatTime that is not a date-time",
    target: "cluster",
    status: { lastHeartbeatTime: "yesterday" },
    message: [/status\.lastHeartbeatTime/, /date-time/],
  },
  {
    what: "a resource quantity that is not a string",
    target: "cluster",
    status: { resourceSummary: { allocatable: { cpu: 4 } } },
    message: [/status\.resourceSummary\.allocatable\.cpu/, /string/],
  },
  {
    what: "an apiEnablement without groupVersion",
    target: "cluster",
    status: { apiEnablements: [{}] },
    message: [/status\.apiEnablements\[0\]\.groupVersion: Required value/],
  },
  {
    what: "two aggregatedStatus entries for one cluster",
    target: "binding",
    status: { aggregatedStatus: [{ clusterName: "member1" }, { clusterName: "member1", applied: true }] },
    message: [/status\.aggregatedStatus\[1\]: Duplicate value/],
  },
  {
    what: "an aggregatedStatus entry without clusterName",
    target: "binding",
    status: { aggregatedStatus: [{ applied: true }] },
    message: [/status\.aggregatedStatus\[0\]\.clusterName: Required value/],
  },
  {
    what: "applied that is not a boolean",
    target: "binding",
    status: { aggregatedStatus: [{ clusterName: "member1", applied: "yes" }] },
    message: [/status\.aggregatedStatus\[0\]\.applied/, /boolean/],
  },  {
    what: "a rollout state with an unknown phase",
    target: "binding",
    status: { rollout: { revision: "b", stableRevision: "a", phase: "Exploding", clusters: [] } },
    message: [/status\.rollout\.phase/, /Unsupported value/],
  },
];

/** The HTTP status and message of a refused request; fails the test if it was accepted. */
async function refusal(request: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await request;
  } catch (err) {
    if (!(err instanceof ApiException)) throw err;
    const body: unknown = typeof err.body === "string" ? JSON.parse(err.body) : err.body;
    return { code: err.code, message: String((body as { message?: unknown }).message) };
  }
  assert.fail("the apiserver accepted it");
}

/** Fails unless every field of expected is in actual with the same value (actual may have more). */
function assertHasFields(actual: unknown, expected: unknown, path = ""): void {
  if (expected !== null && typeof expected === "object") {
    assert.ok(actual !== null && typeof actual === "object", `${path} is an object or list`);
    if (Array.isArray(expected)) {
      assert.ok(Array.isArray(actual), `${path} is a list`);
      assert.equal(actual.length, expected.length, `${path} length`);
    }
    for (const [k, v] of Object.entries(expected)) assertHasFields((actual as Obj)[k], v, `${path}.${k}`);
  } else {
    assert.equal(actual, expected, `${path} kept`);
  }
}

const schemaOf = (crd: KubeObject): Obj => {
  const spec = crd.spec as { versions: { schema: { openAPIV3Schema: Obj } }[] };
  return spec.versions[0]?.schema.openAPIV3Schema as Obj;
};
const prop = (schema: Obj, ...path: string[]): Obj =>
  path.reduce((s, p) => (p === "[]" ? (s.items as Obj) : ((s.properties as Obj)[p] as Obj)), schema);
const withoutDescriptions = (s: unknown): unknown =>
  JSON.parse(JSON.stringify(s), (k: string, v: unknown) => (k === "description" ? undefined : v));

describe("flotilla.dev CRD files", () => {
  it("share one placement (targetCluster), label selector and conflictResolution schema across kinds", async () => {
    const flotillaCrds = (await loadCrds()).filter((c) => (c.spec as { group: string }).group === gv.group);
    const crds = new Map(flotillaCrds.map((c) => [(c.spec as { names: { kind: string } }).names.kind, c]));
    assert.deepEqual(
      [...crds.keys()].sort(),
      [
        "Cluster",
        "ClusterOverridePolicy",
        "ClusterPropagationPolicy",
        "ClusterResourceBinding",
        "ClusterTaintPolicy",
        "CronFederatedHPA",
        "FederatedHPA",
        "FederatedResourceQuota",
        "MemberServiceExport",
        "OverridePolicy",
        "PropagationPolicy",
        "ResourceBinding",
        "ResourceInterpreterCustomization",
        "WorkloadRebalancer",
      ],
    );
    const spec = (kind: string) => prop(schemaOf(crds.get(kind) as KubeObject), "spec");
    const kinds = ["PropagationPolicy", "ClusterPropagationPolicy", "ResourceBinding", "ClusterResourceBinding"];
    for (const kind of kinds.slice(1)) {
      assert.deepEqual(prop(spec(kind), "placement"), prop(spec(kinds[0] as string), "placement"), `${kind} placement`);
      assert.deepEqual(prop(spec(kind), "conflictResolution"), prop(spec(kinds[0] as string), "conflictResolution"));
    }
    const selector = (kind: string) => prop(spec(kind), "resourceSelectors", "[]");
    assert.deepEqual(
      withoutDescriptions(prop(selector("PropagationPolicy"), "labelSelector")),
      withoutDescriptions(prop(spec("ClusterPropagationPolicy"), "placement", "clusterAffinity", "labelSelector")),
    );
    // The same selectors: a namespaced policy's namespace rule needs metadata.namespace, which CRD
    // rules cannot read, so the ValidatingAdmissionPolicy flotilla-policy-namespace holds it.
    assert.deepEqual(withoutDescriptions(selector("PropagationPolicy")), withoutDescriptions(selector("ClusterPropagationPolicy")));
    const ppRest = { ...spec("PropagationPolicy").properties as Obj, resourceSelectors: undefined };
    const cppRest = { ...spec("ClusterPropagationPolicy").properties as Obj, resourceSelectors: undefined };
    assert.deepEqual(ppRest, cppRest);
    const binding = (kind: string) => withoutDescriptions(schemaOf(crds.get(kind) as KubeObject));
    assert.deepEqual(binding("ResourceBinding"), binding("ClusterResourceBinding"));

    // Override policies: a rule's targetCluster is placement.clusterAffinity, the selectors are the
    // propagation policies' (the namespaced kind refusing namespaces the same way), and the rest
    // is one schema for both kinds.
    const clusterAffinity = withoutDescriptions(prop(spec("PropagationPolicy"), "placement", "clusterAffinity"));
    for (const kind of ["OverridePolicy", "ClusterOverridePolicy"]) {
      const rule = prop(spec(kind), "overrideRules", "[]");
      assert.deepEqual(withoutDescriptions(prop(rule, "targetCluster")), clusterAffinity, `${kind} targetCluster`);
    }
    // ClusterTaintPolicy's targetClusters is Karmada's ClusterAffinity too.
    assert.deepEqual(withoutDescriptions(prop(spec("ClusterTaintPolicy"), "targetClusters")), clusterAffinity, "ClusterTaintPolicy targetClusters");
    const withoutRule = (s: Obj) => ({ ...s, ["x-kubernetes-validations"]: undefined });
    const selectors = (kind: string) => prop(spec(kind), "resourceSelectors");
    assert.deepEqual(
      withoutDescriptions(selectors("ClusterOverridePolicy")),
      withoutDescriptions(selectors("ClusterPropagationPolicy")),
    );
    assert.deepEqual(
      withoutDescriptions({ ...selectors("OverridePolicy"), items: withoutRule(selector("OverridePolicy")) }),
      withoutDescriptions({ ...selectors("PropagationPolicy"), items: withoutRule(selector("PropagationPolicy")) }),
    );
    const opRest = { ...spec("OverridePolicy").properties as Obj, resourceSelectors: undefined };
    const copRest = { ...spec("ClusterOverridePolicy").properties as Obj, resourceSelectors: undefined };
    assert.deepEqual(opRest, copRest);
    // The deprecated top-level form is one rule's schema (Karmada's OverrideSpec).
    for (const kind of ["OverridePolicy", "ClusterOverridePolicy"]) {
      const rule = prop(spec(kind), "overrideRules", "[]");
      for (const field of ["targetCluster", "overriders"]) {
        assert.deepEqual(withoutDescriptions(prop(spec(kind), field)), withoutDescriptions(prop(rule, field)), `${kind} spec.${field}`);
      }
      assert.equal(spec(kind).required, undefined, `${kind}: overrideRules is optional, as in Karmada`);
    }
  });
});

describe("multiclusterdns.flotilla.dev CRD files", () => {
  it("define KubeFed's kinds: Domain cluster-scoped, the records namespaced with a status subresource", async () => {
    const dns = (await loadCrds()).filter((c) => (c.spec as { group: string }).group === DNS_GROUP);
    const scopes = new Map(dns.map((c) => {
      const spec = c.spec as { names: { kind: string }; scope: string; versions: { name: string; served: boolean; storage: boolean; subresources?: Obj }[] };
      assert.deepEqual(spec.versions.map((v) => [v.name, v.served, v.storage]), [["v1alpha1", true, true]], spec.names.kind);
      return [spec.names.kind, [spec.scope, spec.versions[0]?.subresources?.status !== undefined]];
    }));
    assert.deepEqual(scopes.get("Domain"), ["Cluster", false]);
    assert.deepEqual(scopes.get("ServiceDNSRecord"), ["Namespaced", true]);
    assert.deepEqual(scopes.get("IngressDNSRecord"), ["Namespaced", true]);
  });
});

describe("flotilla.dev CRDs in a real control cluster", () => {
  let control: Cluster;
  let kc: KubeConfig;
  let objects: KubernetesObjectApi;
  let custom: CustomObjectsApi;
  let kubectlPath: string;
  const kubectl = (...args: string[]) => exec(kubectlPath, ["--kubeconfig", control.kubeconfigPath, ...args]);
  /** kubectl with a manifest on stdin (`-f -`): its stdout. */
  const pipe = async (args: string[], manifest: string) => {
    const run = exec(kubectlPath, ["--kubeconfig", control.kubeconfigPath, ...args, "-f", "-"]);
    run.child.stdin?.end(manifest);
    return (await run).stdout;
  };

  before(async () => {
    kubectlPath = binaryPath(await ensureBinaries(), "kubectl");
    const dir = join(tmpdir(), `flotilla-crds-${process.pid}`);
    control = await startCluster({ name: "control", role: "control", dir });
    kc = control.kubeConfig();
    await installCrds(kc);
    // A fresh client: KubernetesObjectApi caches API discovery.
    objects = KubernetesObjectApi.makeApiClient(kc);
    custom = kc.makeApiClient(CustomObjectsApi);
  });
  after(async () => {
    await control?.stop();
  });

  it("installs every CRD Established, and a second install changes nothing", async () => {
    const ext = kc.makeApiClient(ApiextensionsV1Api);
    const names = (await loadCrds()).map((c) => c.metadata.name as string);
    const read = () => Promise.all(names.map((name) => ext.readCustomResourceDefinition({ name })));
    const first = await read();
    for (const crd of first) {
      const established = crd.status?.conditions?.find((c) => c.type === "Established");
      assert.equal(established?.status, "True", `${crd.metadata?.name} Established`);
      assert.ok(
        crd.metadata?.managedFields?.some((m) => m.manager === "flotilla-control-plane" && m.operation === "Apply"),
        `${crd.metadata?.name} applied by flotilla-control-plane`,
      );
    }
    // What the apiserver holds is exactly what the files say (no field lost on the way).
    for (const crd of await loadCrds()) {
      const name = crd.metadata.name as string;
      const stored = JSON.parse((await kubectl("get", "crd", name, "-o", "json")).stdout) as KubeObject;
      const expected = { conversion: { strategy: "None" }, ...(crd.spec as Obj) };
      assert.deepEqual(stored.spec, expected, `${name} as in the file`);
    }
    // kubectl reads the files the same way: applying them by hand would change nothing.
    const crdDir = fileURLToPath(new URL("../control-plane/crds/", import.meta.url));
    await kubectl("diff", "--server-side", "--field-manager", "flotilla-control-plane", "--force-conflicts", "-f", crdDir);
    await installCrds(kc, { timeoutMs: 10_000 });
    const second = await read();
    assert.deepEqual(
      second.map((c) => [c.metadata?.name, c.metadata?.generation, c.metadata?.resourceVersion]),
      first.map((c) => [c.metadata?.name, c.metadata?.generation, c.metadata?.resourceVersion]),
    );
  });

  it("never replaces a served CRD of a newer revision (a rollback or an old replica prunes nothing)", async () => {
    // As a newer control plane would have left it: a higher revision and a field this one lacks.
    const patch = JSON.stringify([
      { op: "replace", path: "/metadata/annotations/flotilla.dev~1crd-revision", value: "999" },
      { op: "add", path: "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/addedLater", value: { type: "string" } },
    ]);
    await kubectl("patch", "crd", "clusters.flotilla.dev", "--type=json", "-p", patch);
    await installCrds(kc, { timeoutMs: 10_000 });
    const served = JSON.parse((await kubectl("get", "crd", "clusters.flotilla.dev", "-o", "json")).stdout) as { metadata: { annotations: Record<string, string> }; spec: { versions: { schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, unknown> } } } } }[] } };
    assert.equal(served.metadata.annotations["flotilla.dev/crd-revision"], "999", "the newer revision stays");
    assert.ok(served.spec.versions[0]?.schema.openAPIV3Schema.properties.spec.properties.addedLater, "the newer field stays");
    // An older one is replaced, as at every upgrade.
    await kubectl("annotate", "--overwrite", "crd", "clusters.flotilla.dev", "flotilla.dev/crd-revision=1");
    await installCrds(kc, { timeoutMs: 10_000 });
    const replaced = JSON.parse((await kubectl("get", "crd", "clusters.flotilla.dev", "-o", "json")).stdout) as typeof served;
    assert.equal(replaced.metadata.annotations["flotilla.dev/crd-revision"], String(CRD_REVISION));
    assert.equal(replaced.spec.versions[0]?.schema.openAPIV3Schema.properties.spec.properties.addedLater, undefined, "ours again");
  });

  it("accepts a valid object of every kind and keeps every field it was given", async () => {
    for (const obj of [...valid, ...validOverrides]) {
      const created = await objects.create(obj);
      assertHasFields(created.spec ?? {}, obj.spec ?? {}, `${obj.kind}/${obj.metadata?.name} spec`);
    }
  });

  it("accepts a valid Domain, ServiceDNSRecord and IngressDNSRecord and keeps every field", async () => {
    for (const obj of validDns) {
      const created = (await objects.create(obj)) as unknown as Obj;
      const { apiVersion: _a, kind: _k, metadata: _m, ...fields } = obj;
      assertHasFields(created, fields, `${obj.kind}/${obj.metadata?.name}`);
    }
  });

  it("applies KubeFed's Domain and ServiceDNSRecord manifests with only apiVersion changed (the Domain's namespace dropped)", async () => {
    await kubectl("create", "namespace", "test-namespace");
    // As KubeFed's guide does it (kubectl create), then apply client- and server-side again.
    await pipe(["create"], kubefedServiceManifest + "---\n" + kubefedIngressManifest);
    await pipe(["apply"], kubefedServiceManifest + "---\n" + kubefedIngressManifest);
    await pipe(["apply", "--server-side"], kubefedServiceManifest);
    const domain = await custom.getClusterCustomObject({ group: DNS_GROUP, version: "v1alpha1", plural: "domains", name: "test-domain" }) as { metadata: Obj; domain: string };
    assert.equal(domain.metadata.namespace, undefined, "a cluster-scoped Domain has no namespace");
    assert.equal(domain.domain, "your.domain.name");
    const record = await custom.getNamespacedCustomObject({ group: DNS_GROUP, version: "v1alpha1", plural: "servicednsrecords", namespace: "test-namespace", name: "test-service" }) as { spec: Obj };
    assert.deepEqual(record.spec, { domainRef: "test-domain", recordTTL: 300 });
    const ingress = await custom.getNamespacedCustomObject({ group: DNS_GROUP, version: "v1alpha1", plural: "ingressdnsrecords", namespace: "test-namespace", name: "test-ingress" }) as { spec: Obj };
    assert.deepEqual(ingress.spec, { hosts: ["ingress.example.com"], recordTTL: 300 });
    const { stdout } = await kubectl("get", "servicednsrecords", "-n", "test-namespace");
    const [header, row] = stdout.trim().split("\n").map((l) => l.trim().split(/\s+/));
    assert.deepEqual(header, ["NAME", "DOMAIN", "TTL", "AGE"]);
    assert.deepEqual(row?.slice(0, 3), ["test-service", "test-domain", "300"]);
    const domains = (await kubectl("get", "domains")).stdout.trim().split("\n").map((l) => l.trim().split(/\s+/));
    assert.deepEqual(domains[0], ["NAME", "DOMAIN", "NAME-SERVER", "AGE"]);
  });

  it("applies Karmada's example ResourceInterpreterCustomization with only apiVersion changed, and kubectl shows it by its short name", async () => {
    await pipe(["apply"], karmadaExampleManifest);
    await pipe(["apply", "--server-side"], karmadaExampleManifest);
    const stored = (await custom.getClusterCustomObject({ ...gv, plural: "resourceinterpretercustomizations", name: "declarative-configuration-example" })) as { spec: { target: Obj; customizations: Record<string, { luaScript: string }> } };
    assert.deepEqual(stored.spec.target, { apiVersion: "apps/v1", kind: "Deployment" });
    assert.deepEqual(Object.keys(stored.spec.customizations).sort(), ["dependencyInterpretation", "healthInterpretation", "replicaResource", "replicaRevision", "retention", "statusAggregation", "statusReflection"]);
    assert.match(stored.spec.customizations.healthInterpretation?.luaScript ?? "", /^function InterpretHealth\(observedObj\)/);
    const rows = (await kubectl("get", "ric")).stdout.trim().split("\n").map((l) => l.trim().split(/\s+/));
    assert.deepEqual(rows[0], ["NAME", "TARGET-API-VERSION", "TARGET-KIND", "AGE"]);
    assert.deepEqual(rows[1]?.slice(0, 3), ["declarative-configuration-example", "apps/v1", "Deployment"]);
  });

  it("keeps every operation of a ResourceInterpreterCustomization, componentResource included", async () => {
    const created = (await objects.create(everyOperation)) as unknown as Obj;
    assert.deepEqual(created.spec, everyOperation.spec);
  });

  for (const c of badRic) {
    it(`refuses a ResourceInterpreterCustomization: ${c.what}, with 422 naming the field`, async () => {
      const { code, message } = await refusal(objects.create(c.obj));
      assert.equal(code, 422, message);
      for (const re of c.message) assert.match(message, re);
    });
  }

  it("applies Karmada-shaped FederatedHPA and CronFederatedHPAs with only apiVersion changed, fills Karmada's defaults, and kubectl shows Karmada's columns", async () => {
    await pipe(["apply"], karmadaFhpaManifest);
    await pipe(["apply"], karmadaCronManifest);
    await pipe(["apply", "--server-side"], karmadaCronManifest);
    const rows = (await kubectl("get", "fhpa", "-n", NS)).stdout.trim().split("\n").map((l) => l.trim().split(/\s+/));
    assert.deepEqual(rows[0], ["NAME", "REFERENCE-KIND", "REFERENCE-NAME", "MINPODS", "MAXPODS", "REPLICAS", "AGE"]);
    assert.deepEqual(rows[1]?.slice(0, 5), ["nginx", "Deployment", "nginx", "1", "10"]);
    const cronRows = (await kubectl("get", "cronfhpa", "-n", NS)).stdout.trim().split("\n").map((l) => l.trim().split(/\s+/));
    assert.deepEqual(cronRows[0], ["NAME", "REFERENCE-KIND", "REFERENCE-NAME", "AGE"]);
    assert.deepEqual(cronRows.slice(1).map((r) => r.slice(0, 3)), [["nginx-cronfhpa", "Deployment", "nginx"], ["nginx-fhpa-cronfhpa", "FederatedHPA", "nginx"]]);
    const cron = (await custom.getNamespacedCustomObject({ ...gv, plural: "cronfederatedhpas", namespace: NS, name: "nginx-fhpa-cronfhpa" })) as { spec: { rules: Obj[] } };
    assert.deepEqual(cron.spec.rules, [{ name: "scale-up", schedule: "0 8 * * MON-FRI", targetMinReplicas: 5, targetMaxReplicas: 10, timeZone: "Europe/Berlin", suspend: false, successfulHistoryLimit: 3, failedHistoryLimit: 3 }]);
    // Karmada's defaults: minReplicas 1 and, without metrics, cpu at 80%.
    const minimal = await objects.create(fhpa("minimal", { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, maxReplicas: 4 }));
    assert.deepEqual(minimal.spec, {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
      minReplicas: 1,
      maxReplicas: 4,
      metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } } }],
    });
  });

  it("keeps every field of a FederatedHPA and CronFederatedHPA, and their full status through the status subresource", async () => {
    const created = await objects.create(everyField);
    assert.deepEqual(created.spec, everyField.spec);
    const ref = { ...gv, plural: "federatedhpas", namespace: NS, name: "every-field" };
    const withStatus = await custom.replaceNamespacedCustomObjectStatus({ ...ref, body: { ...created, status: fhpaStatus } });
    assert.deepEqual((withStatus as Obj).status, fhpaStatus);
    const columns = (await kubectl("get", "fhpa", "every-field", "-n", NS)).stdout.trim().split("\n")[1]?.trim().split(/\s+/);
    assert.deepEqual(columns?.slice(0, 6), ["every-field", "Deployment", "web", "2", "20", "3"]);
    const cron = await objects.create(cronFhpa("every-field", { scaleTargetRef: { apiVersion: API_VERSION, kind: "FederatedHPA", name: "every-field" }, rules: [{ name: "scale-up", schedule: "@daily", targetMinReplicas: 5, targetMaxReplicas: 10, suspend: true, timeZone: "UTC", successfulHistoryLimit: 32, failedHistoryLimit: 0 }] }));
    const cronRef = { ...gv, plural: "cronfederatedhpas", namespace: NS, name: "every-field" };
    const cronWithStatus = await custom.replaceNamespacedCustomObjectStatus({ ...cronRef, body: { ...cron, status: cronStatus } });
    assert.deepEqual((cronWithStatus as Obj).status, cronStatus);
  });

  for (const c of badAutoscaling) {
    it(`refuses ${c.what} with 422 naming the field`, async () => {
      const { code, message } = await refusal(objects.create(c.obj));
      assert.equal(code, 422, message);
      for (const re of c.message) assert.match(message, re);
    });
  }

  it("applies Karmada's WorkloadRebalancer with only apiVersion changed, and keeps every field and its full status", async () => {
    await pipe(["apply"], karmadaRebalancerManifest);
    await pipe(["apply", "--server-side"], karmadaRebalancerManifest);
    const demo = (await custom.getClusterCustomObject({ ...gv, plural: "workloadrebalancers", name: "demo" })) as { spec: Obj };
    assert.deepEqual(demo.spec, {
      workloads: [
        { apiVersion: "apps/v1", kind: "Deployment", name: "demo-deploy-1", namespace: "default" },
        { apiVersion: "v1", kind: "ConfigMap", name: "demo-configmap", namespace: "default" },
      ],
      ttlSecondsAfterFinished: 60,
    });
    const created = await objects.create(everyRebalancerField);
    assert.deepEqual(created.spec, everyRebalancerField.spec);
    const ref = { ...gv, plural: "workloadrebalancers", name: "every-field" };
    const withStatus = await custom.replaceClusterCustomObjectStatus({ ...ref, body: { ...created, status: rebalancerStatus } });
    assert.deepEqual((withStatus as Obj).status, rebalancerStatus);
    const header = (await kubectl("get", "workloadrebalancers")).stdout.trim().split("\n")[0]?.trim().split(/\s+/);
    assert.deepEqual(header, ["NAME", "FINISHED", "AGE"]);
  });

  for (const c of badRebalancers) {
    it(`refuses ${c.what} with 422 naming the field`, async () => {
      const { code, message } = await refusal(objects.create(c.obj));
      assert.equal(code, 422, message);
      for (const re of c.message) assert.match(message, re);
    });
  }

  it("applies Karmada's documentation objects Flotilla once refused (issue 39), and warns of a deprecated purgeMode", async () => {
    // A CronFederatedHPA naming its FederatedHPA by autoscaling.karmada.io/v1alpha1.
    await pipe(["apply"], karmadaCronOfFhpaManifest);
    const cron = (await custom.getNamespacedCustomObject({ ...gv, plural: "cronfederatedhpas", namespace: NS, name: "nginx-cronfhpa-karmada" })) as { spec: { scaleTargetRef: Obj; rules: Obj[] } };
    assert.deepEqual(cron.spec.scaleTargetRef, { apiVersion: "autoscaling.karmada.io/v1alpha1", kind: "FederatedHPA", name: "nginx-fhpa" });
    assert.deepEqual(cron.spec.rules.map((r) => [r.targetMinReplicas, r.targetMaxReplicas]), [[5, 10]]);
    // A spread constraint with neither spreadByField nor spreadByLabel (the scheduler reads it as by cluster).
    await pipe(["apply"], karmadaSpreadManifest);
    const spread = (await custom.getNamespacedCustomObject({ ...gv, plural: "propagationpolicies", namespace: NS, name: "nginx-spread" })) as { spec: { placement: { spreadConstraints: Obj[] } } };
    assert.deepEqual(spread.spec.placement.spreadConstraints, [{ maxGroups: 2, minGroups: 2 }]);
    // purgeMode Graciously: stored as written, and kubectl shows the apiserver's warning (the
    // ValidatingAdmissionPolicy flotilla-deprecated-purge-mode, enforced within a second or so).
    const deadline = Date.now() + 15_000;
    for (let round = 0; ; round++) {
      const run = exec(kubectlPath, ["--kubeconfig", control.kubeconfigPath, "apply", "-f", "-"]);
      run.child.stdin?.end(round % 2 === 0 ? karmadaGraciouslyManifest : karmadaGraciouslyManifest.replace("tolerationSeconds: 300", "tolerationSeconds: 301"));
      const { stderr } = await run;
      if (/flotilla-deprecated-purge-mode/.test(stderr)) {
        assert.match(stderr, /Warning: .*spec\.failover\.application\.purgeMode: Graciously is deprecated .*Flotilla reads it as Gracefully/);
        break;
      }
      assert.ok(Date.now() < deadline, `no warning for purgeMode Graciously: ${stderr}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const failover = (await custom.getNamespacedCustomObject({ ...gv, plural: "propagationpolicies", namespace: NS, name: "nginx-failover" })) as { spec: { failover: { application: Obj } } };
    assert.equal(failover.spec.failover.application.purgeMode, "Graciously");
    assert.equal(failover.spec.failover.application.gracePeriodSeconds, 600);
    // Immediately on a ClusterPropagationPolicy's cluster failover warns too, naming that field.
    const run = exec(kubectlPath, ["--kubeconfig", control.kubeconfigPath, "apply", "-f", "-"]);
    run.child.stdin?.end(JSON.stringify(cpp("immediately", { resourceSelectors: [deploymentSelector], failover: { cluster: { purgeMode: "Immediately" } } })));
    assert.match((await run).stderr, /Warning: .*spec\.failover\.cluster\.purgeMode: Immediately is deprecated .*Flotilla reads it as Directly/);
  });

  it("applies a Karmada ClusterTaintPolicy with only apiVersion changed and keeps every field", async () => {
    await pipe(["apply", "--server-side"], karmadaTaintPolicyManifest);
    const p = (await custom.getClusterCustomObject({ ...gv, plural: "clustertaintpolicies", name: "detect-cluster-notready" })) as { spec: Obj };
    assert.deepEqual(p.spec.taints, [
      { key: "cluster.karmada.io/not-ready", effect: "NoSchedule" },
      { key: "cluster.karmada.io/not-ready", value: "yes", effect: "NoExecute" },
    ]);
    assert.deepEqual(p.spec.addOnConditions, [{ conditionType: "Ready", operator: "NotIn", statusValues: ["True"] }]);
    assert.deepEqual((p.spec.targetClusters as Obj).clusterNames, ["member1", "member2"]);
  });

  for (const c of badTaintPolicies) {
    it(`refuses ${c.what} with 422 naming the field`, async () => {
      const { code, message } = await refusal(objects.create(c.obj));
      assert.equal(code, 422, message);
      for (const re of c.message) assert.match(message, re);
    });
  }

  it("stores a ServiceDNSRecord's status and refuses one cluster listed twice", async () => {
    const web = { group: DNS_GROUP, version: "v1alpha1", plural: "servicednsrecords", namespace: DNS_NS, name: "web" };
    const current = await custom.getNamespacedCustomObject(web);
    const updated = await custom.replaceNamespacedCustomObjectStatus({ ...web, body: { ...current, status: serviceRecordStatus } });
    assert.deepEqual((updated as Obj).status, serviceRecordStatus);
    const twice = { ...serviceRecordStatus, dns: [{ cluster: "member1" }, { cluster: "member1", zone: "eu-1" }] };
    const { code, message } = await refusal(custom.replaceNamespacedCustomObjectStatus({ ...web, body: { ...(updated as Obj), status: twice } }));
    assert.equal(code, 422, message);
    assert.match(message, /status\.dns\[1\]: Duplicate value/);
  });

  it("fills in the defaults: conflictResolution Abort, priority 0, preemption Never, no clusters, plaintext replace", async () => {
    const policy = await objects.read<Fixture>({
      apiVersion: API_VERSION,
      kind: "PropagationPolicy",
      metadata: { name: "minimal", namespace: NS },
    });
    assert.deepEqual(policy.spec, {
      resourceSelectors: [deploymentSelector],
      conflictResolution: "Abort",
      priority: 0,
      preemption: "Never",
      schedulerName: "default-scheduler",
    });
    const binding = await objects.create(rb("unscheduled", { resource: deployRef }));
    assert.deepEqual((binding.spec as Obj).clusters, []);
    assert.equal((binding.spec as Obj).conflictResolution, "Abort");
    const override = await objects.read<Fixture>({
      apiVersion: API_VERSION,
      kind: "OverridePolicy",
      metadata: { name: "minimal", namespace: NS },
    });
    const defaulted = withOverriders({ plaintext: [{ path: "/spec/replicas", operator: "replace", value: 2 }] });
    assert.deepEqual(override.spec, defaulted);
  });

  it("refuses a PropagationPolicy or OverridePolicy selector naming another namespace (flotilla-policy-namespace)", async () => {
    const other = { ...deploymentSelector, namespace: "kube-system" };
    for (const obj of [pp("other-ns", { resourceSelectors: [deploymentSelector, other] }), object("OverridePolicy", "other-ns", { resourceSelectors: [other], ...withOverriders({ plaintext: [{ path: "/spec/replicas", operator: "replace", value: 2 }] }) }, true)]) {
      // The apiserver starts enforcing a new ValidatingAdmissionPolicy within a second or so.
      const deadline = Date.now() + 15_000;
      for (;;) {
        const outcome = await objects.create(obj).then(
          async (created) => {
            await objects.delete(created);
            return undefined;
          },
          (err: unknown) => err,
        );
        if (outcome !== undefined) {
          const { code, message } = await refusal(Promise.reject(outcome));
          assert.equal(code, 422, message);
          assert.match(message, /flotilla-policy-namespace/);
          assert.match(message, /selects only in its own namespace \(default\)/);
          assert.match(message, /not kube-system/);
          break;
        }
        assert.ok(Date.now() < deadline, `${obj.kind} naming kube-system was never refused`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  });

  for (const c of [...bad, ...badOverrides, ...badDns]) {
    it(`refuses ${c.what} with 422 naming the field`, async () => {
      const { code, message } = await refusal(objects.create(c.obj));
      assert.equal(code, 422, message);
      for (const re of c.message) assert.match(message, re);
    });
  }

  it("stores a full Cluster and ResourceBinding status through the status subresource", async () => {
    const member = { ...gv, plural: "clusters", name: "member1" };
    const cluster = await custom.getClusterCustomObject(member);
    const updated = await custom.replaceClusterCustomObjectStatus({
      ...member,
      body: { ...cluster, status: clusterStatus },
    });
    assert.deepEqual((updated as Obj).status, clusterStatus);

    const web = { ...gv, plural: "resourcebindings", namespace: NS, name: "web-deployment" };
    const binding = await custom.getNamespacedCustomObject(web);
    const withStatus = await custom.replaceNamespacedCustomObjectStatus({
      ...web,
      body: { ...binding, status: bindingStatus },
    });
    // The member object's status is kept as given (x-kubernetes-preserve-unknown-fields).
    assert.deepEqual((withStatus as Obj).status, bindingStatus);
  });

  for (const c of badStatus) {
    it(`refuses a status with ${c.what} with 422 naming the field`, async () => {
      const ref =
        c.target === "cluster"
          ? { ...gv, plural: "clusters", name: "eu-west-1a" }
          : { ...gv, plural: "clusterresourcebindings", name: "ns-team-a" };
      const current = await custom.getClusterCustomObject(ref);
      const body = { ...current, status: c.status };
      const { code, message } = await refusal(custom.replaceClusterCustomObjectStatus({ ...ref, body }));
      assert.equal(code, 422, message);
      for (const re of c.message) assert.match(message, re);
    });
  }

  it("kubectl shows Cluster Ready and Version columns, knows the short names, and refuses a bad apply", async () => {
    const { stdout } = await kubectl("get", "clusters", "member1");
    const [header, row] = stdout.trim().split("\n").map((l) => l.trim().split(/\s+/));
    assert.deepEqual(header, ["NAME", "READY", "ACCEPTED", "VERSION", "AGE"]);
    assert.deepEqual(row?.slice(0, 3), ["member1", "True", "v1.36.3"]);
    const shortNames = [
      ["pp", "full"],
      ["cpp", "dynamic"],
      ["rb", "web-deployment"],
      ["crb", "ns-team-a"],
      ["op", "full"],
      ["cop", "minimal"],
    ];
    for (const [short, name] of shortNames) {
      const { stdout: names } = await kubectl("get", short as string, "-n", NS, "-o", "name");
      assert.match(names, new RegExp(`/${name}$`, "m"), `kubectl get ${short}`);
    }
    const applied = exec(kubectlPath, ["--kubeconfig", control.kubeconfigPath, "apply", "-f", "-"]);
    applied.child.stdin?.end(
      JSON.stringify(pp("kubectl-bad", withRequirement({ key: "gpus", operator: "Gt", values: ["ten"] }))),
    );
    await assert.rejects(applied, (err: Error & { stderr?: string }) => {
      assert.match(err.stderr ?? "", /spec\.resourceSelectors\[0\]\.labelSelector\.matchExpressions\[0\]\.values/);
      assert.match(err.stderr ?? "", /Gt and Lt/);
      return true;
    });
  });
});
