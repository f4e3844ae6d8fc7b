// DESIGN §11, issue 20 item 5 on real clusters: the blast-radius brake. Deleting more templates at
// once than a cluster's budget allows removes only the budget's worth; the rest are held, visibly
// (DeletionHeld on the binding, an Event on the Cluster, a metric, `flotillactl deletions list`),
// until a person approves (they go) or rejects (they stay, released from Flotilla).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { apply, type BindingJson, type CommandResult, condition, eventually, getJson, kubectl, runCommand, sleep } from "./helpers.ts";
import { ensureTestBundles } from "../env/test-bundles.ts";

const CTL = (await ensureTestBundles()).flotillactl;
const NS = "brake";
const MIN = 3;

interface Obj {
  metadata: { name: string; uid: string; labels?: Record<string, string> };
}

const configMap = (name: string, group: string) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: NS, labels: { group } }, data: { k: name } });
const policy = (group: string) =>
  JSON.stringify({
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "PropagationPolicy",
    metadata: { name: group, namespace: NS },
    spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", labelSelector: { matchLabels: { group } } }] },
  });

describe("the blast-radius brake", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let m1: Cluster;
  const ctl = (args: string[]): Promise<CommandResult> => runCommand(process.execPath, [CTL, ...args], { env: { ...process.env, FLOTILLA_STATE_DIR: fleet.root, FLOTILLA_CONTROL_KUBECONFIG: fleet.control.kubeconfigPath } });
  before(async () => {
    fleet = await startFleet({ members: 1 });
    // Only the minimum: a budget of MIN deletions per 60 s, whatever the cluster holds.
    flotilla = await startFlotilla(fleet, { controlPlaneArgs: ["--deletion-budget-percent=0", `--deletion-budget-min=${MIN}`] });
    [m1] = fleet.members as [Cluster];
    await kubectl(fleet.control, ["create", "namespace", NS]);
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  const inMember = async (names: string[]) => (await Promise.all(names.map((n) => getJson<Obj>(m1, ["cm", "-n", NS, n])))).filter((o) => o !== undefined) as Obj[];
  /** Places `count` ConfigMaps of a group on member1, then deletes every template of the group at once. */
  const placeThenDelete = async (group: string, count: number): Promise<string[]> => {
    const names = Array.from({ length: count }, (_, i) => `${group}-${i}`);
    for (const n of names) await apply(fleet.control, configMap(n, group));
    await apply(fleet.control, policy(group));
    await eventually(`${group} placed`, () => inMember(names), (objs) => objs.length === count);
    await kubectl(fleet.control, ["delete", "cm", "-n", NS, "-l", `group=${group}`, "--wait=false"]);
    return names;
  };

  it("holds what passes the budget, shows it, and sends it once approved", async () => {
    const names = await placeThenDelete("approve", 8);
    await eventually("the budget's worth removed", () => inMember(names), (objs) => objs.length === 8 - MIN);
    const listed = await eventually(
      "flotillactl lists the held deletions",
      async () => {
        const r = await ctl(["deletions", "list", "--cluster", "member1", "-o", "json"]);
        assert.equal(r.code, 0, r.stderr);
        return JSON.parse(r.stdout) as { cluster: string; name: string }[];
      },
      (held) => held.length === 8 - MIN,
      30_000,
    );
    const kept = (await inMember(names)).map((o) => o.metadata.name).sort();
    assert.deepEqual(listed.map((h) => h.name).sort(), kept, "what is listed is what still runs");
    const b = await getJson<BindingJson>(fleet.control, ["rb", "-n", NS, `${kept[0]}-configmap`]);
    assert.ok(b);
    assert.equal(condition(b, "DeletionHeld")?.status, "True");
    assert.match(condition(b, "DeletionHeld")?.message ?? "", /member1/);
    assert.equal(b.status?.aggregatedStatus?.find((i) => i.clusterName === "member1")?.reason, "DeletionHeld");
    const events = await kubectl(fleet.control, ["get", "events", "-n", "default", "--field-selector", "reason=DeletionHeld,involvedObject.name=member1", "-o", "name"]);
    assert.notEqual(events.trim(), "", "an Event on the Cluster");
    assert.equal((await flotilla.controlPlaneMetrics())['flotilla_deletions_held{cluster="member1"}'], 8 - MIN);
    const table = await ctl(["deletions", "list"]);
    assert.match(table.stdout, /CLUSTER\s+KIND\s+NAMESPACE\s+NAME\s+BINDING/);

    await sleep(3000);
    assert.equal((await inMember(names)).length, 8 - MIN, "held, not slowed down: nothing more goes by itself");

    const approved = await ctl(["deletions", "approve", "member1"]);
    assert.equal(approved.code, 0, approved.stderr);
    assert.match(approved.stdout, new RegExp(`approved ${8 - MIN} held deletions on member1`));
    await eventually("the rest removed", () => inMember(names), (objs) => objs.length === 0);
    await eventually("the bindings released", () => getJson<{ items: unknown[] }>(fleet.control, ["rb", "-n", NS, "-l", "flotilla.dev/policy-name=approve"]), (l) => l.items.length === 0);
  });

  it("reject keeps the held objects in the member, no longer managed, and releases their bindings", async () => {
    // The window of the first case has passed its approval: it started again then.
    const names = await placeThenDelete("reject", 6);
    await eventually("the budget's worth removed", () => inMember(names), (objs) => objs.length === 6 - MIN);
    await eventually("held", async () => JSON.parse((await ctl(["deletions", "list", "-o", "json"])).stdout) as unknown[], (held) => held.length === 6 - MIN, 30_000);
    const kept = (await inMember(names)).map((o) => o.metadata.uid).sort();
    const rejected = await ctl(["deletions", "reject", "member1"]);
    assert.equal(rejected.code, 0, rejected.stderr);
    await eventually("the bindings released", () => getJson<{ items: unknown[] }>(fleet.control, ["rb", "-n", NS, "-l", "flotilla.dev/policy-name=reject"]), (l) => l.items.length === 0);
    const left = await inMember(names);
    assert.deepEqual(left.map((o) => o.metadata.uid).sort(), kept, "the same objects stay");
    assert.ok(left.every((o) => o.metadata.labels?.["flotilla.dev/work"] === undefined), "released from Flotilla");
    assert.equal((await ctl(["deletions", "list"])).stdout.trim(), "no deletions are held");
  });

  it("a cluster name that is not registered is a clear error", async () => {
    const r = await ctl(["deletions", "approve", "nowhere"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /not registered/);
  });
});
