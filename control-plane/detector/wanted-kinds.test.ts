import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PropagationPolicy } from "../../shared/api/types.ts";
import { addedKinds, kindsSignature, wantedKinds } from "./wanted-kinds.ts";

const policy = (kinds: string[], propagateDeps = false): PropagationPolicy => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "ClusterPropagationPolicy",
  metadata: { name: "p" },
  spec: { resourceSelectors: kinds.map((k) => ({ apiVersion: "apps/v1", kind: k, name: "x" })), ...(propagateDeps ? { propagateDeps } : {}) },
});
const deployment = { apiVersion: "apps/v1", kind: "Deployment" };
const statefulSet = { apiVersion: "apps/v1", kind: "StatefulSet" };

describe("wantedKinds", () => {
  const cases: { name: string; policies: PropagationPolicy[]; bindings: { apiVersion: string; kind: string }[]; dependencies?: { apiVersion: string; kind: string }[]; want: string }[] = [
    { name: "nothing", policies: [], bindings: [], want: "" },
    { name: "what policies select, once each, sorted", policies: [policy(["StatefulSet", "Deployment"]), policy(["Deployment"])], bindings: [], want: "apps/v1|Deployment,apps/v1|StatefulSet" },
    { name: "a kind only a binding still names (its policy gone)", policies: [], bindings: [statefulSet], want: "apps/v1|StatefulSet" },
    { name: "both", policies: [policy(["Deployment"])], bindings: [deployment, statefulSet], want: "apps/v1|Deployment,apps/v1|StatefulSet" },
    {
      name: "propagateDeps adds what workloads refer to",
      policies: [policy(["Deployment"], true)],
      bindings: [],
      want: "apps/v1|Deployment,v1|ConfigMap,v1|PersistentVolumeClaim,v1|Secret,v1|ServiceAccount",
    },
    {
      name: "the kinds parents' dependencies name (a customization's: any kind)",
      policies: [policy(["Deployment"], true)],
      bindings: [],
      dependencies: [{ apiVersion: "example.dev/v1", kind: "Gadget" }, { apiVersion: "v1", kind: "ConfigMap" }],
      want: "apps/v1|Deployment,example.dev/v1|Gadget,v1|ConfigMap,v1|PersistentVolumeClaim,v1|Secret,v1|ServiceAccount",
    },
    { name: "dependencies' kinds with no propagateDeps policy left (their parents' bindings still propagate them)", policies: [], bindings: [], dependencies: [{ apiVersion: "example.dev/v1", kind: "Gadget" }], want: "example.dev/v1|Gadget" },
  ];
  for (const c of cases) it(c.name, () => assert.equal(kindsSignature(wantedKinds(c.policies, c.bindings, c.dependencies)), c.want));
});

describe("addedKinds", () => {
  it("the kinds not there before", () => assert.deepEqual(addedKinds([deployment], [deployment, statefulSet]), [statefulSet]));
  it("none when a kind goes", () => assert.deepEqual(addedKinds([deployment, statefulSet], [deployment]), []));
});
