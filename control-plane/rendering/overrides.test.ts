import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster, KubeObject, OverridePolicy, ResourceSelector, RuleWithCluster } from "../../shared/api/types.ts";
import { applyOverrides, orderOverridePolicies, overridePolicyMatches } from "./overrides.ts";
import { SIDECAR, WEB, at, cop, deployment, member1, member2, op, rule, runFailCases, runOkCases } from "./overrides.fixtures.ts";

describe("overridePolicyMatches", () => {
  const web = deployment();
  const other: KubeObject = { ...deployment(), metadata: { namespace: "shop", name: "web", labels: { app: "web" } } };
  const clusterRole: KubeObject = { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: "reader" } };
  const byKind: ResourceSelector = { apiVersion: "apps/v1", kind: "Deployment" };
  const cases: { name: string; policy: OverridePolicy; template: KubeObject; want: boolean }[] = [
    { name: "OverridePolicy without selectors: a template in its namespace", policy: op("default", "p", []), template: web, want: true },
    { name: "OverridePolicy without selectors: not another namespace", policy: op("default", "p", []), template: other, want: false },
    { name: "OverridePolicy never matches a cluster-scoped template", policy: op("default", "p", []), template: clusterRole, want: false },
    { name: "OverridePolicy with an empty selector list is in scope like none", policy: op("default", "p", [], []), template: web, want: true },
    { name: "ClusterOverridePolicy without selectors: any namespace", policy: cop("c", []), template: other, want: true },
    { name: "ClusterOverridePolicy without selectors: cluster-scoped templates", policy: cop("c", []), template: clusterRole, want: true },
    { name: "selector by kind", policy: op("default", "p", [], [byKind]), template: web, want: true },
    { name: "selector by another kind", policy: op("default", "p", [], [{ apiVersion: "apps/v1", kind: "StatefulSet" }]), template: web, want: false },
    { name: "selector by another apiVersion", policy: op("default", "p", [], [{ apiVersion: "apps/v1beta1", kind: "Deployment" }]), template: web, want: false },
    { name: "selector by name", policy: op("default", "p", [], [{ ...byKind, name: "web" }]), template: web, want: true },
    { name: "selector by another name", policy: op("default", "p", [], [{ ...byKind, name: "api" }]), template: web, want: false },
    { name: "selector by labels", policy: op("default", "p", [], [{ ...byKind, labelSelector: { matchLabels: { app: "web" } } }]), template: web, want: true },
    { name: "selector by labels that do not match", policy: op("default", "p", [], [{ ...byKind, labelSelector: { matchLabels: { app: "api" } } }]), template: web, want: false },
    { name: "any one selector is enough", policy: op("default", "p", [], [{ ...byKind, name: "api" }, byKind]), template: web, want: true },
    { name: "OverridePolicy selector naming another namespace selects nothing", policy: op("default", "p", [], [{ ...byKind, namespace: "shop" }]), template: other, want: false },
    { name: "ClusterOverridePolicy selector by namespace", policy: cop("c", [], [{ ...byKind, namespace: "shop" }]), template: other, want: true },
    { name: "ClusterOverridePolicy selector by another namespace", policy: cop("c", [], [{ ...byKind, namespace: "shop" }]), template: web, want: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(overridePolicyMatches(c.policy, c.template), c.want);
    });
  }
});

describe("orderOverridePolicies", () => {
  it("puts ClusterOverridePolicy first, then namespace, then name, without touching the input", () => {
    const input = [op("shop", "a", []), cop("z", []), op("default", "b", []), cop("a", []), op("default", "a", [])];
    const before = structuredClone(input);
    const got = orderOverridePolicies(input).map((p) => `${p.kind}/${p.metadata.namespace ?? ""}/${p.metadata.name}`);
    assert.deepEqual(got, [
      "ClusterOverridePolicy//a",
      "ClusterOverridePolicy//z",
      "OverridePolicy/default/a",
      "OverridePolicy/default/b",
      "OverridePolicy/shop/a",
    ]);
    assert.deepEqual(input, before);
  });
});

describe("applyOverrides: rule targeting", () => {
  const replicas = (n: number, targetCluster?: RuleWithCluster["targetCluster"]): RuleWithCluster => ({
    ...(targetCluster ? { targetCluster } : {}),
    overriders: { plaintext: [{ path: "/spec/replicas", value: n }] },
  });
  const cases: { name: string; rules: RuleWithCluster[]; cluster: Cluster; replicas: number; applied: string[] }[] = [
    { name: "no targetCluster: every cluster", rules: [replicas(5)], cluster: member2, replicas: 5, applied: ["OverridePolicy/default/web rule 0"] },
    { name: "empty targetCluster: every cluster", rules: [replicas(5, {})], cluster: member2, replicas: 5, applied: ["OverridePolicy/default/web rule 0"] },
    { name: "by name: the named cluster", rules: [replicas(5, { clusterNames: ["member1"] })], cluster: member1, replicas: 5, applied: ["OverridePolicy/default/web rule 0"] },
    { name: "by name: another cluster is untouched", rules: [replicas(5, { clusterNames: ["member1"] })], cluster: member2, replicas: 3, applied: [] },
    { name: "by labels", rules: [replicas(5, { labelSelector: { matchLabels: { env: "dev" } } })], cluster: member2, replicas: 5, applied: ["OverridePolicy/default/web rule 0"] },
    { name: "by labels: no match", rules: [replicas(5, { labelSelector: { matchLabels: { env: "dev" } } })], cluster: member1, replicas: 3, applied: [] },
    { name: "by fields", rules: [replicas(5, { fieldSelector: { matchExpressions: [{ key: "provider", operator: "In", values: ["gcp"] }] } })], cluster: member2, replicas: 5, applied: ["OverridePolicy/default/web rule 0"] },
    { name: "by fields: no match", rules: [replicas(5, { fieldSelector: { matchExpressions: [{ key: "region", operator: "NotIn", values: ["us-east-1"] }] } })], cluster: member1, replicas: 3, applied: [] },
    { name: "exclude", rules: [replicas(5, { exclude: ["member1"] })], cluster: member1, replicas: 3, applied: [] },
    {
      name: "only the rules that match run, in rule order",
      rules: [replicas(5, { clusterNames: ["member1"] }), replicas(6, { clusterNames: ["member2"] }), replicas(7, { labelSelector: { matchLabels: { env: "prod" } } })],
      cluster: member1,
      replicas: 7,
      applied: ["OverridePolicy/default/web rule 0", "OverridePolicy/default/web rule 2"],
    },
    {
      name: "a failing rule for another cluster does not run",
      rules: [{ targetCluster: { clusterNames: ["member2"] }, overriders: { plaintext: [{ path: "/nope", operator: "remove" }] } }, replicas(4)],
      cluster: member1,
      replicas: 4,
      applied: ["OverridePolicy/default/web rule 1"],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const result = applyOverrides(deployment(), c.cluster, [op("default", "web", c.rules)]);
      assert.ok(result.ok, result.ok ? "" : result.message);
      assert.equal(at(result.object, "/spec/replicas"), c.replicas);
      assert.deepEqual(result.applied, c.applied);
    });
  }
});

describe("applyOverrides: order", () => {
  const set = (n: number): RuleWithCluster => ({ overriders: { plaintext: [{ path: "/spec/replicas", value: n }] } });
  runOkCases([
    {
      name: "a ClusterOverridePolicy runs first, so an OverridePolicy's value wins",
      policies: [op("default", "a", [set(5)]), cop("z", [set(2)])],
      want: { "/spec/replicas": 5 },
      applied: ["ClusterOverridePolicy//z rule 0", "OverridePolicy/default/a rule 0"],
    },
    {
      name: "policies of one scope run by name, so the last name wins",
      policies: [op("default", "b", [set(6)]), op("default", "a", [set(5)])],
      want: { "/spec/replicas": 6 },
      applied: ["OverridePolicy/default/a rule 0", "OverridePolicy/default/b rule 0"],
    },
    { name: "rules of one policy run in order", policies: [op("default", "web", [set(5), set(8)])], want: { "/spec/replicas": 8 } },
    {
      name: "within a rule the image overrider runs before plaintext",
      policies: rule({ plaintext: [{ path: `${WEB}/image`, value: "nginx:2" }], imageOverrider: [{ component: "Tag", operator: "replace", value: "3" }] }),
      want: { [`${WEB}/image`]: "nginx:2", [`${SIDECAR}/image`]: "registry.k8s.io/pause:3" },
    },
    {
      name: "within a rule labels run before plaintext, which sees their result",
      policies: rule({ plaintext: [{ path: "/metadata/labels/tier", operator: "remove" }], labelsOverrider: [{ operator: "add", value: { tier: "front", zone: "a" } }] }),
      want: { "/metadata/labels": { app: "web", zone: "a" } },
    },
    {
      name: "within a rule command runs before args, args before labels",
      policies: rule({ labelsOverrider: [{ operator: "add", value: { x: "1" } }], argsOverrider: [{ containerName: "web", operator: "add", value: ["a"] }], commandOverrider: [{ containerName: "web", operator: "add", value: ["c"] }] }),
      want: { [`${WEB}/command`]: ["nginx", "c"], [`${WEB}/args`]: ["-g", "daemon off;", "a"], "/metadata/labels/x": "1" },
    },
  ]);
});

describe("applyOverrides: failures", () => {
  runFailCases([
    {
      name: "a ClusterOverridePolicy is named without a namespace",
      policies: [cop("global", [{ overriders: { plaintext: [{ path: "/spec/x", operator: "remove" }] } }])],
      message: "ClusterOverridePolicy global rule 0 plaintext[0]: path /spec/x does not exist",
    },
    {
      name: "a failure in a later policy fails the whole object",
      policies: [cop("a", [{ overriders: { plaintext: [{ path: "/spec/replicas", value: 2 }] } }]), op("default", "b", [{ overriders: {} }, { overriders: { plaintext: [{ path: "/spec/nope", value: 1 }] } }])],
      message: "OverridePolicy default/b rule 1 plaintext[0]: path /spec/nope does not exist",
    },
    { name: "a malformed overrider list fails", policies: rule({ plaintext: "x" as unknown as [] }), message: "OverridePolicy default/web rule 0 plaintext: not a list" },
    { name: "a malformed overrider fails", policies: rule({ labelsOverrider: [null as unknown as { operator: "add" }] }), message: "OverridePolicy default/web rule 0 labelsOverrider[0]: not an object" },
    { name: "malformed overrideRules fail", policies: [{ ...op("default", "web", []), spec: { overrideRules: {} as [] } }], message: "OverridePolicy default/web: spec.overrideRules is not a list" },
    { name: "a malformed rule fails", policies: [op("default", "web", [7 as unknown as RuleWithCluster])], message: "OverridePolicy default/web rule 0: not an object" },
  ]);

  it("never throws on a malformed targetCluster", () => {
    const bad = op("default", "web", [{ targetCluster: { exclude: 5 as unknown as string[] }, overriders: {} }]);
    const result = applyOverrides(deployment(), member1, [bad]);
    assert.equal(result.ok, false);
    assert.match(result.ok ? "" : result.message, /^OverridePolicy default\/web rule 0: \S/);
  });
});

describe("applyOverrides: purity", () => {
  const policies = [
    cop("mirror", [{ overriders: { imageOverrider: [{ component: "Registry", operator: "replace", value: "mirror.io" }] } }]),
    op("default", "web", [
      { targetCluster: { clusterNames: ["member1"] }, overriders: { plaintext: [{ path: "/metadata/labels", value: { fresh: "1" } }], commandOverrider: [{ containerName: "web", operator: "add", value: ["-t"] }] } },
      { overriders: { labelsOverrider: [{ operator: "add", value: { more: "2" } }], annotationsOverrider: [{ operator: "remove", value: { note: "" } }] } },
    ]),
  ];

  it("mutates neither the object nor the policies, and shares nothing with them", () => {
    const obj = deployment();
    const objBefore = structuredClone(obj);
    const policiesBefore = structuredClone(policies);
    const result = applyOverrides(obj, member1, policies);
    assert.ok(result.ok);
    assert.deepEqual(obj, objBefore);
    assert.deepEqual(policies, policiesBefore);
    // The labels came from a plaintext value, then a labelsOverrider added to them: the policy's value is untouched.
    assert.deepEqual(result.object.metadata.labels, { fresh: "1", more: "2" });
    assert.notEqual(result.object, obj);
  });

  it("leaves the input alone when it fails", () => {
    const obj = deployment();
    const objBefore = structuredClone(obj);
    const result = applyOverrides(obj, member1, [...policies, op("default", "zz", [{ overriders: { plaintext: [{ path: "/spec/replicaz", value: 1 }] } }])]);
    assert.equal(result.ok, false);
    assert.deepEqual(obj, objBefore);
  });

  it("without policies returns an equal copy", () => {
    const obj = deployment();
    const result = applyOverrides(obj, member1, []);
    assert.ok(result.ok);
    assert.deepEqual(result.object, obj);
    assert.notEqual(result.object, obj);
    assert.deepEqual(result.applied, []);
  });

  it("gives the same answer every time, whatever order the policies come in", () => {
    const first = applyOverrides(deployment(), member1, policies);
    const again = applyOverrides(deployment(), member1, [...policies].reverse());
    assert.deepEqual(again, first);
    assert.deepEqual(applyOverrides(deployment(), member1, policies), first);
  });

  it("gives each cluster its own rules", () => {
    const one = applyOverrides(deployment(), member1, policies);
    const two = applyOverrides(deployment(), member2, policies);
    assert.ok(one.ok && two.ok);
    assert.deepEqual(at(one.object, `${WEB}/command`), ["nginx", "-t"]);
    assert.deepEqual(at(two.object, `${WEB}/command`), ["nginx"]);
    assert.deepEqual(two.object.metadata.labels, { app: "web", more: "2" });
    assert.deepEqual(two.applied, ["ClusterOverridePolicy//mirror rule 0", "OverridePolicy/default/web rule 1"]);
  });
});
