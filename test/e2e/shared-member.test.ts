// Issue 20 item 4 on a real member: two agents of one fleet sharing one member (two Cluster names,
// one apiserver) never take each other's objects. (A member that joins again: rejoin.test.ts.)
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { apply, type BindingJson, clusterItem, type CommandResult, deletions, eventually, getJson, kubectl, runCommand } from "./helpers.ts";
import { ensureTestBundles } from "../env/test-bundles.ts";

const CTL = (await ensureTestBundles()).flotillactl;
const NS = "shared-member";
const WORK = "flotilla.dev/work";

interface ObjectJson {
  metadata: { uid: string; labels?: Record<string, string>; annotations?: Record<string, string> };
}
interface ClusterJson {
  status?: { conditions?: { type: string; status: string }[] };
}

const configMap = (name: string) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: NS }, data: { a: "1" } });
const ready = (c: ClusterJson) => c.status?.conditions?.find((x) => x.type === "Ready")?.status === "True";

describe("two agents sharing one member never take each other's objects", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let m1: Cluster;
  const ctl = (args: string[]): Promise<CommandResult> => runCommand(process.execPath, [CTL, ...args], { env: { ...process.env, FLOTILLA_STATE_DIR: fleet.root } });
  const placed = (name: string, clusters?: string[]) =>
    JSON.stringify({
      apiVersion: "flotilla.dev/v1alpha1",
      kind: "PropagationPolicy",
      metadata: { name, namespace: NS },
      spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name }], ...(clusters ? { placement: { clusterAffinity: { clusterNames: clusters } } } : {}) },
    });
  before(async () => {
    fleet = await startFleet({ members: 1 });
    flotilla = await startFlotilla(fleet);
    [m1] = fleet.members as [Cluster];
    await kubectl(fleet.control, ["create", "namespace", NS]);
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  it("a second Cluster registered on the same member leaves the first one's object alone, and its unjoin removes only its own", async () => {
    await apply(fleet.control, configMap("shared"));
    await apply(fleet.control, placed("shared"));
    const first = await eventually("shared in member1", () => getJson<ObjectJson>(m1, ["configmap", "-n", NS, "shared"]), (o) => o.metadata.labels?.[WORK] !== undefined);
    const owner = first.metadata.annotations?.["flotilla.dev/owner"] ?? "";
    assert.match(owner, /^[0-9a-f]{16}\/member1$/);

    // Another agent of the fleet, registered as member1b, on member1's apiserver (its own state namespace).
    const token = await ctl(["token", "create"]);
    assert.equal(token.code, 0, token.stderr);
    await flotilla.startAgent("member1b", { member: "member1", stateNamespace: "flotilla-b", bootstrapToken: token.stdout.trim() });
    await eventually("member1b Ready", () => getJson<ClusterJson>(fleet.control, ["cluster", "member1b"]), ready, 60_000);
    await apply(fleet.control, configMap("only-b"));
    await apply(fleet.control, placed("only-b", ["member1b"]));
    const own = await eventually("only-b in the member, member1b's", () => getJson<ObjectJson>(m1, ["configmap", "-n", NS, "only-b"]), (o) => /\/member1b$/.test(o.metadata.annotations?.["flotilla.dev/owner"] ?? ""));

    // The policy places shared on member1b too: the member already has it, member1's.
    const b = await eventually("member1b reports shared as another cluster's", () => getJson<BindingJson>(fleet.control, ["rb", "-n", NS, "shared-configmap"]), (x) => clusterItem(x, "member1b")?.reason === "AlreadyExists", 60_000);
    assert.match(clusterItem(b, "member1b")?.message ?? "", new RegExp(`another Flotilla fleet or cluster \\(${owner}\\)`));

    const r = await ctl(["unjoin", "member1b"]);
    assert.equal(r.code, 0, r.stderr);
    await eventually("member1b's own object removed", () => getJson(m1, ["configmap", "-n", NS, "only-b"]).then((x) => (x === undefined ? "gone" : undefined)), () => true, 60_000);
    await eventually("member1b gone", () => getJson(fleet.control, ["cluster", "member1b"]).then((x) => (x === undefined ? "gone" : undefined)), () => true, 60_000);
    const after = await getJson<ObjectJson>(m1, ["configmap", "-n", NS, "shared"]);
    assert.equal(after?.metadata.uid, first.metadata.uid, "member1's object stays, the same object");
    assert.equal(after?.metadata.annotations?.["flotilla.dev/owner"], owner, "still member1's");
    assert.ok(own.metadata.uid);
    assert.deepEqual(deletions(await flotilla.agentMetrics("member1b")), { 'flotilla_agent_deletes_total{reason="ClusterUnjoined"}': 1 }, "member1b deleted its own object only");
    assert.deepEqual(deletions(await flotilla.agentMetrics("member1")), {}, "member1's agent deleted nothing");
    await flotilla.stopAgent("member1b");
  });
});
