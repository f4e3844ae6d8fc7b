import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject, PropagationPolicy, ResourceSelector } from "../../shared/api/types.ts";
import type { Specificity } from "./policy-match.ts";
import { matchPolicy, policyKey, selectorMatches } from "./policy-match.ts";

function deployment(namespace: string | undefined, name: string, labels?: Record<string, string>): KubeObject {
  return { apiVersion: "apps/v1", kind: "Deployment", metadata: { namespace, name, labels } };
}

const clusterRole: KubeObject = {
  apiVersion: "rbac.authorization.k8s.io/v1",
  kind: "ClusterRole",
  metadata: { name: "reader", labels: { team: "a" } },
};

function pp(namespace: string, name: string, selectors: ResourceSelector[], extra: { priority?: number; deleting?: boolean } = {}): PropagationPolicy {
  return policy("PropagationPolicy", namespace, name, selectors, extra);
}

function cpp(name: string, selectors: ResourceSelector[], extra: { priority?: number; deleting?: boolean } = {}): PropagationPolicy {
  return policy("ClusterPropagationPolicy", undefined, name, selectors, extra);
}

function policy(
  kind: PropagationPolicy["kind"],
  namespace: string | undefined,
  name: string,
  resourceSelectors: ResourceSelector[],
  extra: { priority?: number; deleting?: boolean },
): PropagationPolicy {
  return {
    apiVersion: "flotilla.dev/v1alpha1",
    kind,
    metadata: { namespace, name, ...(extra.deleting ? { deletionTimestamp: "2025-01-01T00:00:00Z" } : {}) },
    spec: { resourceSelectors, ...(extra.priority !== undefined ? { priority: extra.priority } : {}) },
  };
}

const byKind: ResourceSelector = { apiVersion: "apps/v1", kind: "Deployment" };
const byName: ResourceSelector = { ...byKind, name: "web" };
const byLabels: ResourceSelector = { ...byKind, labelSelector: { matchLabels: { app: "web" } } };
const web = deployment("shop", "web", { app: "web", tier: "front" });

describe("selectorMatches", () => {
  const nsPolicy = pp("shop", "p", []);
  const clusterPolicy = cpp("c", []);
  const cases: { name: string; selector: ResourceSelector; template: KubeObject; policy: PropagationPolicy; want: boolean }[] = [
    { name: "apiVersion and kind equal: matches", selector: byKind, template: web, policy: nsPolicy, want: true },
    { name: "apiVersion differs: no match", selector: { ...byKind, apiVersion: "apps/v1beta1" }, template: web, policy: nsPolicy, want: false },
    { name: "kind differs: no match", selector: { ...byKind, kind: "StatefulSet" }, template: web, policy: nsPolicy, want: false },
    { name: "name equal: matches", selector: byName, template: web, policy: nsPolicy, want: true },
    { name: "name differs: no match", selector: { ...byKind, name: "api" }, template: web, policy: nsPolicy, want: false },
    { name: "empty name is unset", selector: { ...byKind, name: "" }, template: web, policy: nsPolicy, want: true },
    { name: "labelSelector matches the template's labels", selector: byLabels, template: web, policy: nsPolicy, want: true },
    { name: "labelSelector does not match", selector: { ...byKind, labelSelector: { matchLabels: { app: "api" } } }, template: web, policy: nsPolicy, want: false },
    { name: "labelSelector against a template without labels", selector: byLabels, template: deployment("shop", "web"), policy: nsPolicy, want: false },
    { name: "labelSelector NotIn holds on a template without labels", selector: { ...byKind, labelSelector: { matchExpressions: [{ key: "app", operator: "NotIn", values: ["web"] }] } }, template: deployment("shop", "web"), policy: nsPolicy, want: true },
    { name: "empty labelSelector matches any labels", selector: { ...byKind, labelSelector: {} }, template: web, policy: nsPolicy, want: true },
    { name: "name and labelSelector must both hold", selector: { ...byName, labelSelector: { matchLabels: { app: "api" } } }, template: web, policy: nsPolicy, want: false },
    { name: "name and labelSelector both hold", selector: { ...byName, labelSelector: { matchLabels: { tier: "front" } } }, template: web, policy: nsPolicy, want: true },

    { name: "PropagationPolicy: template in another namespace", selector: byKind, template: deployment("other", "web"), policy: nsPolicy, want: false },
    { name: "PropagationPolicy: cluster-scoped template", selector: { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole" }, template: clusterRole, policy: nsPolicy, want: false },
    { name: "PropagationPolicy: selector namespace equal to its own", selector: { ...byKind, namespace: "shop" }, template: web, policy: nsPolicy, want: true },
    { name: "PropagationPolicy: selector naming another namespace selects nothing", selector: { ...byKind, namespace: "other" }, template: deployment("other", "web"), policy: nsPolicy, want: false },
    { name: "PropagationPolicy: without a namespace selects nothing", selector: byKind, template: web, policy: { ...nsPolicy, metadata: { name: "p" } }, want: false },

    { name: "ClusterPropagationPolicy: any namespace", selector: byKind, template: deployment("anywhere", "web"), policy: clusterPolicy, want: true },
    { name: "ClusterPropagationPolicy: cluster-scoped template", selector: { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole" }, template: clusterRole, policy: clusterPolicy, want: true },
    { name: "ClusterPropagationPolicy: selector namespace equal", selector: { ...byKind, namespace: "shop" }, template: web, policy: clusterPolicy, want: true },
    { name: "ClusterPropagationPolicy: selector namespace differs", selector: { ...byKind, namespace: "other" }, template: web, policy: clusterPolicy, want: false },
    {
      name: "Flotilla's rollout bookkeeping (a revision's Secret) is never selected, even by kind alone",
      selector: { apiVersion: "v1", kind: "Secret" },
      template: { apiVersion: "v1", kind: "Secret", metadata: { namespace: "shop", name: "db-secret-0123456789", labels: { "flotilla.dev/rollout-of": "abc" } } },
      policy: clusterPolicy,
      want: false,
    },
    { name: "ClusterPropagationPolicy: selector namespace set, cluster-scoped template", selector: { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", namespace: "shop" }, template: clusterRole, policy: clusterPolicy, want: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(selectorMatches(c.selector, c.template, c.policy), c.want);
    });
  }
});

describe("matchPolicy", () => {
  const cases: {
    name: string;
    template: KubeObject;
    policies: PropagationPolicy[];
    want: { key: string; specificity: Specificity } | undefined;
  }[] = [
    { name: "no policies: no match", template: web, policies: [], want: undefined },
    {
      name: "no selector matches: no match",
      template: web,
      policies: [pp("shop", "a", [{ ...byKind, kind: "StatefulSet" }]), cpp("b", [{ ...byName, name: "api" }])],
      want: undefined,
    },
    { name: "kind-only selector", template: web, policies: [pp("shop", "a", [byKind])], want: { key: "PropagationPolicy/shop/a", specificity: "kind" } },
    {
      name: "specificity is that of the most specific matching selector",
      template: web,
      policies: [pp("shop", "a", [byKind, byName, byLabels])],
      want: { key: "PropagationPolicy/shop/a", specificity: "name" },
    },
    {
      name: "a selector that does not match adds no specificity",
      template: web,
      policies: [pp("shop", "a", [{ ...byKind, name: "api" }, byKind])],
      want: { key: "PropagationPolicy/shop/a", specificity: "kind" },
    },
    {
      name: "an empty labelSelector counts as a label match",
      template: web,
      policies: [pp("shop", "a", [{ ...byKind, labelSelector: {} }])],
      want: { key: "PropagationPolicy/shop/a", specificity: "labels" },
    },

    {
      name: "rule 1: a namespaced kind-only policy beats a cluster policy by name with higher priority",
      template: web,
      policies: [cpp("a", [byName], { priority: 100 }), pp("shop", "z", [byKind])],
      want: { key: "PropagationPolicy/shop/z", specificity: "kind" },
    },
    {
      name: "rule 1: a cluster policy wins when no namespaced policy matches",
      template: web,
      policies: [pp("other", "a", [byName]), pp("shop", "b", [{ ...byKind, kind: "Service" }]), cpp("c", [byKind])],
      want: { key: "ClusterPropagationPolicy//c", specificity: "kind" },
    },
    {
      name: "rule 1: a cluster-scoped template only ever gets a cluster policy",
      template: clusterRole,
      policies: [pp("shop", "a", [{ apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole" }]), cpp("c", [{ apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", labelSelector: { matchLabels: { team: "a" } } }])],
      want: { key: "ClusterPropagationPolicy//c", specificity: "labels" },
    },

    {
      name: "rule 2: name beats labels",
      template: web,
      policies: [pp("shop", "a", [byLabels]), pp("shop", "b", [byName])],
      want: { key: "PropagationPolicy/shop/b", specificity: "name" },
    },
    {
      name: "rule 2: labels beat kind-only",
      template: web,
      policies: [pp("shop", "a", [byKind]), pp("shop", "b", [byLabels])],
      want: { key: "PropagationPolicy/shop/b", specificity: "labels" },
    },
    {
      name: "rule 2: specificity beats a higher priority",
      template: web,
      policies: [pp("shop", "a", [byKind], { priority: 1000 }), pp("shop", "b", [byLabels], { priority: 5 }), pp("shop", "c", [byName], { priority: -5 })],
      want: { key: "PropagationPolicy/shop/c", specificity: "name" },
    },
    {
      name: "rule 2: among cluster policies too",
      template: web,
      policies: [cpp("a", [byKind], { priority: 10 }), cpp("b", [byLabels])],
      want: { key: "ClusterPropagationPolicy//b", specificity: "labels" },
    },

    {
      name: "rule 3: higher priority wins at equal specificity",
      template: web,
      policies: [pp("shop", "a", [byLabels], { priority: 1 }), pp("shop", "b", [byLabels], { priority: 7 }), pp("shop", "c", [byLabels], { priority: 3 })],
      want: { key: "PropagationPolicy/shop/b", specificity: "labels" },
    },
    {
      name: "rule 3: unset priority is 0, below 1",
      template: web,
      policies: [pp("shop", "a", [byKind]), pp("shop", "b", [byKind], { priority: 1 })],
      want: { key: "PropagationPolicy/shop/b", specificity: "kind" },
    },
    {
      name: "rule 3: unset priority is 0, above -1",
      template: web,
      policies: [pp("shop", "a", [byKind], { priority: -1 }), pp("shop", "b", [byKind])],
      want: { key: "PropagationPolicy/shop/b", specificity: "kind" },
    },
    {
      name: "rule 3: among cluster policies too",
      template: web,
      policies: [cpp("a", [byName]), cpp("b", [byName], { priority: 2 })],
      want: { key: "ClusterPropagationPolicy//b", specificity: "name" },
    },

    {
      name: "rule 4: full tie goes to the first name",
      template: web,
      policies: [pp("shop", "web-b", [byName]), pp("shop", "web-a", [byName]), pp("shop", "web-c", [byName])],
      want: { key: "PropagationPolicy/shop/web-a", specificity: "name" },
    },
    {
      name: "rule 4: priority 0 set explicitly ties with unset",
      template: web,
      policies: [pp("shop", "b", [byKind], { priority: 0 }), pp("shop", "a", [byKind])],
      want: { key: "PropagationPolicy/shop/a", specificity: "kind" },
    },
    {
      name: "rule 4: names compare by code unit",
      template: web,
      policies: [cpp("b", [byKind]), cpp("B", [byKind]), cpp("a", [byKind])],
      want: { key: "ClusterPropagationPolicy//B", specificity: "kind" },
    },

    {
      name: "a policy being deleted is skipped even when it would win",
      template: web,
      policies: [pp("shop", "a", [byName], { deleting: true }), pp("shop", "b", [byKind]), cpp("c", [byName])],
      want: { key: "PropagationPolicy/shop/b", specificity: "kind" },
    },
    {
      name: "a deleted namespaced policy lets a cluster policy win",
      template: web,
      policies: [pp("shop", "a", [byKind], { deleting: true }), cpp("c", [byKind])],
      want: { key: "ClusterPropagationPolicy//c", specificity: "kind" },
    },
    {
      name: "every matching policy being deleted: no match",
      template: web,
      policies: [pp("shop", "a", [byKind], { deleting: true }), cpp("c", [byKind], { deleting: true })],
      want: undefined,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = matchPolicy(c.template, c.policies);
      assert.deepEqual(got && { key: policyKey(got.policy), specificity: got.specificity }, c.want);
    });
  }

  it("gives the same answer for every order of the policies", () => {
    for (const c of cases) {
      for (const order of permutations(c.policies)) {
        const got = matchPolicy(c.template, order);
        assert.deepEqual(got && { key: policyKey(got.policy), specificity: got.specificity }, c.want, c.name);
      }
    }
  });

  it("returns the policy object it was given", () => {
    const winner = pp("shop", "a", [byName]);
    assert.equal(matchPolicy(web, [cpp("c", [byKind]), winner])?.policy, winner);
  });
});

describe("policyKey", () => {
  const cases: { name: string; policy: PropagationPolicy; want: string }[] = [
    { name: "namespaced policy", policy: pp("shop", "web", []), want: "PropagationPolicy/shop/web" },
    { name: "cluster policy has an empty namespace", policy: cpp("web", []), want: "ClusterPropagationPolicy//web" },
    { name: "cluster policy ignores a stray namespace", policy: { ...cpp("web", []), metadata: { namespace: "shop", name: "web" } }, want: "ClusterPropagationPolicy//web" },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(policyKey(c.policy), c.want);
    });
  }
});

function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  const out: T[][] = [];
  items.forEach((item, i) => {
    for (const rest of permutations([...items.slice(0, i), ...items.slice(i + 1)])) out.push([item, ...rest]);
  });
  return out;
}
