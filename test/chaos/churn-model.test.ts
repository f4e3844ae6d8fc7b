import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { applyOperation, type ChurnOperation, clusterLabelPatch, groupOf, groupPolicyManifests, initialModel, nextOperation, replicasUpdate, templateManifest, wanted } from "./churn-model.ts";
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
    assert.deepEqual([...seen].sort(), ["create", "delete", "label", "move", "override", "reweight", "unlabel", "unoverride", "update"]);
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

  it("wants the label group's templates on the members whose Cluster carries the label, as the admin sets and removes it", () => {
    const cm2 = { op: "create", template: { kind: "ConfigMap", name: "configmap2", version: 1, replicas: 6 } } as const;
    const cases: { name: string; ops: ChurnOperation[]; want: string[] }[] = [
      { name: "every Cluster labelled at the start", ops: [cm2], want: members },
      { name: "a label removed takes the member away", ops: [cm2, { op: "unlabel", member: "member2" }], want: ["member1", "member3"] },
      { name: "set again, it is back", ops: [cm2, { op: "unlabel", member: "member2" }, { op: "label", member: "member2" }], want: members },
      { name: "no Cluster labelled: nowhere", ops: [cm2, ...members.map((member) => ({ op: "unlabel", member }) as const)], want: [] },
      { name: "a reweight of the label group moves nothing", ops: [cm2, { op: "unlabel", member: "member1" }, { op: "reweight", group: "g2", policy: { clusters: members, weights: [3, 2, 1], overrideClusters: null, overrideVersion: 0 } }], want: ["member2", "member3"] },
    ];
    for (const c of cases) {
      let m = initialModel(members);
      for (const o of c.ops) m = applyOperation(m, o);
      assert.equal(groupOf("configmap2"), "g2");
      assert.deepEqual([...(wanted(m).get("ConfigMap/configmap2") ?? [])].sort(), c.want, c.name);
    }
    // A name-placed group does not follow the labels.
    let m = applyOperation(initialModel(members), { op: "create", template: { kind: "ConfigMap", name: "configmap0", version: 1, replicas: 6 } });
    m = applyOperation(m, { op: "unlabel", member: "member1" });
    assert.deepEqual([...(wanted(m).get("ConfigMap/configmap0") ?? [])], members);
  });

  it("the label group's policies select Clusters by the label, and the admin's patch sets or removes it", () => {
    const { propagation } = groupPolicyManifests("g2", { clusters: members, weights: [1, 2, 3], overrideClusters: null, overrideVersion: 0 });
    for (const p of propagation) assert.deepEqual((p as { spec: { placement: { clusterAffinity: unknown } } }).spec.placement.clusterAffinity, { labelSelector: { matchLabels: { "chaos-tier": "gold" } } });
    assert.match(JSON.stringify(groupPolicyManifests("g0", { clusters: ["member1"], weights: [1], overrideClusters: null, overrideVersion: 0 }).propagation[0]), /"clusterAffinity":\{"clusterNames":\["member1"\]\}/);
    assert.deepEqual(clusterLabelPatch({ op: "label" }), { metadata: { labels: { "chaos-tier": "gold" } } });
    assert.deepEqual(clusterLabelPatch({ op: "unlabel" }), { metadata: { labels: { "chaos-tier": null } } });
  });

  it("a replicas update changes a Deployment template's replicas, never to what it has", () => {
    const m = applyOperation(initialModel(members), { op: "create", template: { kind: "Deployment", name: "deployment1", version: 3, replicas: 8 } });
    const cases: { replicas: number; want: number }[] = [
      { replicas: 10, want: 10 },
      { replicas: 8, want: 9 },
    ];
    for (const c of cases) assert.deepEqual(replicasUpdate(m, "deployment1", c.replicas), { op: "update", template: { kind: "Deployment", name: "deployment1", version: 4, replicas: c.want } });
    const twelve = applyOperation(m, { op: "update", template: { kind: "Deployment", name: "deployment1", version: 4, replicas: 12 } });
    assert.equal((replicasUpdate(twelve, "deployment1", 12) as { template: { replicas: number } }).template.replicas, 6);
    assert.equal(replicasUpdate(m, "deployment0", 10), undefined, "a template that is gone is not updated");
  });
});
