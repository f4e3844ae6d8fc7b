import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster } from "../../shared/api/types.ts";
import { selectClusters } from "../../control-plane/scheduling/placement.ts";
import { affinityOf, ALL_CLUSTERS, intersect, kubefedPlacement, NO_CLUSTER_NAME, NO_CLUSTERS, type Placement, replicaPlacement } from "./kubefed-placement.ts";

const cluster = (name: string, labels: Record<string, string> = {}): Cluster => ({ apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name, labels }, spec: {} }) as Cluster;
const fleet = [cluster("member1", { region: "eu" }), cluster("member2", { region: "us" }), cluster("member3", { region: "eu", tier: "edge" })];
/** The clusters Flotilla's scheduler selects with the converted affinity: the semantics, not the shape. */
const selected = (p: Placement) => selectClusters(affinityOf(p), fleet);

describe("kubefedPlacement, as Flotilla selects it", () => {
  const cases: { name: string; placement: unknown; want: string[] }[] = [
    { name: "no placement at all: no cluster (Flotilla's default would be every one)", placement: undefined, want: [] },
    { name: "an empty placement: no cluster", placement: {}, want: [] },
    { name: "an empty clusters list: no cluster", placement: { clusters: [] }, want: [] },
    { name: "clusters only", placement: { clusters: [{ name: "member2" }, { name: "member1" }] }, want: ["member1", "member2"] },
    { name: "a cluster the fleet lacks is simply not there", placement: { clusters: [{ name: "gone" }, { name: "member3" }] }, want: ["member3"] },
    { name: "selector only", placement: { clusterSelector: { matchLabels: { region: "eu" } } }, want: ["member1", "member3"] },
    { name: "a selector by expressions", placement: { clusterSelector: { matchExpressions: [{ key: "tier", operator: "DoesNotExist" }] } }, want: ["member1", "member2"] },
    { name: "an empty selector: every cluster", placement: { clusterSelector: {} }, want: ["member1", "member2", "member3"] },
    { name: "both: clusters win over the selector (KubeFed), not both must hold", placement: { clusters: [{ name: "member2" }], clusterSelector: { matchLabels: { region: "eu" } } }, want: ["member2"] },
    { name: "both, with an empty clusters list: still no cluster", placement: { clusters: [], clusterSelector: {} }, want: [] },
    { name: "a null clusters list is absent: the selector decides", placement: { clusters: null, clusterSelector: { matchLabels: { region: "us" } } }, want: ["member2"] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(selected(kubefedPlacement(c.placement)), c.want));

  it("no cluster is an affinity that names a cluster and excludes it: nothing can match it", () => {
    assert.deepEqual(affinityOf(NO_CLUSTERS), { clusterNames: [NO_CLUSTER_NAME], exclude: [NO_CLUSTER_NAME] });
    assert.deepEqual(selectClusters(affinityOf(NO_CLUSTERS), [...fleet, cluster(NO_CLUSTER_NAME)]), []);
    assert.equal(affinityOf(ALL_CLUSTERS), undefined);
  });
});

describe("intersect (a FederatedNamespace's placement bounds what is in it)", () => {
  const names = (...n: string[]): Placement => ({ names: n });
  const eu: Placement = { selector: { matchLabels: { region: "eu" } } };
  const cases: { name: string; a: Placement; b: Placement; want: string[] }[] = [
    { name: "names and names", a: names("member1", "member2"), b: names("member2", "member3"), want: ["member2"] },
    { name: "disjoint names: no cluster", a: names("member1"), b: names("member2"), want: [] },
    { name: "names and a selector", a: names("member1", "member2"), b: eu, want: ["member1"] },
    { name: "two selectors", a: eu, b: { selector: { matchLabels: { tier: "edge" } } }, want: ["member3"] },
    { name: "contradicting selectors: no cluster", a: eu, b: { selector: { matchLabels: { region: "us" } } }, want: [] },
    { name: "every cluster and names", a: ALL_CLUSTERS, b: names("member3"), want: ["member3"] },
    { name: "no cluster and anything", a: NO_CLUSTERS, b: ALL_CLUSTERS, want: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(selected(intersect(c.a, c.b)), c.want);
      assert.deepEqual(selected(intersect(c.b, c.a)), c.want);
    });
  }
});

/** replicaPlacement where it must place something. */
function planned(...args: Parameters<typeof replicaPlacement>): NonNullable<ReturnType<typeof replicaPlacement>> {
  const got = replicaPlacement(...args);
  assert.ok(got !== undefined, "a placement");
  return got;
}

describe("replicaPlacement (ReplicaSchedulingPreference)", () => {
  it("weights per cluster, only those clusters, Divided by static weights; rebalance kept", () => {
    const got = planned({ totalReplicas: 10, rebalance: true, clusters: { member2: { weight: 3 }, member1: { weight: 2 } } }, kubefedPlacement({ clusters: [{ name: "member3" }] }));
    assert.deepEqual(selected(got.placement), ["member1", "member2"]);
    assert.deepEqual(got.replicaScheduling, {
      replicaSchedulingType: "Divided",
      replicaDivisionPreference: "Weighted",
      weightPreference: { staticWeightList: [{ targetCluster: { clusterNames: ["member1"] }, weight: 2 }, { targetCluster: { clusterNames: ["member2"] }, weight: 3 }] },
      rebalance: true,
    });
  });

  it('"*" with min and max: every cluster, the catch-all last; a named cluster keeps its own entry', () => {
    const got = planned({ clusters: { "*": { weight: 1, minReplicas: 2, maxReplicas: 4 }, member2: { weight: 5 } } }, NO_CLUSTERS);
    assert.deepEqual(selected(got.placement), ["member1", "member2", "member3"]);
    assert.deepEqual(got.replicaScheduling.weightPreference?.staticWeightList, [
      { targetCluster: { clusterNames: ["member2"] }, weight: 5 },
      { targetCluster: {}, weight: 1, minReplicas: 2, maxReplicas: 4 },
    ]);
    assert.equal(got.replicaScheduling.rebalance, undefined);
  });

  it("intersectWithClusterSelector keeps the object's own placement", () => {
    const own = kubefedPlacement({ clusterSelector: { matchLabels: { region: "eu" } } });
    assert.deepEqual(selected(planned({ intersectWithClusterSelector: true, clusters: { "*": { weight: 1 } } }, own).placement), ["member1", "member3"]);
    assert.deepEqual(selected(planned({ intersectWithClusterSelector: false, clusters: { "*": { weight: 1 } } }, own).placement), ["member1", "member2", "member3"]);
    assert.equal(replicaPlacement({ intersectWithClusterSelector: true, clusters: { "*": { weight: 1 } } }, NO_CLUSTERS), undefined, "no selector: KubeFed's scheduler leaves the object alone");
  });

  it("no preferences at all: every cluster, equal weights (KubeFed's default)", () => {
    const got = planned({ totalReplicas: 3 }, ALL_CLUSTERS);
    assert.deepEqual(selected(got.placement), ["member1", "member2", "member3"]);
    assert.deepEqual(got.replicaScheduling.weightPreference?.staticWeightList, [{ targetCluster: {}, weight: 1 }]);
  });

  it("a weight left out is 0 (its minimum only), and a null maximum is no maximum", () => {
    const got = planned({ clusters: { member1: { minReplicas: 1, maxReplicas: null } } }, ALL_CLUSTERS);
    assert.deepEqual(got.replicaScheduling.weightPreference?.staticWeightList, [{ targetCluster: { clusterNames: ["member1"] }, weight: 0, minReplicas: 1 }]);
  });
});
