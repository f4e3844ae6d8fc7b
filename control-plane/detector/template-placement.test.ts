import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster, KubeObject, PropagationPolicy } from "../../shared/api/types.ts";
import { InterpreterError, type KindInterpreter } from "../../shared/interpreter/interpreter.ts";
import { placeTemplate } from "./template-placement.ts";

const ready = (name: string): Cluster => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "Cluster",
  metadata: { name },
  spec: {},
  status: { conditions: [{ type: "Ready", status: "True", reason: "Ready", message: "", lastTransitionTime: "2026-01-01T00:00:00Z" }] },
});
const [member1, member2] = [ready("member1"), ready("member2")];
const widget: KubeObject = { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w", namespace: "ns", uid: "u1" }, spec: { size: 6 } };
const policy: PropagationPolicy = {
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "PropagationPolicy",
  metadata: { name: "p", namespace: "ns" },
  spec: {
    resourceSelectors: [{ apiVersion: "example.com/v1", kind: "Widget" }],
    placement: { clusterAffinity: { clusterNames: ["member1", "member2"] }, replicaScheduling: { replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted", weightPreference: { staticWeightList: [{ targetCluster: {}, weight: 1 }] } } },
  },
};
const place = (interpreter: KindInterpreter | undefined) =>
  placeTemplate({ template: widget, policy, existing: undefined, live: [member1, member2], requireAcceptance: false, now: 0, evictionPeriodMs: 0, requiredBy: [], interpreter });

describe("placeTemplate", () => {
  it("divides the replicas a customization's GetReplicas reads at a path of its own", () => {
    const placed = place({ getReplicas: (o) => ({ replicas: (o.spec as { size: number }).size }) });
    assert.ok("desired" in placed);
    assert.equal(placed.desired.spec.replicas, 6);
    assert.deepEqual(placed.desired.spec.clusters, [{ name: "member1", replicas: 3 }, { name: "member2", replicas: 3 }]);
  });

  it("a kind without replicas of any interpreter is placed whole", () => {
    const placed = place(undefined);
    assert.ok("desired" in placed);
    assert.deepEqual(placed.desired.spec.clusters, [{ name: "member1" }, { name: "member2" }]);
  });

  it("a script that fails is an answer: InterpreterFailed with the operation and message, and no binding", () => {
    const placed = place({
      getReplicas: () => {
        throw new InterpreterError("InterpretReplica", "luaScript:2: attempt to index a nil value (field 'spec')");
      },
    });
    assert.deepEqual(placed, { interpreterFailed: "InterpretReplica: luaScript:2: attempt to index a nil value (field 'spec')" });
  });

  it("any other error is a programming error and is thrown", () => {
    assert.throws(
      () =>
        place({
          getReplicas: () => {
            throw new TypeError("boom");
          },
        }),
      TypeError,
    );
  });

  it("records a multi-component workload's components on the binding and places the whole set on one cluster (Divided)", () => {
    const components = [
      { name: "jobmanager", replicas: 1, replicaRequirements: { resourceRequest: { cpu: "1" } } },
      { name: "taskmanager", replicas: 2, replicaRequirements: { resourceRequest: { cpu: "2" } } },
    ];
    const placed = place({ getComponents: () => components });
    assert.ok("desired" in placed);
    assert.deepEqual(placed.desired.spec.components, components);
    assert.deepEqual(placed.desired.spec.clusters, [{ name: "member1" }], "one cluster, no replica count to revise");
  });

  it("a GetComponents script that fails: InterpreterFailed naming InterpretComponent, and no binding (the current one stays)", () => {
    const failing: KindInterpreter = {
      getReplicas: (o) => ({ replicas: (o.spec as { size: number }).size }),
      getComponents: () => {
        throw new InterpreterError("InterpretComponent", "luaScript:3: attempt to index a nil value (field 'taskManager')");
      },
    };
    assert.deepEqual(place(failing), { interpreterFailed: "InterpretComponent: luaScript:3: attempt to index a nil value (field 'taskManager')" });
    const dependency = placeTemplate({ template: widget, policy: undefined, existing: undefined, live: [member1], requireAcceptance: false, now: 0, evictionPeriodMs: 0, requiredBy: [{ name: "parent", clusters: ["member1"] }], interpreter: failing });
    assert.ok("interpreterFailed" in dependency, "a dependency placed with its parents too");
  });
});
