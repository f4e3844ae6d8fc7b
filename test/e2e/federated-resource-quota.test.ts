// Issue 26 on real members: a FederatedResourceQuota limits what a namespace's templates take over
// the fleet. A Deployment within overall is accepted and runs; one that would go past it, or a
// scale-up past it, is refused at apply time by the control plane's webhook with the quota's
// message; where admission cannot see it (a policy that adds a cluster), the binding keeps its last
// schedule and says QuotaExceeded. Each staticAssignments entry is a ResourceQuota in its member
// only, and leaves it when the user removes the entry (DESIGN §11). The quota's status says what the
// namespace takes.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { apply, type BindingJson, condition, eventually, getJson, kubectl, placementPolicyJson, refusal, sleep } from "./helpers.ts";

const NS = "quota";

/** A Deployment whose pods request `cpu` each. */
const deployment = (name: string, replicas: number, cpu = "500m") =>
  JSON.stringify({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: NS },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "nginx", resources: { requests: { cpu } } }] } } },
  });

const quota = (spec: Record<string, unknown>) => JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "FederatedResourceQuota", metadata: { name: "team", namespace: NS }, spec });

interface QuotaJson {
  status?: { overall?: Record<string, string>; overallUsed?: Record<string, string>; aggregatedStatus?: { clusterName: string; hard?: Record<string, string>; used?: Record<string, string> }[] };
}
interface ResourceQuotaJson {
  metadata: { uid: string; labels?: Record<string, string> };
  spec: { hard: Record<string, string> };
}

describe("FederatedResourceQuota on real members", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let m1: Cluster;
  let m2: Cluster;

  before(async () => {
    fleet = await startFleet({ members: 2 });
    flotilla = await startFlotilla(fleet);
    [m1, m2] = fleet.members as [Cluster, Cluster];
    await kubectl(fleet.control, ["create", "namespace", NS]);
    // Every Deployment of the namespace goes to member1 (Duplicated: its replicas there).
    const policy = JSON.parse(placementPolicyJson("all", NS, ["member1"])) as { spec: { resourceSelectors: Record<string, unknown>[] } };
    policy.spec.resourceSelectors = [{ apiVersion: "apps/v1", kind: "Deployment" }];
    await apply(fleet.control, JSON.stringify(policy));
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  it("refuses a quota whose assignments add up past overall, with Karmada's message (the webhook's exact sum)", async () => {
    const stderr = await refusal(apply(fleet.control, quota({ overall: { cpu: "2" }, staticAssignments: [{ clusterName: "member1", hard: { cpu: "1500m" } }, { clusterName: "member2", hard: { cpu: "600m" } }] })));
    assert.match(stderr, /admission webhook "federatedresourcequota\.flotilla\.dev" denied the request: spec\.overall\[cpu\]: Invalid value: "2": overall is less than assignments \(2100m\)/);
  });

  it("stores a quota; the control plane marks its namespace for the templates' check", async () => {
    assert.match(await apply(fleet.control, quota({ overall: { cpu: "2" }, staticAssignments: [{ clusterName: "member1", hard: { cpu: "2" } }] })), /team created/);
    await eventually(
      "the namespace labelled",
      () => getJson<{ metadata: { labels?: Record<string, string> } }>(fleet.control, ["namespace", NS]),
      (n) => n.metadata.labels?.["flotilla.dev/has-federated-resource-quota"] === "true",
    );
  });

  it("a staticAssignments entry is a ResourceQuota named as the quota in that member, and in no other", async () => {
    const rq = await eventually("the ResourceQuota in member1", () => getJson<ResourceQuotaJson>(m1, ["resourcequota", "-n", NS, "team"]), () => true, 90_000);
    assert.deepEqual(rq.spec.hard, { cpu: "2" });
    assert.equal(rq.metadata.labels?.["flotilla.dev/federated-resource-quota"], "team");
    assert.equal(await getJson(m2, ["resourcequota", "-n", NS, "team"]), undefined);
  });

  it("accepts a Deployment within overall, which runs in the member", async () => {
    assert.match(await apply(fleet.control, deployment("web", 2)), /web created/);
    await eventually("web available in member1", () => getJson<{ status?: { availableReplicas?: number } }>(m1, ["deploy", "-n", NS, "web"]), (d) => d.status?.availableReplicas === 2, 120_000);
  });

  it("refuses at apply time a Deployment that would take the namespace past overall, with the quota's message, and stores nothing", async () => {
    const stderr = await refusal(apply(fleet.control, deployment("big", 3)));
    assert.match(stderr, /admission webhook "resourcetemplate-quota\.flotilla\.dev" denied the request: FederatedResourceQuota\(quota\/team\) exceeded for resource cpu: requested sum 2500m, limit 2 \(Deployment big takes 1500m, the namespace's other workloads 1\)/);
    assert.equal(await getJson(fleet.control, ["deploy", "-n", NS, "big"]), undefined);
  });

  it("refuses a scale-up past overall through the scale subresource; a scale within it goes through", async () => {
    const stderr = await refusal(kubectl(fleet.control, ["scale", "deploy", "web", "-n", NS, "--replicas=5"]));
    assert.match(stderr, /FederatedResourceQuota\(quota\/team\) exceeded for resource cpu: requested sum 2500m, limit 2/);
    await kubectl(fleet.control, ["scale", "deploy", "web", "-n", NS, "--replicas=4"]);
    await eventually("web scaled to 4 in member1", () => getJson<{ status?: { availableReplicas?: number } }>(m1, ["deploy", "-n", NS, "web"]), (d) => d.status?.availableReplicas === 4, 120_000);
  });

  it("status: overall, overallUsed from the bindings, each assigned cluster's hard and use", async () => {
    const q = await eventually("the quota's status", () => getJson<QuotaJson>(fleet.control, ["federatedresourcequota", "-n", NS, "team"]), (x) => x.status?.overallUsed?.cpu === "2");
    assert.deepEqual(q.status, { overall: { cpu: "2" }, overallUsed: { cpu: "2" }, aggregatedStatus: [{ clusterName: "member1", hard: { cpu: "2" }, used: { cpu: "2" } }] });
  });

  it("fault: a control-plane restart (the agent resyncs against a fresh cache) keeps the member's ResourceQuota, the same object", async () => {
    const before = await getJson<ResourceQuotaJson>(m1, ["resourcequota", "-n", NS, "team"]);
    await flotilla.stopControlPlane();
    await flotilla.startControlPlane();
    await eventually("member1's agent reconnected", () => flotilla.agentMetrics("member1"), (x) => x.flotilla_agent_connected === 1, 60_000);
    await sleep(5_000);
    assert.equal((await getJson<ResourceQuotaJson>(m1, ["resourcequota", "-n", NS, "team"]))?.metadata.uid, before?.metadata.uid);
  });

  it("where admission cannot see it (the policy adds a cluster), the binding keeps its last schedule, Scheduled=False QuotaExceeded, and nothing that runs is removed", async () => {
    const policy = JSON.parse(placementPolicyJson("all", NS, ["member1", "member2"])) as { spec: { resourceSelectors: Record<string, unknown>[] } };
    policy.spec.resourceSelectors = [{ apiVersion: "apps/v1", kind: "Deployment" }];
    await apply(fleet.control, JSON.stringify(policy));
    const b = await eventually("web's binding held", () => getJson<BindingJson>(fleet.control, ["rb", "-n", NS, "web-deployment"]), (x) => condition(x, "Scheduled")?.reason === "QuotaExceeded");
    assert.equal(condition(b, "Scheduled")?.status, "False");
    assert.match(condition(b, "Scheduled")?.message ?? "", /FederatedResourceQuota\(quota\/team\) exceeded for resource cpu: requested sum 4, limit 2 \(Deployment web takes 4, the namespace's other workloads 0\); the binding keeps its last schedule \(1 cluster\)/);
    assert.deepEqual(b.spec.clusters.map((c) => c.name), ["member1"]);
    assert.equal(await getJson(m2, ["deploy", "-n", NS, "web"]), undefined);
    assert.equal((await getJson<{ status?: { availableReplicas?: number } }>(m1, ["deploy", "-n", NS, "web"]))?.status?.availableReplicas, 4);
  });

  it("removing the assignment removes the member's ResourceQuota (the user's intent); the quota still refuses", async () => {
    await apply(fleet.control, quota({ overall: { cpu: "2" } }));
    await eventually("the ResourceQuota gone from member1", async () => ((await getJson(m1, ["resourcequota", "-n", NS, "team"])) === undefined ? true : undefined), () => true, 90_000);
    assert.match(await refusal(apply(fleet.control, deployment("more", 1))), /exceeded for resource cpu: requested sum 2500m, limit 2/);
    // What runs stays: the quota removes nothing.
    assert.equal((await getJson<{ status?: { availableReplicas?: number } }>(m1, ["deploy", "-n", NS, "web"]))?.status?.availableReplicas, 4);
  });
});
