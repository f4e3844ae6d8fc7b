// Two control-plane replicas: controllers run on the Lease-elected leader, the hub on both.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { readFile } from "node:fs/promises";
import { waitFor } from "../env/wait.ts";
import { apply, type BindingJson, clusterItem, eventually, getJson, kubectl } from "./helpers.ts";

const configMap = (name: string) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "ha", labels: { ha: "yes" } }, data: { n: name } });

describe("control plane high availability", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  /** The replica the first test fails over to: it leads when the second test starts. */
  let standby: Awaited<ReturnType<Flotilla["startReplica"]>>;
  /** The standby the third test starts: it leads when the fourth starts. */
  let spare: Awaited<ReturnType<Flotilla["startReplica"]>>;
  before(async () => {
    fleet = await startFleet({ members: 1, auditControl: true });
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
    assert.equal(lease?.spec.holderIdentity, "control-plane", "the replica's fixed identity holds the lease");

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

  it("a leader frozen past its lease is replaced, writes nothing after it resumes (audit log), and steps down, leaving the lease to the new leader", async () => {
    const control = fleet.control;
    const member = fleet.members[0] as Cluster;
    // The first test's standby leads now; the first replica comes back as the standby, and the
    // agent moves to it (the agent's hub must outlive the frozen leader to see the churn applied).
    await flotilla.startControlPlane();
    await flotilla.stopAgent(member.name);
    await flotilla.startAgent(member.name);
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
    const frozenAgent = `flotilla-control-plane/${before?.holderIdentity ?? "?"}`;
    frozen.pause();
    let resumedAt = 0;
    try {
      await waitFor(async () => (await flotilla.metricsAt(other)).flotilla_leader === 1, { what: "the other replica to take the lease", timeoutMs: 30_000 });
      // Work the controllers must do, queued while the old leader sleeps: a new template, a changed one.
      await apply(control, configMap("three"));
      await apply(control, JSON.stringify({ ...JSON.parse(configMap("one")), data: { n: "one", v: "2" } }));
      await eventually("three bound by the new leader", () => getJson<BindingJson>(control, ["rb", "-n", "ha", "three-configmap"]), (x) => x.spec.clusters.length === 1);
    } finally {
      resumedAt = Date.now();
      frozen.resume();
    }
    const after = await lease();
    assert.notEqual(after?.holderIdentity, before?.holderIdentity, "the lease changed hands");
    // Churn after the resume: templates created, changed and deleted, for the controllers to act on.
    for (let i = 0; i < 6; i++) {
      await apply(control, configMap(`churn-${i}`));
      await apply(control, JSON.stringify({ ...JSON.parse(configMap("one")), data: { n: "one", v: `churn-${i}` } }));
      if (i > 0) await kubectl(control, ["delete", "cm", "-n", "ha", `churn-${i - 1}`]);
      await new Promise((r) => setTimeout(r, 500));
    }
    await eventually("the churn in the member", () => getJson<{ data: { v: string } }>(member, ["cm", "-n", "ha", "one"]), (x) => x.data.v === "churn-5");
    await eventually("churn-5 in the member", () => getJson(member, ["cm", "-n", "ha", "churn-5"]), () => true);
    // The control cluster's audit log has every write, with the user agent naming the replica.
    const writes = (await readFile(control.auditLogPath as string, "utf8"))
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as AuditEvent);
    const by = (agent: string) => writes.filter((w) => w.userAgent === agent);
    assert.ok(by(frozenAgent).some((w) => Date.parse(w.stageTimestamp) < resumedAt), `the log names the frozen replica's writes (${frozenAgent}) before the freeze`);
    assert.ok(
      by(`flotilla-control-plane/${after?.holderIdentity ?? "?"}`).some((w) => Date.parse(w.stageTimestamp) > resumedAt),
      "the new leader's writes after the resume are in the log",
    );
    // Not one write after the resume, not even a lease update: its writes are fenced from the
    // moment its renew deadline passed (while frozen), before any of its timers or callbacks ran.
    const late = by(frozenAgent).filter((w) => Date.parse(w.stageTimestamp) > resumedAt);
    assert.deepEqual(
      late.map((w) => `${w.stageTimestamp} ${w.verb} ${w.objectRef?.resource ?? ""}/${w.objectRef?.name ?? ""} ${w.responseStatus?.code ?? ""}`),
      [],
      "the resumed old leader wrote nothing",
    );
    // Its renew deadline long past, the resumed leader stepped down (and exits to compete afresh).
    await waitFor(async () => !frozen.running, { what: "the resumed leader to step down", timeoutMs: 15_000 });
    assert.equal((await lease())?.holderIdentity, after?.holderIdentity, "the lease stays with the new leader");
  });

  it("a replica killed with -9 while a template is being deleted, restarted under the same identity, leaves no entry that holds the binding's finalizer", async () => {
    const control = fleet.control;
    const member = fleet.members[0] as Cluster;
    // The first replica ("control-plane") leads and hears the agent; a new replica is the standby.
    await eventually("the first replica leads", () => flotilla.controlPlaneMetrics(), (m) => m.flotilla_leader === 1);
    spare = await flotilla.startReplica();
    await apply(control, configMap("doomed"));
    await eventually("doomed in the member", () => getJson(member, ["cm", "-n", "ha", "doomed"]), () => true);
    await eventually("the member's entry, by the replica that hears it", () => getJson<BindingJson>(control, ["rb", "-n", "ha", "doomed-configmap"]), (b) => clusterItem(b, member.name)?.applied === true);
    // The agent is frozen, so the removal waits on it: the deletion is under way when the replica dies.
    const agent = flotilla.agents.get(member.name)?.process;
    agent?.pause();
    try {
      await kubectl(control, ["delete", "cm", "-n", "ha", "doomed", "--wait=false"]);
      await waitingForRemoval(control, "doomed", member.name);
      await flotilla.controlPlane.kill();
    } finally {
      agent?.resume();
    }
    // The standby takes over; the killed replica comes back under its identity, where the agent reconnects.
    await waitFor(async () => (await flotilla.metricsAt(spare.healthPort)).flotilla_leader === 1, { what: "the standby to lead", timeoutMs: 30_000 });
    await flotilla.startControlPlane();
    await eventually("doomed removed from the member", () => getJson(member, ["cm", "-n", "ha", "doomed"]).then((x) => (x === undefined ? "gone" : undefined)), () => true);
    await eventually("the binding released (its finalizer gone)", () => getJson(control, ["rb", "-n", "ha", "doomed-configmap"]).then((x) => (x === undefined ? "gone" : undefined)), () => true, 60_000);
    // Nothing else went: the other templates' objects are all still in the member.
    for (const name of ["one", "one-b", "two", "three", "churn-5"]) assert.ok(await getJson(member, ["cm", "-n", "ha", name]), `${name} is still in the member`);
  });

  it("a replica killed with -9 while a template is being deleted and replaced under another name: the replica that hears the member removes the dead one's entry, and the finalizer is released", async () => {
    const control = fleet.control;
    const member = fleet.members[0] as Cluster;
    // The third test's spare leads; the first replica ("control-plane") hears the agent.
    await eventually("the spare leads", () => flotilla.metricsAt(spare.healthPort), (m) => m.flotilla_leader === 1);
    await eventually("the agent on the first replica", () => flotilla.controlPlaneMetrics(), (m) => m.flotilla_connected_agents === 1);
    await apply(control, configMap("doomed-2"));
    await eventually("doomed-2 in the member", () => getJson(member, ["cm", "-n", "ha", "doomed-2"]), () => true);
    // The binding must know the member holds it before the agent goes: an agent stopped between its
    // apply and its report (or a report still on its way to the leader) leaves no entry, and a
    // deleting binding with none is released at once (the object then goes at the agent's Hello).
    await eventually("the member's entry", () => getJson<BindingJson>(control, ["rb", "-n", "ha", "doomed-2-configmap"]), (b) => clusterItem(b, member.name)?.applied === true);
    // The agent goes (and comes back later with the object still in its member), so the removal
    // waits on it: the deletion is under way when the replica that last heard it dies.
    await flotilla.stopAgent(member.name);
    await kubectl(control, ["delete", "cm", "-n", "ha", "doomed-2", "--wait=false"]);
    await waitingForRemoval(control, "doomed-2", member.name, () => `first replica (hears the member):\n${flotilla.controlPlane.tail(40)}\nleader:\n${spare.process.tail(30)}`);
    await flotilla.controlPlane.kill();
    // Its pod is replaced by one of another name, which the agent reaches (a standby: not the leader).
    const replacement = await flotilla.startReplica();
    await flotilla.startAgent(member.name, { hubPort: replacement.hubPort });
    await eventually("doomed-2 removed from the member", () => getJson(member, ["cm", "-n", "ha", "doomed-2"]).then((x) => (x === undefined ? "gone" : undefined)), () => true);
    try {
      await eventually("the binding released (its finalizer gone)", () => getJson(control, ["rb", "-n", "ha", "doomed-2-configmap"]).then((x) => (x === undefined ? "gone" : undefined)), () => true, 60_000);
    } catch (err) {
      const rb = await kubectl(control, ["get", "rb", "-n", "ha", "doomed-2-configmap", "-o", "json", "--show-managed-fields"]).catch(() => "");
      throw new Error(`${String(err)}\n${rb}\nreplacement:\n${replacement.process.tail(60)}\nleader:\n${spare.process.tail(30)}`, { cause: err });
    }
    assert.equal((await flotilla.metricsAt(replacement.healthPort)).flotilla_leader, 0, "the replacement never led: it removed the entry as the replica that hears the member");
    for (const name of ["one", "one-b", "two", "three", "churn-5"]) assert.ok(await getJson(member, ["cm", "-n", "ha", name]), `${name} is still in the member`);
  });
});

/** Waits until the template's binding is being deleted and waits on the member's confirmation; a timeout shows the binding and what `logs` gives. */
async function waitingForRemoval(control: Cluster, template: string, member: string, logs: () => string = () => ""): Promise<void> {
  try {
    await eventually(
      "the binding waits for the member's removal",
      () => getJson<BindingJson & { metadata: { deletionTimestamp?: string } }>(control, ["rb", "-n", "ha", `${template}-configmap`]),
      (b) => b.metadata.deletionTimestamp !== undefined && clusterItem(b, member)?.reason === "WaitingForRemoval",
    );
  } catch (err) {
    const rb = await kubectl(control, ["get", "rb", "-n", "ha", `${template}-configmap`, "-o", "json", "--show-managed-fields"]).catch((e: unknown) => String(e));
    const cm = await kubectl(control, ["get", "cm", "-n", "ha", template, "-o", "json"]).catch((e: unknown) => String(e));
    throw new Error(`${String(err)}\nbinding:\n${rb}\ntemplate:\n${cm}\n${logs()}`, { cause: err });
  }
}

/** One line of the apiserver's audit log (Metadata level). */
interface AuditEvent {
  verb: string;
  userAgent?: string;
  stageTimestamp: string;
  objectRef?: { resource?: string; namespace?: string; name?: string; subresource?: string };
  responseStatus?: { code?: number };
}
