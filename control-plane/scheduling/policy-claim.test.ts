import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject, PropagationPolicy, ResourceSelector } from "../../shared/api/types.ts";
import { claimPolicy, policyIdOf } from "./policy-match.ts";

const web: KubeObject = { apiVersion: "apps/v1", kind: "Deployment", metadata: { namespace: "shop", name: "web", labels: { app: "web" } } };
const byKind: ResourceSelector = { apiVersion: "apps/v1", kind: "Deployment" };
const byName: ResourceSelector = { ...byKind, name: "web" };
const other: ResourceSelector = { ...byKind, name: "other" };

interface Extra {
  priority?: number;
  preemption?: "Always" | "Never";
  deleting?: boolean;
}

function make(kind: PropagationPolicy["kind"], namespace: string | undefined, name: string, selectors: ResourceSelector[], extra: Extra = {}): PropagationPolicy {
  return {
    apiVersion: "flotilla.dev/v1alpha1",
    kind,
    metadata: { ...(namespace ? { namespace } : {}), name, ...(extra.deleting ? { deletionTimestamp: "2026-11-24T00:00:00Z" } : {}) },
    spec: {
      resourceSelectors: selectors,
      ...(extra.priority !== undefined ? { priority: extra.priority } : {}),
      ...(extra.preemption !== undefined ? { preemption: extra.preemption } : {}),
    },
  };
}
const pp = (name: string, selectors: ResourceSelector[], extra?: Extra) => make("PropagationPolicy", "shop", name, selectors, extra);
const cpp = (name: string, selectors: ResourceSelector[], extra?: Extra) => make("ClusterPropagationPolicy", undefined, name, selectors, extra);

describe("claimPolicy: a claimed template stays with its policy (Karmada's preemption)", () => {
  const cases: { name: string; policies: PropagationPolicy[]; claimant?: string; want: string | undefined }[] = [
    { name: "unclaimed: the best match claims it", policies: [cpp("fleet", [byKind]), pp("tenant", [byKind])], want: "shop/tenant" },
    { name: "a tenant's policy does not take a template a ClusterPropagationPolicy claims", policies: [cpp("fleet", [byKind]), pp("tenant", [byKind])], claimant: "/fleet", want: "/fleet" },
    { name: "unless it says preemption: Always (a PropagationPolicy outranks any ClusterPropagationPolicy)", policies: [cpp("fleet", [byKind]), pp("tenant", [byKind], { preemption: "Always" })], claimant: "/fleet", want: "shop/tenant" },
    { name: "preemption: Never is the default, written out", policies: [cpp("fleet", [byKind]), pp("tenant", [byKind], { preemption: "Never" })], claimant: "/fleet", want: "/fleet" },
    { name: "a higher priority alone takes nothing", policies: [pp("a", [byKind]), pp("b", [byKind], { priority: 10 })], claimant: "shop/a", want: "shop/a" },
    { name: "a higher priority with Always preempts", policies: [pp("a", [byKind]), pp("b", [byKind], { priority: 10, preemption: "Always" })], claimant: "shop/a", want: "shop/b" },
    { name: "Always with the same rank does not preempt (names never decide it)", policies: [pp("b", [byKind]), pp("a", [byKind], { preemption: "Always" })], claimant: "shop/b", want: "shop/b" },
    { name: "Always with a lower priority does not preempt", policies: [pp("a", [byKind], { priority: 5 }), pp("b", [byKind], { preemption: "Always" })], claimant: "shop/a", want: "shop/a" },
    { name: "a more specific selector with Always preempts", policies: [pp("a", [byKind], { priority: 5 }), pp("b", [byName], { preemption: "Always" })], claimant: "shop/a", want: "shop/b" },
    { name: "a ClusterPropagationPolicy never preempts a PropagationPolicy", policies: [pp("tenant", [byKind]), cpp("fleet", [byName], { priority: 100, preemption: "Always" })], claimant: "shop/tenant", want: "shop/tenant" },
    { name: "of several preemptors, the strongest wins", policies: [cpp("fleet", [byKind]), pp("x", [byKind], { preemption: "Always" }), pp("y", [byName], { preemption: "Always" })], claimant: "/fleet", want: "shop/y" },
    { name: "the claimant was deleted: the best remaining match claims it", policies: [cpp("fleet", [byKind])], claimant: "shop/gone", want: "/fleet" },
    { name: "the claimant is being deleted: the best remaining match claims it", policies: [pp("old", [byKind], { deleting: true }), cpp("fleet", [byKind])], claimant: "shop/old", want: "/fleet" },
    { name: "the claimant no longer selects it: the best remaining match claims it", policies: [pp("old", [other]), cpp("fleet", [byKind])], claimant: "shop/old", want: "/fleet" },
    { name: "no policy selects it: none (the caller keeps its last placement)", policies: [pp("old", [other])], claimant: "shop/old", want: undefined },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = claimPolicy(web, c.policies, c.claimant);
      assert.equal(got === undefined ? undefined : policyIdOf(got.policy), c.want);
      // Input order never matters.
      const reversed = claimPolicy(web, [...c.policies].reverse(), c.claimant);
      assert.equal(reversed === undefined ? undefined : policyIdOf(reversed.policy), c.want);
    });
  }
});
