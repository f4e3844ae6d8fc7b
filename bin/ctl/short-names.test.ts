import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PropagationPolicy } from "../../shared/api/types.ts";
import { resolveGetName, selectorsCell } from "./short-names.ts";

describe("resolveGetName", () => {
  const cases: [string[], string[]][] = [
    [["get", "pp"], ["get", "propagationpolicies"]],
    [["get", "cpp", "-o", "json"], ["get", "clusterpropagationpolicies", "-o", "json"]],
    [["get", "op", "-n", "a"], ["get", "overridepolicies", "-n", "a"]],
    [["get", "cop"], ["get", "clusteroverridepolicies"]],
    [["get", "rb", "-A"], ["get", "bindings", "-A"]],
    [["get", "RB"], ["get", "bindings"]],
    [["get", "crb"], ["get", "bindings", "--cluster-scoped"]],
    [["get", "crb", "-A"], ["get", "bindings", "-A"]],
    [["get", "clusters"], ["get", "clusters"]],
    [["get", "cluster"], ["get", "clusters"]],
    [["get", "nonsense"], ["get", "nonsense"]],
    [["describe", "pp"], ["describe", "pp"]],
    [["get"], ["get"]],
  ];
  for (const [argv, want] of cases) it(`${argv.join(" ")} → ${want.join(" ")}`, () => assert.deepEqual(resolveGetName(argv), want));
});

describe("selectorsCell", () => {
  const p = (resourceSelectors: PropagationPolicy["spec"]["resourceSelectors"]): PropagationPolicy => ({ apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name: "p" }, spec: { resourceSelectors } });
  it("names, labels and kinds", () => {
    assert.equal(
      selectorsCell(p([{ apiVersion: "apps/v1", kind: "Deployment", name: "web" }, { apiVersion: "v1", kind: "Service", labelSelector: { matchLabels: { app: "web" } } }, { apiVersion: "v1", kind: "ConfigMap", namespace: "a" }])),
      "Deployment/web,Service{app=web},ConfigMap in a",
    );
    assert.equal(selectorsCell(p([])), "-");
  });
});
