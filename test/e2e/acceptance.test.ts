// Acceptance (DESIGN §7, OCM's hubAcceptsClient): with --require-acceptance a new Cluster
// receives nothing until `flotillactl accept <cluster>`, and its Accepted condition says why.
// Real control plane, agents and clusters.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { apply, type BindingJson, type CommandResult, eventually, getJson, kubectl, runCommand } from "./helpers.ts";
import { ensureTestBundles } from "../env/test-bundles.ts";

const CTL = (await ensureTestBundles()).flotillactl;
const NS = "acc";

interface ClusterJson {
  spec?: { hubAcceptsClient?: boolean };
  status?: { conditions?: { type: string; status: string; reason: string; message: string }[] };
}
const accepted = (c: ClusterJson) => c.status?.conditions?.find((x) => x.type === "Accepted");

describe("acceptance of new clusters (--require-acceptance)", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let m1: Cluster;
  let m2: Cluster;
  const ctl = (args: string[]): Promise<CommandResult> => runCommand(process.execPath, [CTL, ...args], { env: { ...process.env, FLOTILLA_STATE_DIR: fleet.root, FLOTILLA_CONTROL_KUBECONFIG: fleet.control.kubeconfigPath } });
  const configMap = (name: string) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: NS }, data: { a: "1" } });
  const everywhere = (name: string) =>
    JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name, namespace: NS }, spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name }] } });

  before(async () => {
    fleet = await startFleet({ members: 2 });
    flotilla = await startFlotilla(fleet, { requireAcceptance: true });
    [m1, m2] = fleet.members as [Cluster, Cluster];
    await kubectl(fleet.control, ["create", "namespace", NS]);
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  it("a new cluster is Ready but not accepted, and its status says what to run", async () => {
    for (const name of ["member1", "member2"]) {
      const c = await eventually(`${name} shows Accepted=False`, () => getJson<ClusterJson>(fleet.control, ["cluster", name]), (x) => accepted(x)?.status === "False");
      assert.equal(accepted(c)?.reason, "AwaitingAcceptance");
      assert.match(accepted(c)?.message ?? "", new RegExp(`flotillactl accept ${name}`));
    }
    const table = await kubectl(fleet.control, ["get", "clusters"]);
    assert.match(table.split("\n")[0] ?? "", /ACCEPTED/, "kubectl get clusters has an Accepted column");
  });

  it("a member gets nothing until accepted, then gets its Work", async () => {
    const r1 = await ctl(["accept", "member1"]);
    assert.equal(r1.code, 0, r1.stderr);
    assert.match(r1.stdout, /cluster member1 accepted/);
    await eventually("member1 Accepted=True", () => getJson<ClusterJson>(fleet.control, ["cluster", "member1"]), (x) => accepted(x)?.status === "True" && accepted(x)?.reason === "HubAccepted");

    await apply(fleet.control, configMap("hello"));
    await apply(fleet.control, everywhere("hello"));
    await eventually("hello in member1", () => getJson(m1, ["configmap", "-n", NS, "hello"]), () => true);
    const b = await eventually("the binding", () => getJson<BindingJson>(fleet.control, ["rb", "-n", NS, "hello-configmap"]), (x) => x.spec.clusters.length > 0);
    assert.deepEqual(b.spec.clusters.map((c) => c.name), ["member1"], "the policy selects every cluster, but member2 is not accepted");
    // Give the fleet time to (wrongly) ship it: member2's agent is connected and Ready.
    await new Promise((r) => setTimeout(r, 3000));
    assert.equal(await getJson(m2, ["configmap", "-n", NS, "hello"]), undefined, "member2 received nothing");
    const works = await ctl(["get", "works", "--cluster", "member2", "-o", "json"]);
    assert.equal(works.code, 0, works.stderr);
    assert.deepEqual(JSON.parse(works.stdout), [], "no Work is held for member2");

    const r2 = await ctl(["accept", "member2"]);
    assert.equal(r2.code, 0, r2.stderr);
    await eventually("hello in member2 once accepted", () => getJson(m2, ["configmap", "-n", NS, "hello"]), () => true);
    const c2 = await getJson<ClusterJson>(fleet.control, ["cluster", "member2"]);
    assert.equal(c2?.spec?.hubAcceptsClient, true);
    const again = await ctl(["accept", "member2"]);
    assert.match(again.stdout, /already accepted/);
  });

  it("accept refuses a cluster that is not registered, or no control cluster", async () => {
    const r = await ctl(["accept", "member9"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /NOT_FOUND: cluster "member9" is not registered/);
    const none = await ctl(["accept", "member1", "--kubeconfig", `${fleet.root}/nowhere.kubeconfig`]);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /no kubeconfig at .*nowhere.kubeconfig: pass --kubeconfig/);
  });
});
