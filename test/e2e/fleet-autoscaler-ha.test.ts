// Issue 22 in an HA control plane: two replicas, and the two members' agents stream to different
// ones (member1 to the leader, member2 to the standby). The leader's FederatedHPA must see both
// clusters' summaries: it collects member2's from the standby (PeerMetrics). With the load at 10%
// against a 50% target it scales the Divided Deployment from 4 to its minReplicas 2, which it
// refuses to do while a member's summary is missing (that member's pods count at 100%).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { setWorkloadUsage } from "../env/usage.ts";
import { waitFor } from "../env/wait.ts";
import { cpuDeployment, cpuFederatedHpa, dividedPolicy, SHORT_AUTOSCALING_PERIODS } from "./fleet-autoscaling.fixtures.ts";
import { apply, type BindingJson, eventually, getJson, kubectl } from "./helpers.ts";

const NS = "fleet-hpa-ha";
const LABELS = { app: "cpu-ha" };

interface FhpaJson {
  status?: {
    desiredReplicas?: number;
    currentMetrics?: { resource?: { name: string; current: { averageUtilization?: number } } }[];
    conditions?: { type: string; status: string; reason: string }[];
  };
}
interface EventJson {
  type: string;
  reason: string;
  message: string;
}

describe("a FederatedHPA in an HA control plane", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  before(async () => {
    fleet = await startFleet({ members: 2, metrics: true });
    flotilla = await startFlotilla(fleet, SHORT_AUTOSCALING_PERIODS);
    await kubectl(fleet.control, ["create", "namespace", NS]);
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  it("uses the summaries of a member whose agent streams to the other replica", async () => {
    const standby = await flotilla.startReplica();
    assert.equal((await flotilla.controlPlaneMetrics()).flotilla_leader, 1, "the first replica leads");
    // member2's agent moves to the standby; member1's stays on the leader.
    await flotilla.stopAgent("member2");
    await flotilla.startAgent("member2", { hubPort: standby.hubPort });
    const holder = (cluster: string) => getJson<{ spec: { holderIdentity?: string } }>(fleet.control, ["lease", "-n", "flotilla-cluster-lease", cluster]);
    await eventually("member2's lease held by the standby", () => holder("member2"), (l) => l.spec.holderIdentity === "replica-1");
    assert.equal((await holder("member1"))?.spec.holderIdentity, "control-plane");
    await waitFor(async () => (await flotilla.metricsAt(standby.healthPort)).flotilla_connected_agents === 1, { what: "member2's agent on the standby", timeoutMs: 30_000 });

    for (const m of fleet.members as Cluster[]) await setWorkloadUsage(m.kubeConfig(), NS, LABELS, { cpu: "50m" });
    await apply(fleet.control, cpuDeployment(NS, "cpu", LABELS, 4));
    await apply(fleet.control, dividedPolicy(NS, "cpu"));
    const split = async () => (await getJson<BindingJson>(fleet.control, ["rb", "-n", NS, "cpu-deployment"]))?.spec.clusters.map((c) => `${c.name}=${c.replicas}`).join(" ");
    await eventually("cpu divided 2 + 2", split, (s) => s === "member1=2 member2=2");
    await apply(fleet.control, cpuFederatedHpa(NS, "cpu", 2, 4));

    // Both members' pods at 10%: down to minReplicas. Had member2's summary not reached the
    // leader, its 2 pods would count at 100% ((10+10+100+100)/4 = 55%, within tolerance): no change.
    await eventually("the template scaled down to minReplicas 2", async () => (await getJson<{ spec: { replicas: number } }>(fleet.control, ["deploy", "-n", NS, "cpu"]))?.spec.replicas, (r) => r === 2, 300_000);
    const fhpa = await eventually("the FederatedHPA's status", () => getJson<FhpaJson>(fleet.control, ["federatedhpa", "-n", NS, "cpu"]), (f) => f.status?.desiredReplicas === 2);
    assert.equal(fhpa.status?.conditions?.find((c) => c.type === "ScalingActive")?.status, "True");
    const utilization = fhpa.status?.currentMetrics?.find((m) => m.resource?.name === "cpu")?.resource?.current.averageUtilization ?? -1;
    assert.ok(utilization >= 0 && utilization <= 20, `the fleet's CPU utilization read ${utilization}%`);
    // The Event is recorded after the scale (the recorder writes it on its own): wait for it, as
    // reading at once failed once on a loaded machine with only the earlier Warnings there.
    const rescaled = (e: EventJson) => e.reason === "SuccessfulRescale" && e.message === "New size: 2; reason: All metrics below target";
    const events = async () => (await getJson<{ items: EventJson[] }>(fleet.control, ["events", "-n", NS, "--field-selector", "involvedObject.kind=FederatedHPA,involvedObject.name=cpu"]))?.items;
    await eventually("a SuccessfulRescale Event for the scale-down", events, (items) => items.some(rescaled));

    // The summaries came through the standby: the leader took them, the standby served them.
    const leader = await flotilla.controlPlaneMetrics();
    assert.ok((leader['flotilla_peer_summaries_total{outcome="taken"}'] ?? 0) > 0, "the leader took summaries from the standby");
    assert.equal(leader.flotilla_peer_replicas, 1);
    assert.ok(((await flotilla.metricsAt(standby.healthPort)).flotilla_peer_summaries_served_total ?? 0) > 0, "the standby served them");
  });
});
