// Progressive rollout (issue 23) with two control-plane replicas. The standby's hub serves member2
// the revision the leader's state tells it, rendered from its own informers (a revision it never
// wrote itself), and keeps the previous one while the rollout waits; when the leader goes, the
// standby leads on from the binding's state, and an approval through the Admin API of the
// restarted first replica (now the standby) lets the rollout finish.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { RolloutState } from "../../shared/api/types.ts";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { waitFor } from "../env/wait.ts";
import { apply, eventually, getJson, kubectl, runCommand, sleep } from "./helpers.ts";
import { ensureTestBundles } from "../env/test-bundles.ts";

const CTL = (await ensureTestBundles()).flotillactl;
const NS = "rollout-ha";

const settings = (version: string) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings", namespace: NS }, data: { version } });

describe("progressive rollout in an HA control plane", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let standby: Awaited<ReturnType<Flotilla["startReplica"]>>;
  before(async () => {
    fleet = await startFleet({ members: 2 });
    flotilla = await startFlotilla(fleet);
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  const member = (name: string) => fleet.members.find((m) => m.name === name) as Cluster;
  const version = async (name: string) => (await getJson<{ data?: { version?: string } }>(member(name), ["cm", "-n", NS, "settings"]))?.data?.version;
  const state = async () => (await getJson<{ status?: { rollout?: RolloutState } }>(fleet.control, ["rb", "-n", NS, "settings-configmap"]))?.status?.rollout;
  const untilState = (what: string, check: (s: RolloutState) => boolean) => eventually(what, state, check, 90_000);
  const untilVersion = (name: string, v: string) => eventually(`${name} has settings version ${v}`, () => version(name), (x) => x === v, 60_000);

  it("the standby renders member2 at its told revision, and a new leader carries the rollout on", async () => {
    const control = fleet.control;
    standby = await flotilla.startReplica();
    // member2's agent streams to the standby: its Works are the standby's renderings.
    await flotilla.stopAgent("member2");
    await flotilla.startAgent("member2", { hubPort: standby.hubPort });
    await waitFor(async () => (await flotilla.metricsAt(standby.healthPort)).flotilla_connected_agents === 1, { what: "member2's agent on the standby", timeoutMs: 30_000 });

    await kubectl(control, ["create", "namespace", NS]);
    await apply(control, settings("1"));
    await apply(
      control,
      JSON.stringify({
        apiVersion: "flotilla.dev/v1alpha1",
        kind: "PropagationPolicy",
        metadata: { name: "settings", namespace: NS },
        spec: {
          resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "settings" }],
          placement: { clusterAffinity: { clusterNames: ["member1", "member2"] } },
          rollout: { groups: [{ name: "canary", clusterNames: ["member1"] }, { name: "rest", clusterNames: ["member2"], approval: "BeforeGroup" }] },
        },
      }),
    );
    const first = await untilState("the first revision Succeeded", (s) => s.phase === "Succeeded" && s.clusters.length === 2);
    await untilVersion("member1", "1");
    await untilVersion("member2", "1");

    await apply(control, settings("2"));
    const waiting = await untilState("the rollout waits for approval before rest", (s) => s.revision !== first.revision && s.phase === "WaitingForApproval");
    assert.equal(waiting.waitingFor, "BeforeGroup/rest");
    await untilVersion("member1", "2");
    // The standby renders member2 from the stored previous revision, not from the template.
    await sleep(3_000);
    assert.equal(await version("member2"), "1", "member2, served by the standby, keeps the previous revision");

    // The leader goes: the standby leads on from the binding's state; member2 still waits.
    await flotilla.stopControlPlane();
    await waitFor(async () => (await flotilla.metricsAt(standby.healthPort)).flotilla_leader === 1, { what: "the standby to lead", timeoutMs: 30_000 });
    await sleep(3_000);
    const after = await state();
    assert.equal(after?.revision, waiting.revision, "the same rollout");
    assert.equal(after?.phase, "WaitingForApproval", "no approval given: it still waits");
    assert.equal(await version("member2"), "1", "no cluster jumps ahead across the failover");

    // The first replica comes back as the standby; flotillactl reaches its Admin API, which writes the approval.
    await flotilla.startControlPlane();
    const approved = await runCommand(process.execPath, [CTL, "rollout", "approve", "configmap/settings", "-n", NS], {
      env: { ...process.env, FLOTILLA_STATE_DIR: fleet.root, FLOTILLA_CONTROL_KUBECONFIG: control.kubeconfigPath },
    });
    assert.equal(approved.code, 0, approved.stderr);
    await untilState("the rollout Succeeded", (s) => s.phase === "Succeeded" && s.revision === waiting.revision && s.clusters.every((c) => c.revision === waiting.revision));
    await untilVersion("member2", "2");
  });
});
