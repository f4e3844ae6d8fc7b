import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type KubeObject, LABELS, type PropagationPolicy, type PropagationSpec, type ResourceBinding } from "../../shared/api/types.ts";
import { activePolicy, policyHold, templateStamp } from "./policy-activation.ts";

const policy = (spec: Partial<PropagationSpec>, kind: PropagationPolicy["kind"] = "PropagationPolicy"): PropagationPolicy => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind,
  metadata: { name: "p", ...(kind === "PropagationPolicy" ? { namespace: "ns" } : {}) },
  spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment" }], ...spec },
});
const web: KubeObject = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: "ns", labels: { app: "web" }, resourceVersion: "5" }, spec: { replicas: 2 } };
const binding = (annotations: Record<string, string>, spec: Partial<ResourceBinding["spec"]>, policyName = "p"): ResourceBinding => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "ResourceBinding",
  metadata: { name: "web-deployment", namespace: "ns", labels: { [LABELS.policyName]: policyName, [LABELS.policyNamespace]: "ns" }, annotations },
  spec: { resource: { apiVersion: "apps/v1", kind: "Deployment", name: "web", namespace: "ns", uid: "u" }, clusters: [{ name: "member1" }], ...spec },
});

describe("policyHold", () => {
  const cases: { what: string; spec: Partial<PropagationSpec>; kind?: PropagationPolicy["kind"]; exists?: string[]; reason?: string; message?: RegExp }[] = [
    { what: "no schedulerName", spec: {} },
    { what: "Karmada's default scheduler", spec: { schedulerName: "default-scheduler" } },
    { what: "another scheduler", spec: { schedulerName: "my-scheduler" }, reason: "SchedulerNameNotServed", message: /PropagationPolicy ns\/p asks for schedulerName "my-scheduler"; Flotilla serves only "default-scheduler"/ },
    { what: "dependentOverrides all present", spec: { dependentOverrides: ["a", "b"] }, exists: ["a", "b"] },
    { what: "one dependent override missing", spec: { dependentOverrides: ["b", "a"] }, exists: ["a"], reason: "DependentOverridesMissing", message: /waits for its dependentOverrides: OverridePolicy b not found; the template keeps what it has until it exists/ },
    { what: "a ClusterPropagationPolicy's missing ClusterOverridePolicies, once each, sorted", kind: "ClusterPropagationPolicy", spec: { dependentOverrides: ["z", "y", "z"] }, reason: "DependentOverridesMissing", message: /^ClusterPropagationPolicy p waits for its dependentOverrides: ClusterOverridePolicy y, z not found; .* until they exist$/ },
    { what: "the scheduler is judged first", spec: { schedulerName: "x", dependentOverrides: ["a"] }, reason: "SchedulerNameNotServed" },
    { what: "a schedulePriority whose PriorityClass exists", spec: { schedulePriority: { priorityClassSource: "KubePriorityClass", priorityClassName: "high" } } },
    { what: "a schedulePriority whose PriorityClass does not exist", spec: { schedulePriority: { priorityClassSource: "KubePriorityClass", priorityClassName: "nope" } }, reason: "PriorityClassNotFound", message: /takes its schedulePriority from PriorityClass nope, which does not exist in the control cluster/ },
  ];
  for (const c of cases) {
    it(c.what, () => {
      const hold = policyHold(policy(c.spec, c.kind), (n) => (c.exists ?? []).includes(n), (n) => (n === "high" ? 1000 : undefined));
      assert.equal(hold?.reason, c.reason);
      if (c.message) assert.match(hold?.message ?? "", c.message);
    });
  }
});

describe("activePolicy", () => {
  const lazy = policy({ activationPreference: "Lazy", placement: { clusterAffinity: { clusterNames: ["member2"] } }, conflictResolution: "Abort" });
  const followed = { placement: { clusterAffinity: { clusterNames: ["member1"] } }, conflictResolution: "Overwrite" as const, propagateDeps: true };

  it("association acts as propagateDeps (Karmada's deprecated form)", () => {
    assert.equal(activePolicy(policy({ association: true }), web, undefined).policy.spec.propagateDeps, true);
    assert.equal(activePolicy(policy({ association: true, propagateDeps: false }), web, undefined).policy.spec.propagateDeps, false, "an explicit propagateDeps wins");
  });
  it("takes effect at once without Lazy, and records no stamp", () => {
    const a = activePolicy(policy({ placement: { clusterAffinity: { clusterNames: ["member2"] } } }), web, binding({ [LABELS.templateStamp]: templateStamp(web) }, followed));
    assert.equal(a.deferred, false);
    assert.equal(a.stamp, undefined);
    assert.deepEqual(a.policy.spec.placement, { clusterAffinity: { clusterNames: ["member2"] } });
  });
  it("Lazy, first binding: the policy as it is, and the template's stamp", () => {
    const a = activePolicy(lazy, web, undefined);
    assert.equal(a.deferred, false);
    assert.equal(a.stamp, templateStamp(web));
    assert.deepEqual(a.policy.spec.placement, lazy.spec.placement);
  });
  it("Lazy, template unchanged since the binding followed the policy: the binding's placement fields", () => {
    const a = activePolicy(lazy, web, binding({ [LABELS.templateStamp]: templateStamp(web) }, followed));
    assert.equal(a.deferred, true);
    assert.deepEqual(a.policy.spec.placement, followed.placement);
    assert.equal(a.policy.spec.conflictResolution, "Overwrite");
    assert.equal(a.policy.spec.propagateDeps, true);
    assert.equal(a.policy.spec.activationPreference, "Lazy", "the policy's other fields are its own");
  });
  it("Lazy, the template changed: the policy as it is now", () => {
    const changed = { ...web, spec: { replicas: 3 } };
    const a = activePolicy(lazy, changed, binding({ [LABELS.templateStamp]: templateStamp(web) }, followed));
    assert.equal(a.deferred, false);
    assert.equal(a.stamp, templateStamp(changed));
    assert.deepEqual(a.policy.spec.placement, lazy.spec.placement);
  });
  it("Lazy, a binding another policy made: the policy as it is now", () => {
    const a = activePolicy(lazy, web, binding({ [LABELS.templateStamp]: templateStamp(web) }, followed, "other"));
    assert.equal(a.deferred, false);
  });
});

describe("templateStamp", () => {
  const cases: { what: string; change: (t: KubeObject) => KubeObject; same: boolean }[] = [
    { what: "a status write", change: (t) => ({ ...t, status: { readyReplicas: 2 } }) as KubeObject, same: true },
    { what: "a new resourceVersion", change: (t) => ({ ...t, metadata: { ...t.metadata, resourceVersion: "9" } }), same: true },
    { what: "Flotilla's own annotation", change: (t) => ({ ...t, metadata: { ...t.metadata, annotations: { "flotilla.dev/x": "1" } } }), same: true },
    { what: "a spec change", change: (t) => ({ ...t, spec: { replicas: 9 } }), same: false },
    { what: "a label change", change: (t) => ({ ...t, metadata: { ...t.metadata, labels: { app: "web", tier: "x" } } }), same: false },
    { what: "a user's annotation", change: (t) => ({ ...t, metadata: { ...t.metadata, annotations: { note: "x" } } }), same: false },
  ];
  for (const c of cases) it(`${c.same ? "ignores" : "sees"} ${c.what}`, () => assert.equal(templateStamp(c.change(web)) === templateStamp(web), c.same));
});
