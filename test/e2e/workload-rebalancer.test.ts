// Issue 22 on real members: a WorkloadRebalancer asks for a one-off fresh reschedule. Flotilla's
// dynamic weights are computed when a template is scheduled; room that frees up later moves
// nothing until something reschedules it. The rebalancer does, once: the member Deployments are
// scaled in place (same uids), the rebalancer's status says Successful for the workload and
// Failed/ReferencedBindingNotFound for one without a binding, and ttlSecondsAfterFinished deletes
// the rebalancer (nothing else). A fresh schedule that leaves a Ready cluster adds first: the
// cluster it leaves keeps its copy until the new one runs Available (DESIGN §11).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { parseQuantity } from "../../shared/quantity.ts";
import { apply, type BindingJson, eventually, getJson, kubectl, placementPolicyJson, sleep } from "./helpers.ts";

const NS = "rebalance";

interface DeploymentJson {
  metadata: { uid: string };
  status?: { availableReplicas?: number };
}
type Binding = BindingJson & {
  metadata: { annotations?: Record<string, string> };
  spec: { rescheduleTriggeredAt?: string; gracefulEvictionTasks?: { fromCluster: string; replicas?: number; reason: string }[] };
};
interface RebalancerJson {
  metadata: { creationTimestamp: string };
  status?: { observedWorkloads?: { workload: { name: string }; result?: string; reason?: string }[]; observedGeneration?: number; finishTime?: string };
}

/** A Deployment whose pods request 1 CPU each (dynamic weights divide by CPU room). */
const deployment = (name: string, namespace: string, replicas: number, cpu = "1") =>
  JSON.stringify({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "nginx", resources: { requests: { cpu } } }] } } },
  });

const dynamic = { replicaScheduling: { replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted", weightPreference: { dynamicWeight: "AvailableReplicas" } } };
const dynamicPolicy = (name: string, clusters: string[], extra: Record<string, unknown> = {}) => placementPolicyJson(name, NS, clusters, { ...dynamic, ...extra });

const rebalancer = (name: string, workloads: string[], ttl: number) =>
  JSON.stringify({
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "WorkloadRebalancer",
    metadata: { name },
    spec: { workloads: workloads.map((w) => ({ apiVersion: "apps/v1", kind: "Deployment", name: w, namespace: NS })), ttlSecondsAfterFinished: ttl },
  });

describe("WorkloadRebalancer on real members", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let m1: Cluster;
  let m2: Cluster;
  const split = (b: BindingJson) => b.spec.clusters.map((c) => `${c.name}=${c.replicas}`).join(" ");
  const binding = (name: string) => getJson<Binding>(fleet.control, ["rb", "-n", NS, `${name}-deployment`]);
  const member = (m: Cluster, name: string) => getJson<DeploymentJson>(m, ["deploy", "-n", NS, name]);
  const available = async (m: Cluster, name: string) => (await member(m, name))?.status?.availableReplicas ?? 0;
  const allocatedCpu = async (name: string) =>
    parseQuantity((await getJson<{ status?: { resourceSummary?: { allocated?: Record<string, string> } } }>(fleet.control, ["cluster", name]))?.status?.resourceSummary?.allocated?.cpu ?? "0");
  /** A Deployment of pods that request 14 CPUs each (or cpu), not managed by Flotilla: room taken in one member. */
  const ballast = (m: Cluster, replicas: number, cpu = "14") => apply(m, deployment("ballast", "default", replicas, cpu));

  before(async () => {
    fleet = await startFleet({ members: 2 });
    flotilla = await startFlotilla(fleet);
    [m1, m2] = fleet.members as [Cluster, Cluster];
    await kubectl(fleet.control, ["create", "namespace", NS]);
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  it("spreads a Divided Deployment afresh once room frees up: same member Deployments, Successful and ReferencedBindingNotFound in status, then the TTL deletes the rebalancer", async () => {
    // member2 nearly full: two 14-CPU pods on its two 16-CPU kwok nodes leave 4 of 32 CPUs.
    await ballast(m2, 2);
    await eventually("member2 reports 28 CPUs allocated", () => allocatedCpu("member2"), (cpu) => cpu >= 28, 90_000);
    await apply(fleet.control, deployment("web", NS, 6));
    await apply(fleet.control, dynamicPolicy("web", ["member1", "member2"]));
    // Room 32 : 4 → 5.33 : 0.67 → 5 and 1.
    await eventually("web divided by room", () => binding("web"), (b) => split(b) === "member1=5 member2=1");
    await eventually("member1 runs 5", () => available(m1, "web"), (n) => n === 5);
    await eventually("member2 runs 1", () => available(m2, "web"), (n) => n === 1);
    const uids = [(await member(m1, "web"))?.metadata.uid, (await member(m2, "web"))?.metadata.uid];
    // Any change of the template (its fleet status too) reschedules it: let that settle first.
    await eventually("the template's status says 6 Available", () => getJson<DeploymentJson>(fleet.control, ["deploy", "-n", NS, "web"]), (d) => d.status?.availableReplicas === 6);
    await sleep(3_000);

    await kubectl(m2, ["delete", "deploy", "-n", "default", "ballast", "--wait=true"]);
    await eventually("member2 reports its room back", () => allocatedCpu("member2"), (cpu) => cpu < 28, 90_000);
    await sleep(3_000);
    assert.equal(split((await binding("web")) as Binding), "member1=5 member2=1", "room alone moves nothing");

    // ttlSecondsAfterFinished 5: long enough to read its status once finished, and the TTL's deletion is awaited below.
    await apply(fleet.control, rebalancer("spread-web", ["web", "missing"], 5));
    const r = await eventually("the rebalancer finished", () => getJson<RebalancerJson>(fleet.control, ["workloadrebalancer", "spread-web"]), (x) => x.status?.finishTime !== undefined);
    assert.deepEqual(
      r.status?.observedWorkloads?.map((w) => [w.workload.name, w.result, w.reason]),
      [
        ["missing", "Failed", "ReferencedBindingNotFound"],
        ["web", "Successful", undefined],
      ],
    );
    assert.equal(r.status?.observedGeneration, 1);

    // Room 32 : 32 (what web runs counts as room where it runs) → 3 and 3.
    const b = await eventually("web spread afresh", () => binding("web"), (x) => split(x) === "member1=3 member2=3");
    assert.equal(b.spec.rescheduleTriggeredAt, r.metadata.creationTimestamp, "the request is on the binding");
    assert.equal(b.metadata.annotations?.["flotilla.dev/reschedule-served"], r.metadata.creationTimestamp, "and served, in the same write as the clusters");
    await eventually("member1 runs 3", () => available(m1, "web"), (n) => n === 3);
    await eventually("member2 runs 3", () => available(m2, "web"), (n) => n === 3);
    assert.deepEqual([(await member(m1, "web"))?.metadata.uid, (await member(m2, "web"))?.metadata.uid], uids, "scaled in place: no Deployment deleted or made again");

    await eventually("ttlSecondsAfterFinished deletes the rebalancer", () => getJson(fleet.control, ["workloadrebalancer", "spread-web"]).then((x) => (x === undefined ? "gone" : undefined)), () => true, 60_000);
    assert.equal(split((await binding("web")) as Binding), "member1=3 member2=3", "deleting the rebalancer changes nothing");
    assert.deepEqual([(await member(m1, "web"))?.metadata.uid, (await member(m2, "web"))?.metadata.uid], uids);
  });

  it("a fresh schedule that leaves a Ready cluster adds first: its copy stays until the new one runs Available", async () => {
    // At most one cluster: an ordinary schedule stays where the workload runs, a fresh one goes by room.
    const oneCluster = { spreadConstraints: [{ spreadByField: "cluster", maxGroups: 1, minGroups: 1 }] };
    await apply(fleet.control, deployment("solo", NS, 2));
    await apply(fleet.control, dynamicPolicy("solo", ["member2"], oneCluster));
    await eventually("solo on member2", () => binding("solo"), (b) => split(b) === "member2=2");
    await eventually("member2 runs solo", () => available(m2, "solo"), (n) => n === 2);
    // member2 gets less room than member1, and the policy admits member1: solo stays (it runs there).
    await ballast(m2, 1);
    await eventually("member2 reports the ballast", () => allocatedCpu("member2"), (cpu) => cpu >= 14, 90_000);
    await apply(fleet.control, dynamicPolicy("solo", ["member1", "member2"], oneCluster));
    await sleep(3_000);
    assert.equal(split((await binding("solo")) as Binding), "member2=2", "an ordinary schedule keeps it where it runs");

    await apply(fleet.control, rebalancer("move-solo", ["solo"], 300));
    // From the request until member1 alone holds it, the fleet never runs fewer than 2 Available.
    const deadline = Date.now() + 90_000;
    let heldSeen = false;
    for (;;) {
      const [b, a1, a2] = await Promise.all([binding("solo"), available(m1, "solo"), available(m2, "solo")]);
      assert.ok(a1 + a2 >= 2, `an outage: member1 ${a1} + member2 ${a2} Available of 2 (binding ${b ? split(b) : "-"})`);
      if (b?.spec.gracefulEvictionTasks?.some((t) => t.fromCluster === "member2" && t.reason === "FreshReschedule")) {
        heldSeen = true;
        assert.equal(split(b), "member1=2 member2=2", "member2 keeps its copy beside the new one");
      }
      if (b && split(b) === "member1=2" && a1 === 2) break;
      assert.ok(Date.now() < deadline, `timed out waiting for member1 alone (binding ${b ? split(b) : "-"})`);
      await sleep(100);
    }
    assert.ok(heldSeen, "member2 was held as a FreshReschedule eviction task");
    await eventually("member2 lets go once member1 runs it", () => member(m2, "solo").then((d) => (d === undefined ? "gone" : undefined)), () => true);
    const r = await getJson<RebalancerJson>(fleet.control, ["workloadrebalancer", "move-solo"]);
    assert.deepEqual(r?.status?.observedWorkloads?.map((w) => [w.workload.name, w.result]), [["solo", "Successful"]]);
  });

  it("a control-plane restart serves no request again; a new rebalancer does", async () => {
    // Now member2 has more room: a fresh schedule would move solo back, an ordinary one keeps it.
    await ballast(m1, 1, "10");
    await kubectl(m2, ["delete", "deploy", "-n", "default", "ballast", "--wait=true"]);
    await eventually("member1 reports the ballast", () => allocatedCpu("member1"), (cpu) => cpu >= 15, 90_000);
    await eventually("member2 reports its room back", () => allocatedCpu("member2"), (cpu) => cpu < 14, 90_000);
    const before = (await binding("solo")) as Binding;
    const uid = (await member(m1, "solo"))?.metadata.uid;
    const rebalancerBefore = await getJson<RebalancerJson>(fleet.control, ["workloadrebalancer", "move-solo"]);

    await flotilla.stopControlPlane();
    await flotilla.startControlPlane();
    await eventually("the control plane leads again", () => flotilla.metricsAt(flotilla.controlPlaneHealthPort), (m) => m.flotilla_leader === 1, 60_000);
    await sleep(8_000);
    const after = (await binding("solo")) as Binding;
    assert.equal(split(after), "member1=2", "the served trigger is not served again");
    assert.equal(after.metadata.annotations?.["flotilla.dev/reschedule-served"], before.metadata.annotations?.["flotilla.dev/reschedule-served"]);
    assert.equal((await member(m1, "solo"))?.metadata.uid, uid);
    assert.equal(await member(m2, "solo"), undefined);
    assert.deepEqual((await getJson<RebalancerJson>(fleet.control, ["workloadrebalancer", "move-solo"]))?.status, rebalancerBefore?.status, "the rebalancer is done, and stays so");

    // A rebalancer made later is a new request: solo goes to the roomier member2, adding first.
    await sleep(1_000); // creationTimestamp has seconds: a later second than the last request
    await apply(fleet.control, rebalancer("move-solo-back", ["solo"], 0));
    await eventually("solo on member2", () => binding("solo"), (b) => split(b) === "member2=2", 90_000);
    await eventually("member2 runs solo", () => available(m2, "solo"), (n) => n === 2);
    await eventually("the TTL 0 deletes the rebalancer as soon as it finished", () => getJson(fleet.control, ["workloadrebalancer", "move-solo-back"]).then((x) => (x === undefined ? "gone" : undefined)), () => true);
  });
});
