// Issue 42 in an HA control plane: two replicas, member1's agent on the leader, member2's on the
// standby. The leader follows the standby's agents' reports (PeerStatus.Follow) and writes every
// cluster's status entries itself: a Deployment costs three control writes on its way to
// Available, not one more per replica. Then the faults: the follow stream drops, the standby dies,
// the leader dies, each while a template is being deleted and member2 has not confirmed its
// removal yet; the binding (and its finalizer) must wait for member2 every time, and go once it
// confirmed. The failure threshold is long (60 s): member2 stays Ready throughout, so nothing but
// the stream's loss is judged (a not-Ready cluster is the leader's to write anyway).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { KubeRest } from "../../shared/kube-rest.ts";
import { MAX_SETTLE_MS } from "../../control-plane/status/status-settle.ts";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { waitFor } from "../env/wait.ts";
import { apply, type BindingJson, clusterItem, eventually, getJson, kubectl, sleep } from "./helpers.ts";
import { member2Later, WRITES_PER_TEMPLATE_GOAL, writesToAvailable } from "./write-gate.fixtures.ts";

const NS = "peer-status";
const T = 4;
const configMap = (name: string) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: NS, labels: { doomed: "yes" } }, data: { n: name } });

type Replica = Awaited<ReturnType<Flotilla["startReplica"]>>;
type DeletingBinding = BindingJson & { metadata: { deletionTimestamp?: string } };

describe("the leader writes every replica's status entries (PeerStatus.Follow)", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let control: KubeRest;
  let standby: Replica;
  const member = (i: number) => fleet.members[i] as Cluster;
  const metrics = (port: number) => flotilla.metricsAt(port).catch(() => ({}) as Record<string, number>);

  before(async () => {
    fleet = await startFleet({ members: 2 });
    flotilla = await startFlotilla(fleet, { clusterFailureThreshold: "60s" });
    control = new KubeRest(fleet.control.kubeConfig());
    await kubectl(fleet.control, ["create", "namespace", NS]);
    await apply(fleet.control, JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name: "all", namespace: NS }, spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment" }, { apiVersion: "v1", kind: "ConfigMap", labelSelector: { matchLabels: { doomed: "yes" } } }] } }));
    // member2's copies become Available 2 s after member1's: one change's answers arrive over seconds, from two replicas.
    await apply(fleet.control, JSON.stringify(member2Later(NS)));
    standby = await flotilla.startReplica();
    await flotilla.stopAgent("member2");
    await flotilla.startAgent("member2", { hubPort: standby.hubPort });
  });
  after(async () => {
    control?.close();
    await flotilla?.stop();
    await fleet?.stop();
  });

  /** Waits until the leader takes member2's reports from the standby, and the standby knows. */
  const followed = async (leaderPort: number, replicaPort: number) => {
    await waitFor(async () => (await metrics(leaderPort))['flotilla_peer_status_clusters{state="taken"}'] === 1, { what: "the leader to take member2's reports", timeoutMs: 30_000 });
    await waitFor(async () => (await metrics(replicaPort)).flotilla_peer_status_clusters_handed === 1, { what: "the replica to hand member2 over", timeoutMs: 30_000 });
  };

  it(`${T} Deployments to Available in both members, each member's agent on another replica: at most ${WRITES_PER_TEMPLATE_GOAL} control writes each, all status by the leader`, async (t) => {
    assert.equal((await metrics(flotilla.controlPlaneHealthPort)).flotilla_leader, 1, "the first replica leads");
    await followed(flotilla.controlPlaneHealthPort, standby.healthPort);
    const standbyWritesBefore = (await metrics(standby.healthPort)).flotilla_binding_status_writes_total ?? 0;
    const { perTemplate, writes } = await writesToAvailable(control, NS, T, 2);
    t.diagnostic(`${perTemplate.toFixed(2)} control writes per template, besides the ${T} templates: ${writes}`);
    assert.ok(perTemplate <= WRITES_PER_TEMPLATE_GOAL, `${perTemplate.toFixed(2)} control writes per template, above ${WRITES_PER_TEMPLATE_GOAL}: ${writes}`);
    assert.ok(perTemplate >= 1, `${perTemplate} writes per template cannot be: ${writes}`);
    assert.equal((await metrics(standby.healthPort)).flotilla_binding_status_writes_total ?? 0, standbyWritesBefore, "the standby wrote no binding status: the leader wrote member2's entries");
    const b = await getJson<BindingJson>(fleet.control, ["rb", "-n", NS, "web-0-deployment"]);
    assert.deepEqual([clusterItem(b as BindingJson, "member1")?.health, clusterItem(b as BindingJson, "member2")?.health], ["Healthy", "Healthy"]);
  });

  /** A ConfigMap in both members, then deleted while both agents are frozen: both entries wait. */
  const deleting = async (name: string): Promise<void> => {
    await apply(fleet.control, configMap(name));
    for (const m of [member(0), member(1)]) await eventually(`${name} in ${m.name}`, () => getJson(m, ["cm", "-n", NS, name]), () => true);
    await eventually("both entries applied", () => getJson<BindingJson>(fleet.control, ["rb", "-n", NS, `${name}-configmap`]), (b) => clusterItem(b, "member1")?.applied === true && clusterItem(b, "member2")?.applied === true);
    for (const m of ["member1", "member2"]) flotilla.agents.get(m)?.process.pause();
    await kubectl(fleet.control, ["delete", "cm", "-n", NS, name, "--wait=false"]);
    await eventually(
      "both members waited for",
      () => getJson<DeletingBinding>(fleet.control, ["rb", "-n", NS, `${name}-configmap`]),
      (b) => b.metadata.deletionTimestamp !== undefined && clusterItem(b, "member1")?.reason === "WaitingForRemoval" && clusterItem(b, "member2")?.reason === "WaitingForRemoval",
    );
  };

  /** member1 confirms its removal; for a while after, the binding still waits for member2, whose copy is still there. */
  const stillWaitsForMember2 = async (name: string, leaderPort: number): Promise<void> => {
    const seen = await waitFor(
      async () => {
        const b = await getJson<DeletingBinding>(fleet.control, ["rb", "-n", NS, `${name}-configmap`]);
        return b === undefined ? "released" : clusterItem(b, "member1") === undefined ? "confirmed" : undefined;
      },
      { what: "member1's removal confirmed", timeoutMs: 60_000 },
    );
    assert.equal(seen, "confirmed", `the binding was released while ${name} is still in member2 (${(await getJson(member(1), ["cm", "-n", NS, name])) === undefined ? "not there" : "there"})`);
    await sleep(MAX_SETTLE_MS + 2_000);
    const b = await getJson<DeletingBinding>(fleet.control, ["rb", "-n", NS, `${name}-configmap`]);
    assert.ok(b !== undefined, "the binding is still there: member2 has not confirmed its removal");
    assert.equal(clusterItem(b, "member2")?.reason, "WaitingForRemoval", `member2's entry stays; the leader says ${JSON.stringify(await metrics(leaderPort))}`);
    assert.ok(await getJson(member(1), ["cm", "-n", NS, name]), `${name} is still in member2`);
  };

  const released = async (name: string): Promise<void> => {
    await eventually(`${name} removed from member2`, () => getJson(member(1), ["cm", "-n", NS, name]).then((x) => (x === undefined ? "gone" : undefined)), () => true);
    await eventually("the binding released", () => getJson(fleet.control, ["rb", "-n", NS, `${name}-configmap`]).then((x) => (x === undefined ? "gone" : undefined)), () => true);
  };

  it("the follow stream drops mid-deletion (the standby frozen): the leader keeps member2's entry, and the finalizer waits for member2", async () => {
    await followed(flotilla.controlPlaneHealthPort, standby.healthPort);
    await deleting("doomed-1");
    standby.process.pause();
    try {
      await waitFor(async () => (await metrics(flotilla.controlPlaneHealthPort))['flotilla_peer_status_clusters{state="taken"}'] === 0, { what: "the leader to let the silent stream go", timeoutMs: 30_000 });
      flotilla.agents.get("member1")?.process.resume();
      await stillWaitsForMember2("doomed-1", flotilla.controlPlaneHealthPort);
    } finally {
      standby.process.resume();
      for (const m of ["member1", "member2"]) flotilla.agents.get(m)?.process.resume();
    }
    await released("doomed-1");
  });

  it("the standby dies mid-deletion: the leader keeps member2's entry until member2's agent, back on the leader, confirms", async () => {
    await followed(flotilla.controlPlaneHealthPort, standby.healthPort);
    await deleting("doomed-2");
    try {
      await standby.process.kill();
      await waitFor(async () => (await metrics(flotilla.controlPlaneHealthPort))['flotilla_peer_status_clusters{state="taken"}'] === 0, { what: "the leader to let the dead replica go", timeoutMs: 30_000 });
      flotilla.agents.get("member1")?.process.resume();
      await stillWaitsForMember2("doomed-2", flotilla.controlPlaneHealthPort);
    } finally {
      flotilla.agents.get("member1")?.process.resume();
      flotilla.agents.get("member2")?.process.resume();
    }
    await flotilla.stopAgent("member2");
    await flotilla.startAgent("member2");
    await released("doomed-2");
  });

  it("the leader dies mid-deletion: the standby, leading now, keeps member2's entry until member2 confirms", async () => {
    // A new standby, where member2's agent goes; the first replica leads.
    standby = await flotilla.startReplica();
    await flotilla.stopAgent("member2");
    await flotilla.startAgent("member2", { hubPort: standby.hubPort });
    await followed(flotilla.controlPlaneHealthPort, standby.healthPort);
    await deleting("doomed-3");
    try {
      flotilla.agents.get("member1")?.process.resume();
      await eventually("member1's removal confirmed", () => getJson<DeletingBinding>(fleet.control, ["rb", "-n", NS, "doomed-3-configmap"]), (b) => clusterItem(b, "member1") === undefined);
      await flotilla.controlPlane.kill();
      await waitFor(async () => (await metrics(standby.healthPort)).flotilla_leader === 1, { what: "the standby to lead", timeoutMs: 30_000 });
      await sleep(MAX_SETTLE_MS + 2_000);
      const b = await getJson<DeletingBinding>(fleet.control, ["rb", "-n", NS, "doomed-3-configmap"]);
      assert.ok(b !== undefined, "the binding is still there: member2 has not confirmed its removal");
      assert.equal(clusterItem(b, "member2")?.reason, "WaitingForRemoval");
      assert.ok(await getJson(member(1), ["cm", "-n", NS, "doomed-3"]), "doomed-3 is still in member2");
    } finally {
      flotilla.agents.get("member2")?.process.resume();
    }
    await released("doomed-3");
    for (let i = 0; i < T; i++) assert.ok(await getJson(member(1), ["deploy", "-n", NS, `web-${i}`]), `web-${i} is still in member2`);
  });
});
