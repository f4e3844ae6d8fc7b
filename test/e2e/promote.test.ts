// `flotillactl promote` on real clusters (karmadactl promote, pull mode): a Deployment that already
// runs in a member becomes a template in the control cluster, and the member's agent adopts the
// running object by server-side apply: the same uid, the same pod template and ReplicaSets (no
// rollout; the generation moves once, for the agent's ownership annotations, as Kubernetes counts
// a Deployment's annotation change). Bad input gets a clear message and exit code, and writes nothing.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { apply, type BindingJson, type CommandResult, deploymentJson, eventually, getJson, kubectl, runCommand, sleep } from "./helpers.ts";
import { ensureTestBundles } from "../env/test-bundles.ts";

const CTL = (await ensureTestBundles()).flotillactl;
const NS = "legacy";

interface DeploymentJson {
  metadata: { uid: string; generation: number; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: { template: unknown };
  status?: { availableReplicas?: number; observedGeneration?: number };
}

describe("flotillactl promote", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let m1: Cluster;
  const ctl = (args: string[]): Promise<CommandResult> => runCommand(process.execPath, [CTL, ...args], { env: { ...process.env, FLOTILLA_STATE_DIR: fleet.root, FLOTILLA_CONTROL_KUBECONFIG: fleet.control.kubeconfigPath } });
  const promote = (what: string, ...more: string[]) => ctl(["promote", what, "-n", NS, "--cluster", "member1", "--cluster-kubeconfig", m1.kubeconfigPath, ...more]);
  const deployment = (c: Cluster) => getJson<DeploymentJson>(c, ["deploy", "-n", NS, "web"]);
  const replicaSets = async () => ((await getJson<{ items: { metadata: { name: string; uid: string } }[] }>(m1, ["rs", "-n", NS, "-l", "app=web"]))?.items ?? []).map((r) => `${r.metadata.name}/${r.metadata.uid}`).sort();

  before(async () => {
    fleet = await startFleet({ members: 2 });
    flotilla = await startFlotilla(fleet, {});
    [m1] = fleet.members as [Cluster];
    await kubectl(m1, ["create", "namespace", NS]);
    await kubectl(fleet.control, ["create", "namespace", NS]);
    // Made by hand in member1, long before Flotilla: kubectl's own defaults filled in by its apiserver.
    await apply(m1, deploymentJson("web", NS, 2));
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  it("refuses bad input with a clear message and exit code, writing nothing", async () => {
    const missing = await promote("deployment/nothere");
    assert.equal(missing.code, 1, missing.stderr);
    assert.match(missing.stderr, /member1 has no Deployment legacy\/nothere/);
    const kind = await promote("widgets/web");
    assert.equal(kind.code, 1, kind.stderr);
    assert.match(kind.stderr, /serves no resource named "widgets"/);
    const cluster = await ctl(["promote", "deployment/web", "-n", NS, "--cluster", "member9", "--cluster-kubeconfig", m1.kubeconfigPath]);
    assert.equal(cluster.code, 1, cluster.stderr);
    assert.match(cluster.stderr, /cluster "member9" is not registered/);
    const noKind = await promote("web");
    assert.equal(noKind.code, 2, noKind.stderr);
    assert.match(noKind.stderr, /expected <kind>\/<name>/);
    const usage = await ctl(["promote", "deployment/web", "-n", NS, "--cluster", "member1"]);
    assert.equal(usage.code, 2, usage.stderr);
    assert.match(usage.stderr, /cluster-kubeconfig/);
    const dry = await promote("deployment/web", "--dry-run");
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /would promote Deployment legacy\/web from member1, with PropagationPolicy web-[0-9a-f]{8}/);
    const printed = await promote("deploy/web", "-o", "yaml");
    assert.equal(printed.code, 0, printed.stderr);
    assert.match(printed.stdout, /kind: Deployment[\s\S]*kind: PropagationPolicy[\s\S]*conflictResolution: Overwrite/);
    assert.doesNotMatch(printed.stdout, /uid:|resourceVersion:|managedFields|status:/);
    assert.equal(await getJson(fleet.control, ["deploy", "-n", NS, "web"]), undefined, "no template written");
    assert.equal((await getJson<{ items: unknown[] }>(fleet.control, ["pp", "-n", NS]))?.items.length, 0, "no policy written");
  });

  it("adopts the running Deployment: same uid, same pod template and revision, no new ReplicaSet", async () => {
    const before = await eventually("web Available in member1", () => deployment(m1), (d) => d.status?.availableReplicas === 2);
    const setsBefore = await eventually("its ReplicaSet", replicaSets, (l) => l.length === 1);

    const r = await promote("deployment/web");
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /promoted Deployment legacy\/web from member1/);
    const template = await getJson<DeploymentJson>(fleet.control, ["deploy", "-n", NS, "web"]);
    assert.ok(template, "the template is in the control cluster");
    assert.notEqual(template.metadata.uid, before.metadata.uid);
    const binding = await eventually(
      "the binding places it on member1, applied",
      () => getJson<BindingJson>(fleet.control, ["rb", "-n", NS, "web-deployment"]),
      (b) => b.spec.clusters.map((c) => c.name).join() === "member1" && b.status?.aggregatedStatus?.some((i) => i.clusterName === "member1" && i.applied === true) === true,
    );
    assert.ok(binding);
    const adopted = await eventually("member1's object carries Flotilla's work label", () => deployment(m1), (d) => d.metadata.labels?.["flotilla.dev/work"] !== undefined);
    assert.equal(adopted.metadata.uid, before.metadata.uid, "the same object: not re-created");
    // The agent's ownership annotations are one metadata update, and Kubernetes bumps a Deployment's
    // generation on an annotation change too (they are copied to its ReplicaSets): one, no more.
    assert.equal(adopted.metadata.generation, before.metadata.generation + 1, "one generation: the ownership annotations");
    assert.equal(adopted.metadata.annotations?.["deployment.kubernetes.io/revision"], before.metadata.annotations?.["deployment.kubernetes.io/revision"], "the same rollout revision");
    assert.deepEqual(adopted.spec.template, before.spec.template, "its pod template did not change");
    // Give a rollout the time to show if one had started.
    await sleep(3000);
    assert.deepEqual(await replicaSets(), setsBefore, "no new ReplicaSet: no rollout");
    const settled = await deployment(m1);
    assert.equal(settled?.metadata.generation, adopted.metadata.generation, "no later apply changes it (no apply loop)");
    assert.equal(settled?.metadata.uid, before.metadata.uid);

    const again = await promote("deployment/web");
    assert.equal(again.code, 1, again.stderr);
    assert.match(again.stderr, /the template Deployment legacy\/web already exists in the control cluster/);
  });
});
