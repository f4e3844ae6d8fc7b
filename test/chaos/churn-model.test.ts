import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { applyOperation, type ChurnOperation, groupOf, groupPolicyManifests, initialModel, nextOperation, templateManifest, wanted } from "./churn-model.ts";
import { seededRandom } from "./random.ts";

describe("churn model", () => {
  const members = ["member1", "member2", "member3"];

  it("a seeded run of operations covers every operation and keeps Divided weights aligned with clusters", () => {
    const rng = seededRandom(3);
    let m = initialModel(members);
    const seen = new Set<string>();
    for (let i = 0; i < 400; i++) {
      const o = nextOperation(rng, m);
      seen.add(o.op);
      m = applyOperation(m, o);
      for (const p of Object.values(m.policies)) {
        assert.ok(p.clusters.length >= 1);
        assert.equal(p.weights.length, p.clusters.length);
        assert.ok(p.weights.every((w) => w >= 1 && w <= 3));
      }
    }
    assert.deepEqual([...seen].sort(), ["create", "delete", "move", "override", "reweight", "unoverride", "update"]);
  });

  it("wants each template on its group's clusters, and nothing deleted", () => {
    let m = initialModel(members);
    const ops: ChurnOperation[] = [
      { op: "create", template: { kind: "ConfigMap", name: "configmap1", version: 1, replicas: 6 } },
      { op: "create", template: { kind: "Deployment", name: "deployment2", version: 1, replicas: 6 } },
      { op: "move", group: "g1", policy: { clusters: ["member2"], weights: [1], overrideClusters: null, overrideVersion: 0 } },
      { op: "delete", kind: "Deployment", name: "deployment2" },
    ];
    for (const o of ops) m = applyOperation(m, o);
    assert.equal(groupOf("configmap1"), "g1");
    assert.deepEqual([...wanted(m)].map(([k, v]) => [k, [...v]]), [["ConfigMap/configmap1", ["member2"]]]);
  });

  it("Divided replicas cover every chosen cluster: 6+ replicas over weights 1–3 on at most 3 clusters", () => {
    // The smallest share: 6 × 1 / (1 + 3 + 3) ≈ 0.86 rounds to 1 by largest remainder at worst; the
    // model keeps replicas ≥ 6 so every cluster in a Divided policy holds its Deployment.
    const rng = seededRandom(5);
    const m = initialModel(members);
    for (let i = 0; i < 200; i++) {
      const o = nextOperation(rng, m);
      if (o.op === "create" || o.op === "update") assert.ok(o.template.replicas >= 6 && o.template.replicas <= 12);
    }
  });

  it("renders manifests the apiserver takes: namespaced, labelled with the group", () => {
    for (const kind of ["Deployment", "ConfigMap", "Secret", "Widget"] as const) {
      const t = templateManifest({ kind, name: `${kind.toLowerCase()}0`, version: 2, replicas: 7 }) as { kind: string; metadata: { namespace: string; labels: Record<string, string> } };
      assert.equal(t.kind, kind);
      assert.equal(t.metadata.namespace, "chaos");
      assert.equal(t.metadata.labels["chaos-group"], "g0");
    }
    const { propagation, override } = groupPolicyManifests("g0", { clusters: ["member1", "member3"], weights: [1, 3], overrideClusters: null, overrideVersion: 0 });
    assert.equal(propagation.length, 2);
    assert.equal(override, null);
    assert.match(JSON.stringify(propagation[1]), /"staticWeightList":\[\{"targetCluster":\{"clusterNames":\["member1"\]\},"weight":1\},\{"targetCluster":\{"clusterNames":\["member3"\]\},"weight":3\}\]/);
  });
});
