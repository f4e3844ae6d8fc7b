// Heartbeats in one Lease per cluster (issue 12): with the agent connected and nothing changing,
// the Cluster is not rewritten while its lease is renewed; the lease follows the agent to another
// replica at once, and when that replica dies the leader judges the cluster by the lease.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { waitFor } from "../env/wait.ts";
import { eventually, getJson } from "./helpers.ts";

const LEASE_NS = "flotilla-cluster-lease";

interface ClusterJson {
  metadata: { resourceVersion: string };
  status?: { conditions?: { type: string; status: string; reason: string; message: string }[] };
}
interface LeaseJson {
  metadata: { ownerReferences?: { kind: string; name: string; uid: string }[] };
  spec: { holderIdentity?: string; renewTime?: string; leaseDurationSeconds?: number };
}

describe("cluster leases", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let member: Cluster;
  const cluster = () => getJson<ClusterJson>(fleet.control, ["cluster", member.name]);
  const lease = async () => (await getJson<LeaseJson>(fleet.control, ["lease", "-n", LEASE_NS, member.name]))?.spec;
  const ready = (c: ClusterJson | undefined) => c?.status?.conditions?.find((x) => x.type === "Ready");

  before(async () => {
    fleet = await startFleet({ members: 1 });
    member = fleet.members[0] as Cluster;
    // Heartbeats every 1 s and lease renewals every 1 s (test/env); status reports as in production.
    flotilla = await startFlotilla(fleet, { clusterStatusUpdateFrequency: "5m" });
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  it("renews the cluster's lease from heartbeats and leaves the Cluster unwritten while nothing changes", async () => {
    await eventually("the member Ready", cluster, (c) => ready(c)?.status === "True");
    const first = await eventually("the member's lease, held by the replica that hears it", lease, (l) => l.holderIdentity === "control-plane");
    assert.equal(first.leaseDurationSeconds, 6, "renew interval 1 s + failure threshold 5 s");
    const whole = await getJson<LeaseJson & { metadata: { uid: string } }>(fleet.control, ["lease", "-n", LEASE_NS, member.name]);
    const owner = await getJson<{ metadata: { uid: string } }>(fleet.control, ["cluster", member.name]);
    assert.deepEqual(whole?.metadata.ownerReferences?.map((o) => [o.kind, o.name, o.uid]), [["Cluster", member.name, owner?.metadata.uid]], "owned by its Cluster, so it goes with it");
    // Let the first status writes (Ready, versions, capacity) settle, then watch over 6 heartbeats.
    await new Promise((r) => setTimeout(r, 3_000));
    const before = await cluster();
    const leaseBefore = await lease();
    const metricsBefore = await flotilla.controlPlaneMetrics();
    await new Promise((r) => setTimeout(r, 6_000));
    const afterwards = await cluster();
    const leaseAfter = await lease();
    const metricsAfter = await flotilla.controlPlaneMetrics();
    assert.equal(afterwards?.metadata.resourceVersion, before?.metadata.resourceVersion, "heartbeats no longer rewrite the Cluster");
    assert.ok(Date.parse(leaseAfter?.renewTime ?? "") > Date.parse(leaseBefore?.renewTime ?? ""), `the lease's renewTime moves (${leaseBefore?.renewTime} → ${leaseAfter?.renewTime})`);
    const renewals = (metricsAfter['flotilla_cluster_lease_writes_total{reason="renew"}'] ?? 0) - (metricsBefore['flotilla_cluster_lease_writes_total{reason="renew"}'] ?? 0);
    assert.ok(renewals >= 2 && renewals <= 7, `about one renewal a second (${renewals} in 6 s)`);
    const statusWrites = (m: Record<string, number>) => Object.entries(m).filter(([k]) => k.startsWith("flotilla_cluster_status_writes_total")).reduce((a, [, v]) => a + v, 0);
    assert.equal(statusWrites(metricsAfter), statusWrites(metricsBefore), "no Cluster status write counted");
  });

  it("moves the lease with the agent at once, and the leader judges the cluster by it when that replica dies", async () => {
    const standby = await flotilla.startReplica();
    await flotilla.stopAgent(member.name);
    await flotilla.startAgent(member.name, { hubPort: standby.hubPort });
    await eventually("the lease held by the standby", lease, (l) => l.holderIdentity === "replica-1", 15_000);
    await eventually("the member Ready through the standby", cluster, (c) => ready(c)?.status === "True");
    // The replica that hears the agent dies with it: no replica hears the member any more.
    await flotilla.stopAgent(member.name);
    await standby.process.kill();
    const diedAt = Date.now();
    const notReady = await eventually("the member NotReady, judged by the leader", cluster, (c) => ready(c)?.status === "False", 30_000);
    const tookMs = Date.now() - diedAt;
    assert.equal(ready(notReady)?.reason, "ClusterNotReachable");
    assert.match(ready(notReady)?.message ?? "", /lease, last renewed by replica-1/);
    // The lease lasts 6 s from the last heartbeat it holds; the leader looks again when it expires.
    assert.ok(tookMs < 6_000 + 4_000, `NotReady ${tookMs} ms after the replica died (lease 6 s)`);
    assert.equal((await flotilla.controlPlaneMetrics()).flotilla_leader, 1, "the first replica leads and judged it");
    await flotilla.startAgent(member.name);
    await eventually("the lease back with the first replica", lease, (l) => l.holderIdentity === "control-plane", 15_000);
    await waitFor(async () => ready(await cluster())?.status === "True", { what: "the member Ready again", timeoutMs: 30_000 });
  });
});
