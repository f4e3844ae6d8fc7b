import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../shared/api/types.ts";
import { defaultPolicyName, notPromotable, promotionPolicy, templateOf } from "./promotion.ts";

const live = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: {
    name: "web",
    namespace: "shop",
    uid: "1234",
    resourceVersion: "99",
    generation: 3,
    creationTimestamp: "2026-01-01T00:00:00Z",
    managedFields: [{ manager: "kubectl" }],
    labels: { app: "web" },
    annotations: { "deployment.kubernetes.io/revision": "3", "kubectl.kubernetes.io/last-applied-configuration": "{}", team: "blue" },
  },
  spec: { replicas: 2, template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "nginx", terminationMessagePath: "/dev/termination-log" }] } } },
  status: { replicas: 2, availableReplicas: 2 },
} as KubeObject;

describe("templateOf", () => {
  it("drops what the member's apiserver and controllers set, keeps the spec as it runs (defaults too: no rollout)", () => {
    const t = templateOf(live);
    assert.deepEqual(t, {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", namespace: "shop", labels: { app: "web" }, annotations: { team: "blue" } },
      spec: live.spec,
    });
    assert.equal(live.metadata.uid, "1234", "the input is not changed");
  });
  it("leaves no empty annotations", () => {
    const t = templateOf({ ...live, metadata: { name: "web", namespace: "shop", annotations: { "deployment.kubernetes.io/revision": "1" } } });
    assert.equal(t.metadata.annotations, undefined);
  });
});

describe("notPromotable", () => {
  const cases: { name: string; labels?: Record<string, string>; owned?: boolean; want: RegExp | undefined }[] = [
    { name: "a plain object: promotable", want: undefined },
    { name: "already Flotilla's", labels: { "flotilla.dev/work": "x" }, want: /already propagated by Flotilla/ },
    { name: "managed=false", labels: { "flotilla.dev/managed": "false" }, want: /leaves it alone/ },
    { name: "owned by another object", owned: true, want: /promote its owner instead/ },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const o: KubeObject = { ...live, metadata: { ...live.metadata, labels: c.labels ?? {}, ...(c.owned ? { ownerReferences: [{ apiVersion: "v1", kind: "X", name: "x", uid: "1" }] } : {}) } };
      const got = notPromotable(o, "member1");
      if (c.want === undefined) assert.equal(got, undefined);
      else assert.match(got ?? "", c.want);
    });
  }
});

describe("promotionPolicy", () => {
  it("places exactly the object on exactly the cluster, Overwrite, keeping the member's object on template deletion", () => {
    const p = promotionPolicy(templateOf(live), "member1", "web-promoted");
    assert.deepEqual(p, {
      apiVersion: "flotilla.dev/v1alpha1",
      kind: "PropagationPolicy",
      metadata: { name: "web-promoted", namespace: "shop" },
      spec: {
        resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "web" }],
        placement: { clusterAffinity: { clusterNames: ["member1"] } },
        conflictResolution: "Overwrite",
        preserveResourcesOnDeletion: true,
      },
    });
  });
  it("a cluster-scoped object gets a ClusterPropagationPolicy", () => {
    const p = promotionPolicy({ apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: "reader" } }, "member1", "reader-x");
    assert.equal(p.kind, "ClusterPropagationPolicy");
    assert.equal(p.metadata.namespace, undefined);
  });
  it("names the policy after the object, with a digest of what it is", () => {
    const a = defaultPolicyName("apps/v1", "Deployment", "shop", "web");
    assert.match(a, /^web-[0-9a-f]{8}$/);
    assert.notEqual(a, defaultPolicyName("v1", "Service", "shop", "web"));
    assert.equal(a, defaultPolicyName("apps/v1", "Deployment", "shop", "web"));
  });
});
