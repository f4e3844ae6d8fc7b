import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type Cluster, type KubeObject, LABELS, type PropagationPolicy, type ResourceBinding } from "../../shared/api/types.ts";
import { BINDING_FINALIZER, bindingName, bindingUpToDate, bindsRef, desiredBinding, dispatchSuspended, isCurrentBinding, legacyBindingName, movedBinding, suspensionHolds, withoutEmptyMaps } from "./binding-spec.ts";

const deployment: KubeObject = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: "default", uid: "u1", resourceVersion: "7" },
  spec: { replicas: 3 },
};
const clusterRole: KubeObject = { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: "reader", uid: "u2" } };
const policy: PropagationPolicy = {
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "PropagationPolicy",
  metadata: { name: "p", namespace: "default" },
  spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment" }], conflictResolution: "Overwrite" },
};
/** Duplicated targets: every cluster gets the template's replicas. */
const dup = (t: KubeObject, names: string[]) => names.map((name) => (typeof (t.spec as { replicas?: number } | undefined)?.replicas === "number" ? { name, replicas: (t.spec as { replicas: number }).replicas } : { name }));
const cpolicy: PropagationPolicy = { ...policy, kind: "ClusterPropagationPolicy", metadata: { name: "cp" }, spec: { resourceSelectors: [] } };

describe("desiredBinding", () => {
  it("binds a namespaced workload: every cluster gets the template's replicas, sorted", () => {
    const b = desiredBinding(deployment, policy, dup(deployment, ["member2", "member1"]));
    assert.equal(b.kind, "ResourceBinding");
    assert.equal(b.metadata.name, "web-deployment");
    assert.equal(b.metadata.namespace, "default");
    assert.deepEqual(b.metadata.finalizers, [BINDING_FINALIZER]);
    assert.deepEqual(b.metadata.ownerReferences?.[0], { apiVersion: "apps/v1", kind: "Deployment", name: "web", uid: "u1", controller: true, blockOwnerDeletion: true });
    assert.deepEqual(b.spec.clusters, [{ name: "member1", replicas: 3 }, { name: "member2", replicas: 3 }]);
    assert.equal(b.spec.replicas, 3);
    assert.equal(b.spec.conflictResolution, "Overwrite");
    assert.deepEqual(b.metadata.labels, { "flotilla.dev/policy-name": "p", "flotilla.dev/policy-namespace": "default" });
  });

  it("binds a cluster-scoped object with a ClusterResourceBinding and no replicas", () => {
    const b = desiredBinding(clusterRole, cpolicy, dup(clusterRole, ["member1"]));
    assert.equal(b.kind, "ClusterResourceBinding");
    assert.equal(b.metadata.namespace, undefined);
    assert.match(b.metadata.name ?? "", /^reader-clusterrole-[0-9a-f]{8}$/); // rbac.authorization.k8s.io has a dot: its digest is part of the name
    assert.deepEqual(b.spec.clusters, [{ name: "member1" }]);
    assert.equal(b.spec.conflictResolution, "Abort");
    assert.equal(b.spec.resource.namespace, undefined);
  });

  it("does not depend on the template's resourceVersion (no binding write per template edit)", () => {
    const a = desiredBinding(deployment, policy, dup(deployment, ["member1"]));
    const b = desiredBinding({ ...deployment, metadata: { ...deployment.metadata, resourceVersion: "8" } }, policy, dup({ ...deployment, metadata: { ...deployment.metadata, resourceVersion: "8" } }, ["member1"]));
    assert.ok(bindingUpToDate(a, b));
  });

  it("sees placement, replica and policy changes as out of date", () => {
    const base = desiredBinding(deployment, policy, dup(deployment, ["member1"]));
    assert.ok(!bindingUpToDate(base, desiredBinding(deployment, policy, dup(deployment, ["member1", "member2"]))));
    assert.ok(!bindingUpToDate(base, desiredBinding({ ...deployment, spec: { replicas: 4 } }, policy, dup({ ...deployment, spec: { replicas: 4 } }, ["member1"]))));
    assert.ok(!bindingUpToDate(base, desiredBinding(deployment, { ...policy, metadata: { name: "q", namespace: "default" } }, dup(deployment, ["member1"]))));
    // What a workload requires (issue 37): a change is written, so the hub judges on it.
    const requiring = { ...base, metadata: { ...base.metadata, annotations: { [LABELS.requires]: "core/v1/ConfigMap/default/conf" } } };
    assert.ok(!bindingUpToDate(base, requiring));
    assert.ok(bindingUpToDate(requiring, structuredClone(requiring)));
    // A placement not decided, and then decided: the word is written and taken off.
    const unknown = { ...base, metadata: { ...base.metadata, annotations: { [LABELS.placementUnknown]: "QuotaExceeded" } } };
    assert.ok(!bindingUpToDate(base, unknown));
    assert.ok(!bindingUpToDate(unknown, base));
  });

  it("copies propagateDeps and preserveResourcesOnDeletion from the policy", () => {
    const b = desiredBinding(deployment, { ...policy, spec: { ...policy.spec, propagateDeps: true, preserveResourcesOnDeletion: true } }, dup(deployment, ["member1"]));
    assert.equal(b.spec.propagateDeps, true);
    assert.equal(b.spec.preserveResourcesOnDeletion, true);
    assert.equal(desiredBinding(deployment, policy, []).spec.propagateDeps, undefined);
  });

  it("copies the policy's rollout (issue 23); `rollout: {}` is a rollout with every default", () => {
    const rollout = { groups: [{ name: "canary", clusterNames: ["member1"] }], minSuccessTime: "30s", onFailure: "Rollback" as const };
    assert.deepEqual(desiredBinding(deployment, { ...policy, spec: { ...policy.spec, rollout } }, dup(deployment, ["member1"])).spec.rollout, rollout);
    assert.deepEqual(desiredBinding(deployment, { ...policy, spec: { ...policy.spec, rollout: {} } }, dup(deployment, ["member1"])).spec.rollout, { onFailure: "Pause" });
    assert.equal(desiredBinding(deployment, policy, []).spec.rollout, undefined);
  });

  describe("a dependency (requiredBy)", () => {
    const cm: KubeObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "conf", namespace: "default", uid: "u3" } };
    const cases: { name: string; policy?: PropagationPolicy; scheduled: string[]; requiredBy: { name: string; clusters: string[]; conflictResolution?: "Abort" | "Overwrite" }[]; clusters: string[]; conflict: string; labels: Record<string, string> }[] = [
      { name: "goes to the union of the clusters of the bindings that need it", scheduled: [], requiredBy: [{ name: "web-deployment", clusters: ["m2", "m1"] }, { name: "api-deployment", clusters: ["m3", "m1"] }], clusters: ["m1", "m2", "m3"], conflict: "Abort", labels: {} },
      { name: "Overwrite only when every binding that needs it says Overwrite", scheduled: [], requiredBy: [{ name: "a", clusters: ["m1"], conflictResolution: "Overwrite" }, { name: "b", clusters: ["m1"], conflictResolution: "Overwrite" }], clusters: ["m1"], conflict: "Overwrite", labels: {} },
      { name: "one Abort keeps Abort", scheduled: [], requiredBy: [{ name: "a", clusters: ["m1"], conflictResolution: "Overwrite" }, { name: "b", clusters: ["m1"] }], clusters: ["m1"], conflict: "Abort", labels: {} },
      { name: "its own policy's clusters and the needed ones", policy, scheduled: ["m4"], requiredBy: [{ name: "a", clusters: ["m1"] }], clusters: ["m1", "m4"], conflict: "Overwrite", labels: { "flotilla.dev/policy-name": "p", "flotilla.dev/policy-namespace": "default" } },
    ];
    for (const c of cases) {
      it(c.name, () => {
        const b = desiredBinding(cm, c.policy, c.scheduled.map((name) => ({ name })), c.requiredBy);
        assert.deepEqual(b.spec.clusters.map((t) => t.name), c.clusters);
        assert.equal(b.spec.conflictResolution, c.conflict);
        assert.deepEqual(b.metadata.labels, c.labels);
        assert.deepEqual(b.spec.requiredBy?.map((r) => r.name), [...c.requiredBy.map((r) => r.name)].sort());
      });
    }
    it("records requiredBy in a stable order (no write when only the order of discovery differs)", () => {
      const a = desiredBinding(cm, undefined, [], [{ name: "x", clusters: ["m2", "m1"] }, { name: "y", clusters: ["m1"] }]);
      const b = desiredBinding(cm, undefined, [], [{ name: "y", clusters: ["m1"] }, { name: "x", clusters: ["m1", "m2"] }]);
      assert.ok(bindingUpToDate(a, b));
    });
  });

  describe("binding names: keyed by group, kind and name", () => {
    const widget = (apiVersion: string, name = "web") => ({ apiVersion, kind: "Widget", name });
    const cases: { name: string; ref: { apiVersion: string; kind: string; name: string }; want: string | RegExp }[] = [
      { name: "apps keeps Karmada's <name>-<kind>", ref: { apiVersion: "apps/v1", name: "nginx", kind: "Deployment" }, want: "nginx-deployment" },
      { name: "the core group keeps it too", ref: { apiVersion: "v1", name: "conf", kind: "ConfigMap" }, want: "conf-configmap" },
      { name: "batch (no dot in the group) keeps it", ref: { apiVersion: "batch/v1", name: "job", kind: "Job" }, want: "job-job" },
      { name: "a CRD's group adds its digest", ref: widget("alpha.example/v1"), want: /^web-widget-[0-9a-f]{8}$/ },
      { name: "a built-in dotted group adds its digest", ref: { apiVersion: "networking.k8s.io/v1", name: "web", kind: "Ingress" }, want: /^web-ingress-[0-9a-f]{8}$/ },
    ];
    for (const c of cases) {
      it(c.name, () => {
        const got = bindingName(c.ref);
        if (typeof c.want === "string") assert.equal(got, c.want);
        else assert.match(got, c.want);
      });
    }
    it("one kind and name in two groups gets two bindings; two versions of one group, one", () => {
      assert.notEqual(bindingName(widget("alpha.example/v1")), bindingName(widget("beta.example/v1")));
      assert.equal(bindingName(widget("alpha.example/v1")), bindingName(widget("alpha.example/v2")));
    });
    it("a name past 253 characters is cut and stays unique", () => {
      const long = (suffix: string) => bindingName(widget("alpha.example/v1", `${"a".repeat(250)}${suffix}`));
      assert.ok(long("x").length <= 253);
      assert.notEqual(long("x"), long("y"));
      assert.match(long("x"), /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/);
    });
    it("the legacy name is what earlier versions gave every group", () => {
      assert.equal(legacyBindingName(widget("alpha.example/v1")), "web-widget");
    });
    it("a binding is current only under its own name and for its own group", () => {
      const bound = (name: string, apiVersion: string): ResourceBinding => ({
        apiVersion: "flotilla.dev/v1alpha1",
        kind: "ResourceBinding",
        metadata: { name, namespace: "default" },
        spec: { resource: { apiVersion, kind: "Widget", namespace: "default", name: "web" }, clusters: [] },
      });
      assert.ok(isCurrentBinding(bound(bindingName(widget("alpha.example/v1")), "alpha.example/v1")));
      assert.ok(!isCurrentBinding(bound("web-widget", "alpha.example/v1")));
      assert.ok(!isCurrentBinding(bound(bindingName(widget("alpha.example/v1")), "beta.example/v1")));
      assert.ok(bindsRef(bound("web-widget", "alpha.example/v1"), widget("alpha.example/v2")));
      assert.ok(!bindsRef(bound("web-widget", "alpha.example/v1"), widget("beta.example/v1")));
    });
    it("a moved binding keeps spec, Flotilla's labels, owner and finalizer under the new name", () => {
      const legacy: ResourceBinding = {
        apiVersion: "flotilla.dev/v1alpha1",
        kind: "ResourceBinding",
        metadata: { name: "web-widget", namespace: "default", uid: "u1", resourceVersion: "7", labels: { "flotilla.dev/policy-name": "p", other: "x" }, finalizers: [BINDING_FINALIZER], ownerReferences: [{ apiVersion: "alpha.example/v1", kind: "Widget", name: "web", uid: "t1", controller: true }] },
        spec: { resource: { apiVersion: "alpha.example/v1", kind: "Widget", namespace: "default", name: "web", uid: "t1" }, clusters: [{ name: "member1" }] },
        status: { aggregatedStatus: [{ clusterName: "member1", applied: true }] },
      };
      const moved = movedBinding(legacy, "web-widget-0123abcd");
      assert.deepEqual(moved, {
        apiVersion: "flotilla.dev/v1alpha1",
        kind: "ResourceBinding",
        metadata: { name: "web-widget-0123abcd", namespace: "default", labels: { "flotilla.dev/policy-name": "p" }, finalizers: [BINDING_FINALIZER], ownerReferences: legacy.metadata.ownerReferences },
        spec: legacy.spec,
      });
      // A placement never decided stays so under the new name.
      const unknown = { ...legacy, metadata: { ...legacy.metadata, annotations: { [LABELS.placementUnknown]: "DependentOverridesMissing", other: "x" } } };
      assert.deepEqual(movedBinding(unknown, "web-widget-0123abcd").metadata.annotations, { [LABELS.placementUnknown]: "DependentOverridesMissing" });
    });
  });

  it("copies the policy's suspension, and says which clusters it freezes", () => {
    const all = desiredBinding(deployment, { ...policy, spec: { ...policy.spec, suspension: { dispatching: true } } }, dup(deployment, ["member1"]));
    assert.ok(dispatchSuspended(all.spec, "member1"));
    const some = desiredBinding(deployment, { ...policy, spec: { ...policy.spec, suspension: { dispatchingOnClusters: { clusterNames: ["member2"] } } } }, dup(deployment, ["member1", "member2"]));
    assert.deepEqual(["member1", "member2"].map((c) => dispatchSuspended(some.spec, c)), [false, true]);
    assert.ok(!dispatchSuspended(desiredBinding(deployment, policy, dup(deployment, ["member1"])).spec, "member1"));
    assert.ok(!bindingUpToDate(some, desiredBinding(deployment, policy, dup(deployment, ["member1", "member2"]))), "lifting it is a change");
  });

  it("suspension holds a cluster's Work, except for a cluster that is leaving or gone", () => {
    const spec = desiredBinding(deployment, { ...policy, spec: { ...policy.spec, suspension: { dispatching: true } } }, dup(deployment, ["member1"])).spec;
    const cluster = (deleting: boolean): Cluster => ({ apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name: "member1", ...(deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}) }, spec: {} });
    assert.equal(suspensionHolds(spec, cluster(false)), true);
    assert.equal(suspensionHolds(spec, cluster(true)), false, "unjoining");
    assert.equal(suspensionHolds(spec, undefined), false, "gone");
    assert.equal(suspensionHolds(desiredBinding(deployment, policy, dup(deployment, ["member1"])).spec, cluster(false)), false, "not suspended");
  });
});

describe("withoutEmptyMaps", () => {
  it("drops empty maps at any depth outside lists, and keeps list items whole", () => {
    assert.deepEqual(
      withoutEmptyMaps({ replicaScheduling: { replicaSchedulingType: "Divided", weightPreference: {} }, clusterAffinity: { labelSelector: {} }, staticWeightList: [{ targetCluster: {}, weight: 1 }] }),
      { replicaScheduling: { replicaSchedulingType: "Divided" }, staticWeightList: [{ targetCluster: {}, weight: 1 }] },
    );
  });
  it("a policy whose weightPreference is {} gives a binding without it (a server-side apply over the old one stays valid)", () => {
    const p: PropagationPolicy = { ...policy, spec: { ...policy.spec, placement: { replicaScheduling: { replicaSchedulingType: "Divided", weightPreference: {} } } } };
    assert.deepEqual(desiredBinding(deployment, p, dup(deployment, ["member1"])).spec.placement, { replicaScheduling: { replicaSchedulingType: "Divided" } });
  });
});
