import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PropagationPolicy } from "../../shared/api/types.ts";
import { type UnactedField, unactedMessage } from "./unacted-fields.ts";

// Stand-ins: the mechanism works whatever the list holds (today it is empty).
const fields: UnactedField[] = [
  { path: "spec.futureA", isSet: (p) => (p.spec as { futureA?: unknown }).futureA !== undefined },
  { path: "spec.placement.futureB", isSet: (p) => (p.spec.placement as { futureB?: unknown } | undefined)?.futureB !== undefined },
];
const policy = (spec: object, namespace?: string): PropagationPolicy => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: namespace ? "PropagationPolicy" : "ClusterPropagationPolicy",
  metadata: { name: "p", ...(namespace ? { namespace } : {}) },
  spec: { resourceSelectors: [], ...spec },
});

describe("unactedMessage", () => {
  it("says nothing for a policy that sets none", () => assert.equal(unactedMessage(policy({}, "ns"), fields), undefined));
  it("names one field", () => assert.equal(unactedMessage(policy({ futureA: 1 }, "ns"), fields), "PropagationPolicy ns/p sets spec.futureA, which Flotilla accepts but does not act on yet: this template is scheduled as if it were unset"));
  it("names each, in the list's order", () => assert.match(unactedMessage(policy({ placement: { futureB: {} }, futureA: 1 }), fields) ?? "", /^ClusterPropagationPolicy p sets spec\.futureA, spec\.placement\.futureB, .* as if they were unset$/));
  it("the real list: nothing for a policy of every field Flotilla stores", () => assert.equal(unactedMessage(policy({ schedulePriority: { priorityClassSource: "KubePriorityClass", priorityClassName: "x" }, placement: { workloadAffinity: { affinity: { groupByLabelKey: "a" } } } }, "ns")), undefined));
});
