import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster, ClusterAffinity, ClusterSpec } from "../../shared/api/types.ts";
import { clusterMatches, selectClusters } from "./placement.ts";

function cluster(name: string, labels: Record<string, string> | undefined, spec: ClusterSpec = {}): Cluster {
  return { apiVersion: "flotilla.dev/v1alpha1", kind: "Cluster", metadata: { name, labels }, spec };
}

// Deliberately not in name order: the answer must come back sorted.
const fleet: Cluster[] = [
  cluster("member3", { env: "prod", gpus: "8" }, { provider: "gcp", region: "europe-west1", zone: "europe-west1-b" }),
  cluster("member1", { env: "prod", gpus: "2" }, { provider: "aws", region: "us-east-1", zone: "us-east-1a" }),
  cluster("member2", { env: "dev" }, { provider: "aws", region: "eu-west-1" }),
  cluster("member4", undefined, {}),
  cluster("member10", { env: "prod" }, { provider: "aws", region: "" }),
];

describe("selectClusters", () => {
  const cases: { name: string; affinity: ClusterAffinity | undefined; clusters?: Cluster[]; want: string[] }[] = [
    { name: "undefined affinity selects every cluster, sorted", affinity: undefined, want: ["member1", "member10", "member2", "member3", "member4"] },
    { name: "empty affinity selects every cluster", affinity: {}, want: ["member1", "member10", "member2", "member3", "member4"] },
    { name: "no clusters, nothing selected", affinity: undefined, clusters: [], want: [] },

    { name: "clusterNames: only the named clusters", affinity: { clusterNames: ["member3", "member1"] }, want: ["member1", "member3"] },
    { name: "clusterNames: a name with no cluster is ignored", affinity: { clusterNames: ["member2", "gone"] }, want: ["member2"] },
    { name: "clusterNames: empty list constrains nothing", affinity: { clusterNames: [] }, want: ["member1", "member10", "member2", "member3", "member4"] },
    { name: "clusterNames: duplicate names give one entry", affinity: { clusterNames: ["member1", "member1"] }, want: ["member1"] },

    { name: "exclude: drops the excluded clusters", affinity: { exclude: ["member1", "member4"] }, want: ["member10", "member2", "member3"] },
    { name: "exclude beats clusterNames", affinity: { clusterNames: ["member1", "member2"], exclude: ["member1"] }, want: ["member2"] },
    { name: "exclude of every named cluster selects nothing", affinity: { clusterNames: ["member1"], exclude: ["member1"] }, want: [] },

    { name: "labelSelector: matchLabels", affinity: { labelSelector: { matchLabels: { env: "prod" } } }, want: ["member1", "member10", "member3"] },
    { name: "labelSelector: empty selector selects every cluster", affinity: { labelSelector: {} }, want: ["member1", "member10", "member2", "member3", "member4"] },
    { name: "labelSelector: a cluster without labels fails In", affinity: { labelSelector: { matchExpressions: [{ key: "env", operator: "In", values: ["prod", "dev"] }] } }, want: ["member1", "member10", "member2", "member3"] },
    { name: "labelSelector: a cluster without labels meets NotIn", affinity: { labelSelector: { matchExpressions: [{ key: "env", operator: "NotIn", values: ["prod"] }] } }, want: ["member2", "member4"] },
    { name: "labelSelector: Gt on integer labels", affinity: { labelSelector: { matchExpressions: [{ key: "gpus", operator: "Gt", values: ["4"] }] } }, want: ["member3"] },
    { name: "labelSelector: a malformed selector selects nothing", affinity: { labelSelector: { matchExpressions: [{ key: "gpus", operator: "Gt", values: ["four"] }] } }, want: [] },

    { name: "fieldSelector: provider In", affinity: { fieldSelector: { matchExpressions: [{ key: "provider", operator: "In", values: ["aws"] }] } }, want: ["member1", "member10", "member2"] },
    { name: "fieldSelector: region In several values", affinity: { fieldSelector: { matchExpressions: [{ key: "region", operator: "In", values: ["us-east-1", "europe-west1"] }] } }, want: ["member1", "member3"] },
    { name: "fieldSelector: region NotIn", affinity: { fieldSelector: { matchExpressions: [{ key: "region", operator: "NotIn", values: ["us-east-1"] }] } }, want: ["member10", "member2", "member3", "member4"] },
    { name: "fieldSelector: unset zone fails In", affinity: { fieldSelector: { matchExpressions: [{ key: "zone", operator: "In", values: ["us-east-1a", "europe-west1-b"] }] } }, want: ["member1", "member3"] },
    { name: "fieldSelector: unset zone meets NotIn", affinity: { fieldSelector: { matchExpressions: [{ key: "zone", operator: "NotIn", values: ["us-east-1a"] }] } }, want: ["member10", "member2", "member3", "member4"] },
    { name: "fieldSelector: empty region is unset, so In [\"\"] fails", affinity: { fieldSelector: { matchExpressions: [{ key: "region", operator: "In", values: [""] }] } }, want: [] },
    { name: "fieldSelector: empty region is unset, so NotIn [\"\"] holds", affinity: { fieldSelector: { matchExpressions: [{ key: "region", operator: "NotIn", values: [""] }] } }, want: ["member1", "member10", "member2", "member3", "member4"] },
    { name: "fieldSelector: every expression must hold", affinity: { fieldSelector: { matchExpressions: [{ key: "provider", operator: "In", values: ["aws"] }, { key: "region", operator: "NotIn", values: ["us-east-1"] }] } }, want: ["member10", "member2"] },
    { name: "fieldSelector: no expressions constrain nothing", affinity: { fieldSelector: {} }, want: ["member1", "member10", "member2", "member3", "member4"] },
    { name: "fieldSelector: empty expression list constrains nothing", affinity: { fieldSelector: { matchExpressions: [] } }, want: ["member1", "member10", "member2", "member3", "member4"] },
    { name: "fieldSelector: unknown key selects nothing", affinity: { fieldSelector: { matchExpressions: [{ key: "country" as "zone", operator: "NotIn", values: ["fr"] }] } }, want: [] },
    { name: "fieldSelector: unknown operator selects nothing", affinity: { fieldSelector: { matchExpressions: [{ key: "provider", operator: "Exists" as "In", values: ["aws"] }] } }, want: [] },
    { name: "fieldSelector: NotIn without values selects nothing", affinity: { fieldSelector: { matchExpressions: [{ key: "provider", operator: "NotIn", values: [] }] } }, want: [] },

    {
      name: "every criterion must hold together",
      affinity: {
        clusterNames: ["member1", "member2", "member3", "member10"],
        exclude: ["member10"],
        labelSelector: { matchLabels: { env: "prod" } },
        fieldSelector: { matchExpressions: [{ key: "provider", operator: "In", values: ["aws"] }] },
      },
      want: ["member1"],
    },
    {
      name: "a cluster without a name is never selected",
      affinity: undefined,
      clusters: [cluster("b", {}), { ...cluster("", {}), metadata: {} }, cluster("a", {})],
      want: ["a", "b"],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(selectClusters(c.affinity, c.clusters ?? fleet), c.want);
    });
  }

  it("gives the same answer whatever the order of the clusters", () => {
    const affinity: ClusterAffinity = { labelSelector: { matchLabels: { env: "prod" } } };
    const want = selectClusters(affinity, fleet);
    assert.deepEqual(selectClusters(affinity, [...fleet].reverse()), want);
    assert.deepEqual(selectClusters(affinity, [fleet[2], fleet[4], fleet[0], fleet[3], fleet[1]] as Cluster[]), want);
  });

  it("sorts by code unit, not by locale", () => {
    const clusters = [cluster("b", {}), cluster("B", {}), cluster("a", {}), cluster("A", {})];
    assert.deepEqual(selectClusters(undefined, clusters), ["A", "B", "a", "b"]);
  });
});

describe("clusterMatches", () => {
  it("matches any cluster with an empty affinity (a weight list's catch-all)", () => {
    for (const c of fleet) assert.equal(clusterMatches({}, c), true, c.metadata.name);
  });
});
