// DESIGN §11, issue 20 item 9 on real clusters: a cluster whose Divided share was evicted while it
// was not Ready is asked again when it returns, never told to delete on the way: the removal is
// not sent while it is not Ready (not even queued on a stream its frozen agent does not read),
// and once it is back the placement that wants it again keeps its copy, same uid.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { apply, type BindingJson, deletions, deploymentJson, eventually, getJson, kubectl, sleep } from "./helpers.ts";

const NS = "returning";
/** --cluster-ready-settle-period in this file. */
const SETTLE_MS = 3_000;

interface DeploymentJson {
  metadata: { uid: string };
  spec: { replicas: number };
  status?: { availableReplicas?: number };
}

const divided = JSON.stringify({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "PropagationPolicy",
  metadata: { name: "web", namespace: NS },
  spec: {
    resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "web" }],
    placement: {
      clusterAffinity: { clusterNames: ["member1", "member2"] },
      replicaScheduling: { replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted", weightPreference: { staticWeightList: [{ targetCluster: {}, weight: 1 }] } },
    },
  },
});


describe("a returning cluster is asked again, not told to delete", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let m1: Cluster;
  let m2: Cluster;
  before(async () => {
    fleet = await startFleet({ members: 2 });
    // The fleet: a short failure threshold and eviction period, so a freeze evicts.
    // A held removal is judged again once the cluster has been Ready --cluster-ready-settle-period: 3 s here.
    flotilla = await startFlotilla(fleet, { clusterFailureThreshold: "4s", gracefulEvictionPeriod: "2s", controlPlaneArgs: [`--cluster-ready-settle-period=${SETTLE_MS}ms`] });
    [m1, m2] = fleet.members as [Cluster, Cluster];
    await kubectl(fleet.control, ["create", "namespace", NS]);
  });
  after(async () => {
    flotilla?.agents.get("member2")?.process.resume();
    await flotilla?.stop();
    await fleet?.stop();
  });

  const split = (b: BindingJson) => b.spec.clusters.map((c) => `${c.name}=${c.replicas}`).join(" ");
  const binding = () => getJson<BindingJson>(fleet.control, ["rb", "-n", NS, "web-deployment"]);

  it("an agent frozen past the failure threshold keeps its evicted copy and, back, the same Deployment", async () => {
    await apply(fleet.control, deploymentJson("web", NS, 4));
    await apply(fleet.control, divided);
    await eventually("2 and 2", binding, (b) => split(b) === "member1=2 member2=2");
    const before2 = await eventually("member2 runs 2", () => getJson<DeploymentJson>(m2, ["deploy", "-n", NS, "web"]), (d) => d.status?.availableReplicas === 2);
    const deletesBefore = deletions(await flotilla.agentMetrics("member2"));

    const agent = flotilla.agents.get("member2")?.process;
    assert.ok(agent);
    agent.pause();
    try {
      // member2 is NotReady, its share moves to member1, and once that is Available its copy is evicted.
      await eventually("member1 takes all 4", () => getJson<DeploymentJson>(m1, ["deploy", "-n", NS, "web"]), (d) => d.spec.replicas === 4 && d.status?.availableReplicas === 4, 60_000);
      await eventually("member2 evicted from the placement", binding, (b) => split(b) === "member1=4", 60_000);
      await sleep(2000); // any removal the hub would send is sent by now, to the frozen agent's stream
    } finally {
      agent.resume();
    }
    await eventually("member2 placed again", binding, (b) => split(b) === "member1=2 member2=2", 60_000);
    await eventually("member2 runs 2 again", () => getJson<DeploymentJson>(m2, ["deploy", "-n", NS, "web"]), (d) => d.spec.replicas === 2, 60_000);
    // Past the settle period after which a held removal is judged again (--cluster-ready-settle-period, 3 s here), and its sending and acting.
    await sleep(SETTLE_MS + 2_000);
    const after2 = await getJson<DeploymentJson>(m2, ["deploy", "-n", NS, "web"]);
    assert.equal(after2?.metadata.uid, before2.metadata.uid, "member2's Deployment is the same object: never deleted and made again");
    assert.deepEqual(deletions(await flotilla.agentMetrics("member2")), deletesBefore, "member2's agent deleted nothing");
  });
});
