import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { FederatedHPA } from "../../shared/api/autoscaling.ts";
import type { KubeObject } from "../../shared/api/types.ts";
import { wantedByCluster } from "./wanted-metrics.ts";

const template = (name: string): KubeObject => ({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name, namespace: "shop" }, spec: { replicas: 2, selector: { matchLabels: { app: name } } } });
const fhpa = (name: string, metrics?: FederatedHPA["spec"]["metrics"]): FederatedHPA => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "FederatedHPA",
  metadata: { name, namespace: "shop" },
  spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name }, maxReplicas: 10, ...(metrics ? { metrics } : {}) },
});

describe("wantedByCluster", () => {
  it("asks each cluster that runs a target for its workload, pod selector and metrics, keyed as the calculator reads them", () => {
    const got = wantedByCluster([
      { fhpa: fhpa("web"), template: template("web"), clusters: ["m1", "m2"] },
      {
        fhpa: fhpa("api", [
          { type: "ContainerResource", containerResource: { name: "memory", container: "app", target: { type: "AverageValue", averageValue: "100Mi" } } },
          { type: "Pods", pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "10" } } },
        ]),
        template: template("api"),
        clusters: ["m2"],
      },
    ]);
    assert.deepEqual([...got.keys()].sort(), ["m1", "m2"]);
    const m1 = got.get("m1");
    assert.equal(m1?.workloads.length, 1);
    assert.deepEqual(m1?.workloads[0]?.workload, { apiVersion: "apps/v1", kind: "Deployment", namespace: "shop", name: "web" });
    assert.deepEqual(m1?.workloads[0]?.podSelector, { matchLabels: { app: "web" }, matchExpressions: [] });
    assert.deepEqual(m1?.workloads[0]?.metrics.map((m) => [m.key, m.type, m.resource]), [["cpu", "Resource", "cpu"]], "Karmada's default metric when the spec has none");
    const m2 = got.get("m2");
    assert.deepEqual(m2?.workloads.map((w) => w.workload?.name), ["api", "web"], "in key order");
    assert.deepEqual(m2?.workloads[0]?.metrics.map((m) => [m.key, m.type]), [["memory@app", "ContainerResource"], ["qps", "Pods"]]);
    assert.match(m2?.contentHash ?? "", /^[0-9a-f]{32}$/);
  });

  it("one hash for one content; no targets, no lists", () => {
    const a = wantedByCluster([{ fhpa: fhpa("web"), template: template("web"), clusters: ["m1"] }]);
    const b = wantedByCluster([{ fhpa: fhpa("web"), template: template("web"), clusters: ["m1"] }]);
    assert.equal(a.get("m1")?.contentHash, b.get("m1")?.contentHash);
    assert.equal(wantedByCluster([]).size, 0);
  });
});
