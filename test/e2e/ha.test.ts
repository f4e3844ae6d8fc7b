// Two control-plane replicas: controllers run on the Lease-elected leader, the hub on both.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { waitFor } from "../env/wait.ts";
import { apply, type BindingJson, eventually, getJson, kubectl } from "./helpers.ts";

const configMap = (name: string) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "ha", labels: { ha: "yes" } }, data: { n: name } });

describe("control plane high availability", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  /** The replica the first test fails over to: it leads when the second test starts. */
  let standby: Awaited<ReturnType<Flotilla["startReplica"]>>;
  before(async () => {
    fleet = await startFleet({ members: 1 });
    flotilla = await startFlotilla(fleet);
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  it("runs controllers on the leader only, serves agents on every replica, and fails over to the standby", async () => {
    const control = fleet.control;
    const member = fleet.members[0] as Cluster;
    standby = await flotilla.startReplica();
    assert.equal((await flotilla.controlPlaneMetrics()).flotilla_leader, 1, "the first replica leads");
    assert.equal((await flotilla.metricsAt(standby.healthPort)).flotilla_leader, 0, "the second waits");
    const lease = await getJson<{ spec: { holderIdentity: string } }>(control, ["lease", "-n", "flotilla-system", "flotilla-control-plane"]);
    assert.match(lease?.spec.holderIdentity ?? "", /_\d+$/);

    await kubectl(control, ["create", "namespace", "ha"]);
    await apply(control, configMap("one"));
    await apply(control, JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name: "ha", namespace: "ha" }, spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", labelSelector: { matchLabels: { ha: "yes" } } }] } }));
    await eventually("one in the member", () => getJson(member, ["cm", "-n", "ha", "one"]), () => true);

    // The agent moves to the standby's hub (the leader's Works are computed on every replica).
    await flotilla.stopAgent(member.name);
    await flotilla.startAgent(member.name, { hubPort: standby.hubPort });
    await waitFor(async () => (await flotilla.metricsAt(standby.healthPort)).flotilla_connected_agents === 1, { what: "agent on the standby", timeoutMs: 30_000 });

    // Reports reach the standby's hub; it writes member1's entries, the leader the conditions.
    await apply(control, configMap("one-b"));
    const viaStandby = await eventually("status through the standby", () => getJson<BindingJson>(control, ["rb", "-n", "ha", "one-b-configmap"]), (x) => x.status?.conditions?.find((c) => c.type === "FullyApplied")?.status === "True");
    assert.equal(viaStandby.status?.aggregatedStatus?.[0]?.clusterName, member.name);

    // The leader goes; the standby takes the lease and its controllers bind new templates.
    const failedAt = Date.now();
    await flotilla.stopControlPlane();
    await waitFor(async () => (await flotilla.metricsAt(standby.healthPort)).flotilla_leader === 1, { what: "the standby to lead", timeoutMs: 30_000 });
    const tookMs = Date.now() - failedAt;
    await apply(control, configMap("two"));
    const b = await eventually("binding written by the new leader", () => getJson<BindingJson>(control, ["rb", "-n", "ha", "two-configmap"]), (x) => x.spec.clusters.length === 1);
    assert.equal(b.spec.clusters[0]?.name, member.name);
    await eventually("two in the member, through the standby's hub", () => getJson(member, ["cm", "-n", "ha", "two"]), () => true);
    assert.ok(tookMs < 10_000, `failover took ${tookMs} ms`);
  });

  it("a leader frozen past its lease is replaced, and steps down the moment it runs again, leaving the lease to the new leader", async () => {
    const control = fleet.control;
    // The first test's standby leads now; the first replica comes back as the standby.
    await flotilla.startControlPlane();
    const lease = async () => (await getJson<{ spec: { holderIdentity: string; leaseTransitions?: number } }>(control, ["lease", "-n", "flotilla-system", "flotilla-control-plane"]))?.spec;
    const leaderPort = async (): Promise<number | undefined> => {
      for (const port of [flotilla.controlPlaneHealthPort, standby.healthPort]) if ((await flotilla.metricsAt(port).catch(() => ({}) as Record<string, number>)).flotilla_leader === 1) return port;
      return undefined;
    };
    // Whoever leads is frozen (SIGSTOP), as by a long GC pause or a stalled VM.
    const frozenPort = await eventually("a leader", leaderPort, () => true);
    const frozen = frozenPort === standby.healthPort ? standby.process : flotilla.controlPlane;
    const other = frozenPort === standby.healthPort ? flotilla.controlPlaneHealthPort : standby.healthPort;
    const before = await lease();
    frozen.pause();
    try {
      await waitFor(async () => (await flotilla.metricsAt(other)).flotilla_leader === 1, { what: "the other replica to take the lease", timeoutMs: 30_000 });
    } finally {
      frozen.resume();
    }
    const after = await lease();
    assert.notEqual(after?.holderIdentity, before?.holderIdentity, "the lease changed hands");
    // Its renew deadline long past, the resumed leader steps down (and exits to compete afresh).
    await waitFor(async () => !frozen.running, { what: "the resumed leader to step down", timeoutMs: 15_000 });
    assert.equal((await lease())?.holderIdentity, after?.holderIdentity, "the lease stays with the new leader");
  });
});
