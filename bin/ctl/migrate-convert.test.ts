import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { parse } from "yaml";
import type { KubeObject } from "../../shared/api/types.ts";
import { applyRank, cleanMetadata, clusterProblem, convertPolicy, convertTemplate, isKarmadaKey, namespacesFor, pruneToSchema, type Schema, selects, webhookProblem } from "./migrate-convert.ts";

/** Flotilla's own CRD's spec schema, as the control cluster serves it. */
function specSchema(plural: string): Schema {
  const crd = parse(readFileSync(new URL(`../../control-plane/crds/${plural}.yaml`, import.meta.url), "utf8")) as { spec: { versions: { name: string; schema: { openAPIV3Schema: Schema } }[] } };
  const spec = crd.spec.versions.find((v) => v.name === "v1alpha1")?.schema.openAPIV3Schema.properties?.spec;
  assert.ok(spec);
  return spec;
}

const karmadaMeta = {
  name: "web",
  namespace: "shop",
  uid: "0b7f4a4e-2f3d-4a52-9f0e-2d1c5c0f2a11",
  resourceVersion: "4711",
  generation: 3,
  creationTimestamp: "2026-11-01T10:00:00Z",
  managedFields: [{ manager: "kubectl", operation: "Apply" }],
  labels: { team: "shop", "propagationpolicy.karmada.io/permanent-id": "9a3e" },
  annotations: { note: "keep me", "propagationpolicy.karmada.io/name": "web", "kubectl.kubernetes.io/last-applied-configuration": "{}" },
};
const pp = (spec: Record<string, unknown>, kind = "PropagationPolicy"): KubeObject => ({ apiVersion: "policy.karmada.io/v1alpha1", kind, metadata: { ...karmadaMeta }, spec, status: { observed: true } });
const selector = [{ apiVersion: "apps/v1", kind: "Deployment", name: "web" }];

describe("migrate: PropagationPolicy and ClusterPropagationPolicy", () => {
  const cases: { name: string; kind?: string; spec: Record<string, unknown>; wantSpec?: Record<string, unknown>; problems: RegExp[] }[] = [
    { name: "a policy Flotilla holds in full converts with no problem", spec: { resourceSelectors: selector, placement: { clusterAffinity: { clusterNames: ["member1"] } }, priority: 2 }, problems: [] },
    { name: "conflictResolution Overwrite stays Overwrite", spec: { resourceSelectors: selector, conflictResolution: "Overwrite" }, problems: [] },
    { name: "conflictResolution Abort stays Abort (adoption does not need Overwrite)", spec: { resourceSelectors: selector, conflictResolution: "Abort" }, problems: [] },
    { name: "preserveResourcesOnDeletion is carried", spec: { resourceSelectors: selector, preserveResourcesOnDeletion: true }, problems: [] },
    { name: "replicaScheduling with static weights is carried", spec: { resourceSelectors: selector, placement: { replicaScheduling: { replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted", weightPreference: { staticWeightList: [{ targetCluster: { clusterNames: ["member1"] }, weight: 1 }] } } } }, problems: [] },
    { name: "failover is carried (Flotilla acts on it)", spec: { resourceSelectors: selector, failover: { application: { decisionConditions: { tolerationSeconds: 30 }, purgeMode: "Gracefully" } } }, problems: [] },
    {
      name: "suspension.scheduling is dropped, suspension.dispatching kept",
      spec: { resourceSelectors: selector, suspension: { dispatching: true, scheduling: true } },
      wantSpec: { resourceSelectors: selector, suspension: { dispatching: true } },
      problems: [/^spec\.suspension\.scheduling: not carried over: suspending scheduling/],
    },
    { name: "an unknown field deep in a list item is dropped with its path", spec: { resourceSelectors: [{ ...selector[0], fieldSelector: { x: 1 } }] }, wantSpec: { resourceSelectors: selector }, problems: [/^spec\.resourceSelectors\[\]\.fieldSelector: not carried over: Flotilla's CRD has no such field/] },
    { name: "schedulerName default-scheduler is no problem", spec: { resourceSelectors: selector, schedulerName: "default-scheduler" }, problems: [] },
    { name: "another schedulerName is carried and reported", spec: { resourceSelectors: selector, schedulerName: "gpu-scheduler" }, problems: [/^spec\.schedulerName: "gpu-scheduler": Flotilla has one scheduler/] },
    { name: "workloadAffinity and schedulePriority are carried (Flotilla acts on them)", spec: { resourceSelectors: selector, placement: { workloadAffinity: { affinity: { groupByLabelKey: "app" } } }, schedulePriority: { priorityClassSource: "KubePriorityClass", priorityClassName: "high" } }, problems: [] },
    { name: "a ClusterPropagationPolicy converts the same way", kind: "ClusterPropagationPolicy", spec: { resourceSelectors: [{ ...selector[0], namespace: "shop" }], schedulerName: "x" }, problems: [/^spec\.schedulerName/] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const kind = c.kind ?? "PropagationPolicy";
      const namespaced = kind === "PropagationPolicy";
      const item = convertPolicy(pp(c.spec, kind), specSchema(namespaced ? "propagationpolicies" : "clusterpropagationpolicies"), namespaced);
      assert.equal(item.object?.apiVersion, "flotilla.dev/v1alpha1");
      assert.equal(item.object?.kind, kind);
      assert.deepEqual(item.object?.spec, c.wantSpec ?? c.spec);
      assert.equal(item.object?.status, undefined, "status is dropped");
      assert.deepEqual(item.object?.metadata, { name: "web", ...(namespaced ? { namespace: "shop" } : {}), labels: { team: "shop" }, annotations: { note: "keep me" } });
      assert.equal(item.problems.length, c.problems.length, item.problems.join("\n"));
      c.problems.forEach((re, i) => assert.match(item.problems[i] ?? "", re));
    });
  }
});

it("a field Flotilla stores without acting on is carried and reported (whichever fields those are in this version)", () => {
  const unacted = [{ path: "spec.placement.workloadAffinity", isSet: (p: { spec: { placement?: { workloadAffinity?: unknown } } }) => p.spec.placement?.workloadAffinity !== undefined }];
  const item = convertPolicy(pp({ resourceSelectors: selector, placement: { workloadAffinity: { affinity: { groupByLabelKey: "app" } } } }), specSchema("propagationpolicies"), true, unacted as never);
  assert.deepEqual(item.object?.spec, { resourceSelectors: selector, placement: { workloadAffinity: { affinity: { groupByLabelKey: "app" } } } });
  assert.deepEqual(item.problems, ["spec.placement.workloadAffinity: carried over, but Flotilla does not act on it yet (PolicyFieldsSupported=False on its bindings)"]);
});

describe("migrate: OverridePolicy, ClusterOverridePolicy and ResourceInterpreterCustomization", () => {
  const rule = { targetCluster: { clusterNames: ["member1"] }, overriders: { imageOverrider: [{ component: "Registry", operator: "replace", value: "registry.eu" }], plaintext: [{ path: "/spec/replicas", operator: "replace", value: 3 }] } };
  const cases: { name: string; kind: string; plural: string; spec: Record<string, unknown>; wantSpec?: Record<string, unknown>; problems: RegExp[] }[] = [
    { name: "OverridePolicy rules with image and plaintext overriders are carried (a plaintext value of any type)", kind: "OverridePolicy", plural: "overridepolicies", spec: { resourceSelectors: selector, overrideRules: [rule] }, problems: [] },
    { name: "ClusterOverridePolicy, the deprecated top-level form", kind: "ClusterOverridePolicy", plural: "clusteroverridepolicies", spec: { targetCluster: { clusterNames: ["member1"] }, overriders: { labelsOverrider: [{ operator: "add", value: { tier: "eu" } }] } }, problems: [] },
    { name: "an overrider Flotilla lacks is dropped and reported", kind: "OverridePolicy", plural: "overridepolicies", spec: { overrideRules: [{ ...rule, overriders: { ...rule.overriders, magicOverrider: [{}] } }] }, wantSpec: { overrideRules: [rule] }, problems: [/^spec\.overrideRules\[\]\.overriders\.magicOverrider: not carried over/] },
    {
      name: "ResourceInterpreterCustomization: target and Lua carried",
      kind: "ResourceInterpreterCustomization",
      plural: "resourceinterpretercustomizations",
      spec: { target: { apiVersion: "apps.kruise.io/v1alpha1", kind: "CloneSet" }, customizations: { healthInterpretation: { luaScript: "function InterpretHealth(o) return true end" } } },
      problems: [],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const namespaced = c.kind === "OverridePolicy";
      const src: KubeObject = { apiVersion: c.kind.startsWith("Resource") ? "config.karmada.io/v1alpha1" : "policy.karmada.io/v1alpha1", kind: c.kind, metadata: { ...karmadaMeta }, spec: c.spec };
      const item = convertPolicy(src, specSchema(c.plural), namespaced);
      assert.deepEqual(item.object?.spec, c.wantSpec ?? c.spec);
      assert.equal(item.object?.metadata.namespace, namespaced ? "shop" : undefined, "a cluster-scoped kind has no namespace");
      assert.equal(item.problems.length, c.problems.length, item.problems.join("\n"));
      c.problems.forEach((re, i) => assert.match(item.problems[i] ?? "", re));
    });
  }
});

describe("migrate: resource templates", () => {
  const deployment: KubeObject = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { ...karmadaMeta, labels: { app: "web", "propagationpolicy.karmada.io/permanent-id": "9a3e", "resourcetemplate.karmada.io/managed-by": "x" }, annotations: { "propagationpolicy.karmada.io/name": "web", "propagationpolicy.karmada.io/namespace": "shop" }, ownerReferences: [{ apiVersion: "v1", kind: "X", name: "x", uid: "u" }], finalizers: ["f"] },
    spec: { replicas: 3, selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "nginx" }] } } },
    status: { replicas: 3 },
  };
  it("a Deployment is exported clean, its spec (pod template too) unchanged, and marked for adoption", () => {
    const item = convertTemplate(deployment, true);
    assert.deepEqual(item.object, { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: "shop", labels: { app: "web" }, annotations: { "flotilla.dev/adopt": "karmada" } }, spec: deployment.spec });
    assert.deepEqual(item.problems, []);
  });
  it("a Service loses the clusterIP Karmada's apiserver allocated; a cluster-scoped template has no namespace", () => {
    const svc = convertTemplate({ apiVersion: "v1", kind: "Service", metadata: { name: "web", namespace: "shop" }, spec: { clusterIP: "10.0.0.7", clusterIPs: ["10.0.0.7"], ports: [{ port: 80 }] } }, true);
    assert.deepEqual(svc.object?.spec, { ports: [{ port: 80 }] });
    const role = convertTemplate({ apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: "reader", namespace: "" }, rules: [] }, false);
    assert.equal(role.object?.metadata.namespace, undefined);
  });

  const cases: { name: string; sel: Record<string, unknown>; policyNamespace?: string; hit: boolean }[] = [
    { name: "by name", sel: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, policyNamespace: "shop", hit: true },
    { name: "another name", sel: { apiVersion: "apps/v1", kind: "Deployment", name: "api" }, policyNamespace: "shop", hit: false },
    { name: "another kind", sel: { apiVersion: "apps/v1", kind: "StatefulSet" }, policyNamespace: "shop", hit: false },
    { name: "a PropagationPolicy selects in its own namespace only", sel: { apiVersion: "apps/v1", kind: "Deployment" }, policyNamespace: "other", hit: false },
    { name: "by labels", sel: { apiVersion: "apps/v1", kind: "Deployment", labelSelector: { matchLabels: { app: "web" } } }, policyNamespace: "shop", hit: true },
    { name: "labels that do not match", sel: { apiVersion: "apps/v1", kind: "Deployment", labelSelector: { matchLabels: { app: "api" } } }, policyNamespace: "shop", hit: false },
    { name: "a ClusterPropagationPolicy's selector namespace", sel: { apiVersion: "apps/v1", kind: "Deployment", namespace: "shop" }, hit: true },
    { name: "a ClusterPropagationPolicy's selector of another namespace", sel: { apiVersion: "apps/v1", kind: "Deployment", namespace: "other" }, hit: false },
    { name: "a ClusterPropagationPolicy's selector with no namespace: every one", sel: { apiVersion: "apps/v1", kind: "Deployment" }, hit: true },
  ];
  const labelled = { ...deployment, metadata: { name: "web", namespace: "shop", labels: { app: "web" } } };
  for (const c of cases) it(`selects ${c.name}`, () => assert.equal(selects(c.sel as never, labelled, c.policyNamespace), c.hit));
});

describe("migrate: what is not converted, metadata, order", () => {
  it("a push-mode Cluster is reported; a pull-mode one is not", () => {
    assert.match(clusterProblem({ apiVersion: "cluster.karmada.io/v1alpha1", kind: "Cluster", metadata: { name: "m3" }, spec: { syncMode: "Push" } })?.problems[0] ?? "", /push-mode cluster: Flotilla has no push mode; install a Flotilla agent in m3/);
    assert.equal(clusterProblem({ apiVersion: "cluster.karmada.io/v1alpha1", kind: "Cluster", metadata: { name: "m1" }, spec: { syncMode: "Pull" } }), undefined);
  });
  it("a webhook interpreter is reported, with nothing to write", () => {
    const item = webhookProblem({ apiVersion: "config.karmada.io/v1alpha1", kind: "ResourceInterpreterWebhookConfiguration", metadata: { name: "w" } });
    assert.equal(item.object, undefined);
    assert.match(item.problems[0] ?? "", /webhook interpreters are not in Flotilla/);
  });
  it("Karmada's keys are every *.karmada.io/ and karmada.io/ key, nothing else", () => {
    for (const k of ["karmada.io/managed", "work.karmada.io/permanent-id", "resourcebinding.karmada.io/name", "propagationpolicy.karmada.io/permanent-id"]) assert.equal(isKarmadaKey(k), true, k);
    for (const k of ["app", "notkarmada.io/x", "example.com/karmada.io", "flotilla.dev/adopt"]) assert.equal(isKarmadaKey(k), false, k);
    assert.deepEqual(cleanMetadata({ name: "a", labels: { "karmada.io/managed": "true" } }, false), { name: "a" });
  });
  it("pruning keeps what a preserve-unknown-fields schema holds and what a map's schema holds", () => {
    const dropped: string[] = [];
    const schema: Schema = { properties: { free: { "x-kubernetes-preserve-unknown-fields": true }, map: { additionalProperties: { properties: { a: {} } } } } };
    assert.deepEqual(pruneToSchema({ free: { any: 1 }, map: { k: { a: 1, b: 2 } }, gone: 1 }, schema, "spec", dropped), { free: { any: 1 }, map: { k: { a: 1 } } });
    assert.deepEqual(dropped, ["spec.map.k.b", "spec.gone"]);
  });
  it("namespaces come first, overrides before templates, placing policies last", () => {
    const kinds = ["PropagationPolicy", "Deployment", "OverridePolicy", "Namespace", "ResourceInterpreterCustomization", "ClusterPropagationPolicy", "CustomResourceDefinition"];
    assert.deepEqual([...kinds].sort((a, b) => applyRank(a) - applyRank(b)), ["Namespace", "CustomResourceDefinition", "ResourceInterpreterCustomization", "OverridePolicy", "Deployment", "PropagationPolicy", "ClusterPropagationPolicy"]);
    const items = [{ source: { apiVersion: "", kind: "", name: "" }, object: { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "a", namespace: "b" } }, problems: [] }, { source: { apiVersion: "", kind: "", name: "" }, object: { apiVersion: "v1", kind: "Namespace", metadata: { name: "c" } }, problems: [] }, { source: { apiVersion: "", kind: "", name: "" }, object: { apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name: "a", namespace: "c" } }, problems: [] }];
    assert.deepEqual(namespacesFor(items).map((n) => n.metadata.name), ["b"], "c is a template of its own");
  });
});
