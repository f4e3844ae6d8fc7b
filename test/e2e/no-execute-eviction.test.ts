// Issue 26 on real clusters: under --allow-no-execute-taint-policy a ClusterTaintPolicy may add a
// NoExecute taint, and under --enable-no-execute-taint-eviction that taint moves a Divided workload
// off the cluster gracefully (DESIGN §11): the other cluster's new share first, the tainted
// cluster's copy held (a TaintUntolerated eviction task) until that share runs Available, so the
// fleet never runs fewer replicas Available than the template asks.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { apply, type BindingJson, deploymentJson, eventually, getJson, kubectl, placementPolicyJson } from "./helpers.ts";

const NS = "evict";

interface DeploymentJson {
  status?: { availableReplicas?: number };
}
type Binding = BindingJson & { spec: { gracefulEvictionTasks?: { fromCluster: string; reason: string }[] } };

describe("NoExecute eviction (--enable-no-execute-taint-eviction)", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let m1: Cluster;
  let m2: Cluster;
  before(async () => {
    fleet = await startFleet({ members: 2 });
    flotilla = await startFlotilla(fleet, { controlPlaneArgs: ["--enable-no-execute-taint-eviction", "--allow-no-execute-taint-policy"] });
    [m1, m2] = fleet.members as [Cluster, Cluster];
    await kubectl(fleet.control, ["create", "namespace", NS]);
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  const binding = () => getJson<Binding>(fleet.control, ["rb", "-n", NS, "web-deployment"]);
  const split = (b: BindingJson) => b.spec.clusters.map((c) => `${c.name}=${c.replicas}`).join(" ");
  const available = async (m: Cluster) => (await getJson<DeploymentJson>(m, ["deploy", "-n", NS, "web"]))?.status?.availableReplicas ?? 0;

  it("a policy's NoExecute taint moves the Divided share off the cluster, new copy first", async () => {
    await apply(fleet.control, deploymentJson("web", NS, 4));
    await apply(fleet.control, placementPolicyJson("web", NS, ["member1", "member2"], { replicaScheduling: { replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted" } }));
    await eventually("divided 2/2", binding, (b) => split(b) === "member1=2 member2=2");
    await eventually("both run 2", async () => [await available(m1), await available(m2)], ([a, b]) => a === 2 && b === 2);

    // Drain member2 by policy: while it is Ready, NoExecute (allowed by --allow-no-execute-taint-policy).
    await apply(
      fleet.control,
      JSON.stringify({
        apiVersion: "flotilla.dev/v1alpha1",
        kind: "ClusterTaintPolicy",
        metadata: { name: "drain-member2" },
        spec: { targetClusters: { clusterNames: ["member2"] }, addOnConditions: [{ conditionType: "Ready", operator: "In", statusValues: ["True"] }], taints: [{ key: "drain", effect: "NoExecute" }] },
      }),
    );
    const deadline = Date.now() + 90_000;
    const seen = new Set<string>();
    for (;;) {
      const [b, a1, a2] = await Promise.all([binding(), available(m1), available(m2)]);
      assert.ok(a1 + a2 >= 4, `an outage while draining: member1 ${a1} + member2 ${a2} Available of 4 (binding ${b ? split(b) : "-"})`);
      for (const t of b?.spec.gracefulEvictionTasks ?? []) seen.add(`${t.fromCluster}:${t.reason}`);
      if (b && split(b) === "member1=4" && a1 === 4) break;
      assert.ok(Date.now() < deadline, `timed out waiting for member1 alone (binding ${b ? split(b) : "-"})`);
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(seen.has("member2:TaintUntolerated"), `member2's copy was held by a TaintUntolerated eviction task (seen: ${[...seen].join(", ") || "none"})`);
    await eventually("member2 lets go", () => getJson(m2, ["deploy", "-n", NS, "web"]).then((d) => (d === undefined ? "gone" : undefined)), () => true);
  });
});
