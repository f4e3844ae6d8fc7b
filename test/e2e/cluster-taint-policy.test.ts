// Issue 26 on real clusters: a ClusterTaintPolicy taints a cluster while it is NotReady (its agent
// stopped) and the taint goes when it is back; the user's own taint stays throughout; a policy with
// a NoExecute taint does nothing without --allow-no-execute-taint-policy (a Warning Event says so);
// and a NoExecute taint without --enable-no-execute-taint-eviction removes nothing that runs.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { apply, type BindingJson, deploymentJson, eventually, getJson, kubectl, placementPolicyJson, sleep } from "./helpers.ts";

const NS = "taints";
const NOT_READY = "cluster.flotilla.dev/not-ready";

interface TaintJson {
  key: string;
  value?: string;
  effect: string;
}
interface ClusterJson {
  metadata: { annotations?: Record<string, string> };
  spec: { taints?: TaintJson[] };
  status?: { conditions?: { type: string; status: string }[] };
}
interface EventJson {
  reason: string;
  type: string;
  message: string;
  involvedObject: { kind: string; name: string };
}

const policy = (name: string, effect: "NoSchedule" | "NoExecute") =>
  JSON.stringify({
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "ClusterTaintPolicy",
    metadata: { name },
    spec: {
      targetClusters: { clusterNames: ["member1"] },
      addOnConditions: [{ conditionType: "Ready", operator: "NotIn", statusValues: ["True"] }],
      removeOnConditions: [{ conditionType: "Ready", operator: "In", statusValues: ["True"] }],
      taints: [{ key: effect === "NoExecute" ? `${NOT_READY}-evict` : NOT_READY, effect }],
    },
  });

describe("ClusterTaintPolicy", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let m1: Cluster;
  let m2: Cluster;
  before(async () => {
    fleet = await startFleet({ members: 2 });
    flotilla = await startFlotilla(fleet, {});
    [m1, m2] = fleet.members as [Cluster, Cluster];
    await kubectl(fleet.control, ["create", "namespace", NS]);
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  const cluster = (name: string) => getJson<ClusterJson>(fleet.control, ["cluster", name]);
  const taints = (c: ClusterJson) => (c.spec.taints ?? []).map((t) => `${t.key}${t.value ? `=${t.value}` : ""}:${t.effect}`).join(" ");
  const ready = (c: ClusterJson) => c.status?.conditions?.find((x) => x.type === "Ready")?.status;
  const binding = (name: string) => getJson<BindingJson>(fleet.control, ["rb", "-n", NS, `${name}-deployment`]);
  const targets = (b: BindingJson) => b.spec.clusters.map((c) => c.name).join(" ");

  it("taints a NotReady cluster, keeps the user's taint, and removes its own when the cluster is back", async () => {
    // The user's own taint, of no effect on placement.
    await kubectl(fleet.control, ["patch", "cluster", "member1", "--type=merge", "-p", JSON.stringify({ spec: { taints: [{ key: "team", value: "blue", effect: "PreferNoSchedule" }] } })]);
    await apply(fleet.control, policy("not-ready", "NoSchedule"));
    await apply(fleet.control, policy("not-ready-evict", "NoExecute"));
    const events = async () => (await getJson<{ items: EventJson[] }>(fleet.control, ["events", "-n", "default", "--field-selector", "involvedObject.kind=ClusterTaintPolicy,involvedObject.name=not-ready-evict"]))?.items ?? [];
    const refused = await eventually("a Warning Event on the NoExecute policy", events, (l) => l.some((e) => e.reason === "NoExecuteNotAllowed"));
    assert.equal(refused.find((e) => e.reason === "NoExecuteNotAllowed")?.type, "Warning");
    assert.match(refused[0]?.message ?? "", /--allow-no-execute-taint-policy/);
    // Ready: the policies add nothing.
    assert.equal(taints((await cluster("member1")) as ClusterJson), "team=blue:PreferNoSchedule");

    await apply(fleet.control, deploymentJson("before", NS, 1));
    await apply(fleet.control, placementPolicyJson("before", NS, ["member1", "member2"]));
    await eventually("before runs on both", () => binding("before"), (b) => targets(b) === "member1 member2");
    await eventually("before applied in member1", () => getJson(m1, ["deploy", "-n", NS, "before"]), () => true);
    const uid = ((await getJson<{ metadata: { uid: string } }>(m1, ["deploy", "-n", NS, "before"])) as { metadata: { uid: string } }).metadata.uid;

    await flotilla.stopAgent("member1");
    const tainted = await eventually("member1 NotReady and tainted", () => cluster("member1"), (c) => ready(c) !== "True" && taints(c).includes(NOT_READY), 60_000);
    assert.equal(taints(tainted), `team=blue:PreferNoSchedule ${NOT_READY}:NoSchedule`, "the user's taint first and untouched, the NoExecute policy refused");
    assert.equal(tainted.metadata.annotations?.["flotilla.dev/policy-taints"], `${NOT_READY}:NoSchedule`);

    // NoSchedule: nothing new goes to member1; what it holds stays in its binding.
    await apply(fleet.control, deploymentJson("during", NS, 1));
    await apply(fleet.control, placementPolicyJson("during", NS, ["member1", "member2"]));
    await eventually("during goes to member2 only", () => binding("during"), (b) => targets(b) === "member2");
    assert.equal(targets((await binding("before")) as BindingJson), "member1 member2", "the held copy stays placed");

    await flotilla.startAgent("member1");
    const back = await eventually("member1 Ready and its policy taint gone", () => cluster("member1"), (c) => ready(c) === "True" && !taints(c).includes(NOT_READY), 60_000);
    assert.equal(taints(back), "team=blue:PreferNoSchedule");
    assert.equal(back.metadata.annotations?.["flotilla.dev/policy-taints"], undefined);
    await eventually("during now reaches member1 too", () => binding("during"), (b) => targets(b) === "member1 member2");
    const after = (await getJson<{ metadata: { uid: string } }>(m1, ["deploy", "-n", NS, "before"])) as { metadata: { uid: string } };
    assert.equal(after.metadata.uid, uid, "member1's copy was never removed");
  });

  it("without --enable-no-execute-taint-eviction a NoExecute taint removes nothing that runs", async () => {
    await kubectl(fleet.control, ["patch", "cluster", "member2", "--type=merge", "-p", JSON.stringify({ spec: { taints: [{ key: "drain", effect: "NoExecute" }] } })]);
    const uid = ((await getJson<{ metadata: { uid: string } }>(m2, ["deploy", "-n", NS, "before"])) as { metadata: { uid: string } }).metadata.uid;
    // Longer than the graceful eviction period (3 s here) and a few reschedules.
    await sleep(8_000);
    assert.equal(targets((await binding("before")) as BindingJson), "member1 member2");
    const still = await getJson<{ metadata: { uid: string } }>(m2, ["deploy", "-n", NS, "before"]);
    assert.equal(still?.metadata.uid, uid, "member2's copy stays");
    // It acts as NoSchedule: a new workload does not go there.
    await apply(fleet.control, deploymentJson("later", NS, 1));
    await apply(fleet.control, placementPolicyJson("later", NS, ["member1", "member2"]));
    await eventually("later goes to member1 only", () => binding("later"), (b) => targets(b) === "member1");
  });
});
