import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster, KubeObject, PropagationPolicy } from "../../shared/api/types.ts";
import { BINDING_FINALIZER, bindingName, bindingUpToDate, desiredBinding, dispatchSuspended, suspensionHolds } from "./binding-spec.ts";

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
    assert.equal(b.metadata.name, "reader-clusterrole");
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
  });

  it("copies propagateDeps and preserveResourcesOnDeletion from the policy", () => {
    const b = desiredBinding(deployment, { ...policy, spec: { ...policy.spec, propagateDeps: true, preserveResourcesOnDeletion: true } }, dup(deployment, ["member1"]));
    assert.equal(b.spec.propagateDeps, true);
    assert.equal(b.spec.preserveResourcesOnDeletion, true);
    assert.equal(desiredBinding(deployment, policy, []).spec.propagateDeps, undefined);
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

  it("names bindings as Karmada does", () => {
    assert.equal(bindingName({ name: "nginx", kind: "Deployment" }), "nginx-deployment");
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
