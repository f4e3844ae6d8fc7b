// Issue 22, replicas that cannot run move. member2's two fake nodes have 1.5 CPU each: its
// resource summary says 3 CPU are free, but a pod of 1 CPU fits each node once, so of the 3
// replicas dynamic weights give it (member1: 2 nodes of 2 CPU) one stays Unschedulable in the
// real kube-scheduler. After --unschedulable-threshold the control plane moves that replica to
// member1 (add first: member2 keeps 3 until member1 runs 4 Available), then member2 goes down to
// 2, and every replica runs, with no member object or running pod replaced. The move is on the
// binding (spec.replicaMoves, condition ReplicasMoved), and member2 gets no replica back while its
// summary claims no more room than when its pod could not be placed.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { setNodeCapacity } from "../env/usage.ts";
import { apply, type BindingJson, condition, eventually, getJson, kubectl, sleep } from "./helpers.ts";

const NS = "moves";
const THRESHOLD_S = 10;
const LABELS = { app: "web" };

interface PodJson {
  metadata: { name: string; uid: string; labels?: Record<string, string> };
  spec: { nodeName?: string };
  status: { phase: string; conditions?: { type: string; status: string; reason?: string }[] };
}
interface MovesBinding extends BindingJson {
  spec: BindingJson["spec"] & { replicaMoves?: { fromCluster: string; replicas: number; had: number; keep: number; released?: boolean; freeAtMove?: number }[] };
}

describe("replicas whose pods stay Unschedulable move to a cluster with room", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let member1: Cluster;
  let member2: Cluster;
  before(async () => {
    fleet = await startFleet({ members: 2 });
    [member1, member2] = fleet.members as [Cluster, Cluster];
    for (const [m, cpu] of [
      [member1, "2"],
      [member2, "1500m"],
    ] as const) {
      for (const node of [`${m.name}-node-0`, `${m.name}-node-1`]) await setNodeCapacity(m.kubeConfig(), node, { cpu });
    }
    flotilla = await startFlotilla(fleet, { controlPlaneArgs: [`--unschedulable-threshold=${THRESHOLD_S}s`] });
    await kubectl(fleet.control, ["create", "namespace", NS]);
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  const binding = () => getJson<MovesBinding>(fleet.control, ["rb", "-n", NS, "web-deployment"]);
  const split = (b: MovesBinding) => b.spec.clusters.map((c) => `${c.name}=${c.replicas}`).join(" ");
  const pods = async (m: Cluster) => (await getJson<{ items: PodJson[] }>(m, ["pods", "-n", NS, "-l", "app=web"]))?.items ?? [];
  const uid = async (m: Cluster) => (await getJson<{ metadata: { uid: string } }>(m, ["deploy", "-n", NS, "web"]))?.metadata.uid;
  const unschedulable = (p: PodJson) => p.status.conditions?.some((c) => c.type === "PodScheduled" && c.status === "False" && c.reason === "Unschedulable") === true;

  it("moves the Unschedulable replica, adding first, and keeps every running pod", async () => {
    // The summaries the scheduler reads: member1 4 CPU, member2 3 CPU.
    for (const [m, cpu] of [
      [member1.name, "4"],
      [member2.name, "3"],
    ] as const) {
      await eventually(`${m}'s summary says ${cpu} CPU`, () => getJson<{ status?: { resourceSummary?: { allocatable?: { cpu?: string } } } }>(fleet.control, ["cluster", m]), (c) => c.status?.resourceSummary?.allocatable?.cpu === cpu);
    }
    await apply(
      fleet.control,
      JSON.stringify({
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "web", namespace: NS, labels: LABELS },
        spec: {
          replicas: 6,
          selector: { matchLabels: LABELS },
          template: { metadata: { labels: LABELS }, spec: { containers: [{ name: "c", image: "busybox", resources: { requests: { cpu: "1", memory: "32Mi" } } }] } },
        },
      }),
    );
    await apply(
      fleet.control,
      JSON.stringify({
        apiVersion: "flotilla.dev/v1alpha1",
        kind: "PropagationPolicy",
        metadata: { name: "web", namespace: NS },
        spec: {
          resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "web" }],
          placement: {
            clusterAffinity: { clusterNames: [member1.name, member2.name] },
            replicaScheduling: { replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted", weightPreference: { dynamicWeight: "AvailableReplicas" } },
          },
        },
      }),
    );
    // 6 by free room 4 : 3 → 3 + 3; member2 runs 2 (one per node) and one pod stays Pending.
    await eventually("divided 3 + 3", binding, (b) => split(b) === "member1=3 member2=3");
    const stuckPods = await eventually("one of member2's pods Unschedulable, two Running", () => pods(member2), (ps) => ps.filter(unschedulable).length === 1 && ps.filter((p) => p.status.phase === "Running").length === 2);
    const stuckAt = Date.now();
    const running1 = (await eventually("member1's 3 pods Running", () => pods(member1), (ps) => ps.filter((p) => p.status.phase === "Running").length === 3)).map((p) => p.metadata.uid);
    const running2 = stuckPods.filter((p) => p.status.phase === "Running").map((p) => p.metadata.uid);
    const uids = [await uid(member1), await uid(member2)];
    assert.ok(uids.every((u) => u !== undefined));

    // The agent reports it on member2's entry.
    const reported = await eventually("member2's entry reports 1 Unschedulable", binding, (b) => (b.status?.aggregatedStatus?.find((i) => i.clusterName === member2.name) as { unschedulableReplicas?: number } | undefined)?.unschedulableReplicas === 1);
    assert.equal(split(reported), "member1=3 member2=3", "nothing moves before the threshold");

    // Past the threshold it moves: member1 gets 4 while member2 still has 3 (add first), then member2 goes to 2.
    const moved = await eventually("the move is recorded", binding, (b) => (b.spec.replicaMoves ?? []).length === 1, 60_000);
    assert.ok(Date.now() - stuckAt >= (THRESHOLD_S - 2) * 1000, "not before the threshold");
    const m = moved.spec.replicaMoves?.[0];
    assert.deepEqual({ from: m?.fromCluster, replicas: m?.replicas, had: m?.had, keep: m?.keep, freeAtMove: m?.freeAtMove }, { from: member2.name, replicas: 1, had: 3, keep: 2, freeAtMove: 1 });
    if (m?.released !== true) assert.equal(split(moved), "member1=4 member2=3", "member2 keeps what it had until member1 runs the replica");
    const done = await eventually("released: 4 + 2", binding, (b) => split(b) === "member1=4 member2=2" && b.spec.replicaMoves?.[0]?.released === true, 60_000);
    const cond = await eventually("the ReplicasMoved condition", binding, (b) => condition(b, "ReplicasMoved")?.status === "True");
    assert.match(condition(cond, "ReplicasMoved")?.message ?? "", /1 of 3 replicas moved from member2 .*Unschedulable/);
    assert.equal(done.spec.clusters.length, 2);

    // Every replica runs, in the clusters with room, and nothing that ran was replaced.
    const after1 = await eventually("member1 runs 4", () => pods(member1), (ps) => ps.length === 4 && ps.every((p) => p.status.phase === "Running"));
    const after2 = await eventually("member2 runs 2, none Pending", () => pods(member2), (ps) => ps.length === 2 && ps.every((p) => p.status.phase === "Running"));
    for (const u of running1) assert.ok(after1.some((p) => p.metadata.uid === u), "member1's running pods stay");
    for (const u of running2) assert.ok(after2.some((p) => p.metadata.uid === u), "member2's running pods stay: only the Pending one went");
    assert.deepEqual([await uid(member1), await uid(member2)], uids, "no member Deployment was replaced");

    // Past the window member2's summary still claims room for 1 (its nodes each hold 0.5 CPU): the move lasts, nothing goes back.
    await sleep((THRESHOLD_S + 3) * 1000);
    const later = await binding();
    assert.equal(later && split(later), "member1=4 member2=2");
    assert.equal(later?.spec.replicaMoves?.length, 1);
    assert.ok((await pods(member2)).every((p) => p.status.phase === "Running"));
  });
});
