import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { applyOperation, type ChurnModel, initialModel } from "./churn-model.ts";
import { compareFleet } from "./convergence.ts";
import type { KubeObject } from "../../shared/api/types.ts";
import { redactSecret } from "../../shared/secret-redaction.ts";

describe("compareFleet", () => {
  const base = (): ChurnModel => {
    let m = initialModel(["m1", "m2"]);
    m = applyOperation(m, { op: "create", template: { kind: "ConfigMap", name: "configmap0", version: 1, replicas: 6 } });
    m = applyOperation(m, { op: "create", template: { kind: "Deployment", name: "deployment0", version: 1, replicas: 6 } });
    return m;
  };
  const cm = (version: string) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "configmap0", namespace: "chaos", labels: { x: "y", "flotilla.dev/work": "h" } }, data: { version } });
  const deploy = (replicas: number) => ({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "deployment0" }, spec: { replicas } });
  const rendered = (cmVersion = "1") =>
    new Map<string, unknown>([
      ["m1 ConfigMap/configmap0", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "configmap0", namespace: "chaos", labels: { x: "y" } }, data: { version: cmVersion } }],
      ["m2 ConfigMap/configmap0", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "configmap0", namespace: "chaos", labels: { x: "y" } }, data: { version: cmVersion } }],
      ["m1 Deployment/deployment0", deploy(3)],
      ["m2 Deployment/deployment0", deploy(3)],
    ]);
  const fleet = (m1: Record<string, unknown>, m2: Record<string, unknown>) =>
    new Map([
      ["m1", new Map(Object.entries(m1))],
      ["m2", new Map(Object.entries(m2))],
    ]) as Parameters<typeof compareFleet>[1];

  it("finds nothing when every member holds what the render says, replicas adding up", () => {
    const r = compareFleet(base(), fleet({ "ConfigMap/configmap0": cm("1"), "Deployment/deployment0": deploy(3) }, { "ConfigMap/configmap0": cm("1"), "Deployment/deployment0": deploy(3) }), rendered());
    assert.deepEqual(r, { missing: [], stray: [], mismatched: [] });
  });

  it("names a missing copy, a stray one, stale content and replicas that do not add up", () => {
    let m = base();
    m = applyOperation(m, { op: "move", group: "g0", policy: { clusters: ["m1"], weights: [1], overrideClusters: null, overrideVersion: 0 } });
    const r = compareFleet(m, fleet({ "ConfigMap/configmap0": cm("0") }, { "ConfigMap/configmap0": cm("1"), "Deployment/deployment0": deploy(3) }), rendered());
    assert.deepEqual(r.missing, [{ member: "m1", id: "Deployment/deployment0" }]);
    assert.deepEqual(r.stray, [{ member: "m2", id: "ConfigMap/configmap0" }, { member: "m2", id: "Deployment/deployment0" }]);
    assert.deepEqual(r.mismatched, [
      { member: "m1", id: "ConfigMap/configmap0", detail: "differs from the control plane's render" },
      { member: "(all)", id: "Deployment/deployment0", detail: "replicas add up to 3, the template has 6" },
    ]);
  });

  it("compares a Secret by the digests the Admin API shows for its values", () => {
    let m = initialModel(["m1"]);
    m = applyOperation(m, { op: "create", template: { kind: "Secret", name: "secret0", version: 1, replicas: 6 } });
    const live = (token: string) => new Map([["m1", new Map([["Secret/secret0", { apiVersion: "v1", kind: "Secret", metadata: { name: "secret0" }, data: { token: Buffer.from(token).toString("base64") } }]])]]) as Parameters<typeof compareFleet>[1];
    const render = new Map<string, unknown>([["m1 Secret/secret0", redactSecret({ apiVersion: "v1", kind: "Secret", metadata: { name: "secret0" }, data: { token: Buffer.from("one").toString("base64") } } as KubeObject)]]);
    assert.deepEqual(compareFleet(m, live("one"), render).mismatched, []);
    assert.equal(compareFleet(m, live("two"), render).mismatched.length, 1);
  });

  it("a binding whose template is gone is stray (its removal never finished)", () => {
    const r = compareFleet(base(), fleet({}, {}), new Map(), [{ name: "configmap0-configmap", template: "ConfigMap/configmap0" }, { name: "secret9-secret", template: "Secret/secret9" }]);
    assert.deepEqual(r.stray, [{ member: "(control)", id: "ResourceBinding/secret9-secret", detail: "its template Secret/secret9 is gone" }]);
  });

  it("a copy the control plane renders nothing for is a mismatch", () => {
    const r = compareFleet(base(), fleet({ "ConfigMap/configmap0": cm("1"), "Deployment/deployment0": deploy(3) }, { "ConfigMap/configmap0": cm("1"), "Deployment/deployment0": deploy(3) }), new Map());
    assert.equal(r.mismatched.length, 4);
  });

  it("a Deployment a member HPA holds keeps the member's replicas: only its other fields are compared, and its template's sum is not checked", () => {
    const live = fleet({ "ConfigMap/configmap0": cm("1"), "Deployment/deployment0": deploy(17) }, { "ConfigMap/configmap0": cm("1"), "Deployment/deployment0": deploy(3) });
    const held = new Set(["m1 Deployment/deployment0"]);
    assert.deepEqual(compareFleet(base(), live, rendered(), [], redactSecret, held), { missing: [], stray: [], mismatched: [] });
    // Without the HPA the same fleet is two findings: the render's replicas and the sum.
    assert.deepEqual(compareFleet(base(), live, rendered()).mismatched.map((f) => f.member), ["m1", "(all)"]);
    // The HPA exempts only replicas: a copy that differs otherwise is still a mismatch.
    const other = fleet({ "ConfigMap/configmap0": cm("1"), "Deployment/deployment0": { ...deploy(17), metadata: { name: "another" } } }, { "ConfigMap/configmap0": cm("1"), "Deployment/deployment0": deploy(3) });
    assert.deepEqual(compareFleet(base(), other, rendered(), [], redactSecret, held).mismatched, [{ member: "m1", id: "Deployment/deployment0", detail: "differs from the control plane's render" }]);
  });

  it("a Deployment template wanted nowhere (no Cluster carries the label) has no sum to check; a copy left is stray", () => {
    let m = initialModel(["m1", "m2"]);
    m = applyOperation(m, { op: "create", template: { kind: "Deployment", name: "deployment2", version: 1, replicas: 12 } });
    for (const member of ["m1", "m2"]) m = applyOperation(m, { op: "unlabel", member });
    assert.deepEqual(compareFleet(m, fleet({}, {}), new Map()), { missing: [], stray: [], mismatched: [] });
    const left = compareFleet(m, fleet({ "Deployment/deployment2": deploy(6) }, {}), new Map());
    assert.deepEqual(left, { missing: [], stray: [{ member: "m1", id: "Deployment/deployment2" }], mismatched: [] });
  });
});
