// DESIGN §11 on real clusters: a failed apply never deletes or replaces what runs in a member.
// Partitions, kills and restarts: never-destroy-restarts.test.ts.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { apply, type BindingJson, clusterItem, deletions, deploymentJson, eventually, getJson, kubectl, placementPolicyJson } from "./helpers.ts";

const NS = "keep";

interface DeploymentJson {
  metadata: { uid: string };
  spec: { replicas: number };
}

const deployment = (name: string, replicas: number, image = "nginx") => deploymentJson(name, NS, replicas, image);
const policy = (name: string, clusters: string[]) => placementPolicyJson(name, NS, clusters);


/** An OverridePolicy whose one rule, for one cluster, runs the given plaintext operations. */
const override = (name: string, cluster: string, plaintext: object[]) =>
  JSON.stringify({
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "OverridePolicy",
    metadata: { name, namespace: NS },
    spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name }], overrideRules: [{ targetCluster: { clusterNames: [cluster] }, overriders: { plaintext } }] },
  });

describe("never destroy what runs", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let m1: Cluster;
  let m2: Cluster;
  before(async () => {
    fleet = await startFleet({ members: 2 });
    // The production default: a partition shorter than this never evicts a Divided copy.
    flotilla = await startFlotilla(fleet, { gracefulEvictionPeriod: "10m" });
    [m1, m2] = fleet.members as [Cluster, Cluster];
    await kubectl(fleet.control, ["create", "namespace", NS]);
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  const deploy = (m: Cluster, name: string) => getJson<DeploymentJson>(m, ["deploy", "-n", NS, name]);
  const binding = (name: string) => getJson<BindingJson>(fleet.control, ["rb", "-n", NS, `${name}-deployment`]);

  it("an override the member's apiserver refuses (422) keeps the running object and its uid, says UpdateFailed, and recovers in place", async () => {
    await apply(fleet.control, deployment("web", 2));
    await apply(fleet.control, policy("web", ["member1", "member2"]));
    const before1 = await eventually("web in member1", () => deploy(m1, "web"), (d) => d.spec.replicas === 2);
    const before2 = await eventually("web in member2", () => deploy(m2, "web"), (d) => d.spec.replicas === 2);

    // The issue's case: valid for Flotilla, refused by member1's apiserver (422: image is required).
    await apply(fleet.control, override("web", "member1", [{ path: "/spec/template/spec/containers/0/image", operator: "replace", value: "" }]));
    const failed = await eventually("UpdateFailed on member1", () => binding("web"), (b) => clusterItem(b, "member1")?.reason === "UpdateFailed");
    assert.match(clusterItem(failed, "member1")?.message ?? "", /image: Required value/, "the apiserver's message reaches the binding");
    assert.equal((await deploy(m1, "web"))?.metadata.uid, before1.metadata.uid, "the refused update left member1's Deployment in place");

    // The agent retries with backoff; the retries delete nothing either.
    const errors = (await flotilla.agentMetrics("member1")).flotilla_agent_apply_errors_total ?? 0;
    await eventually("member1's agent retried", () => flotilla.agentMetrics("member1"), (m) => (m.flotilla_agent_apply_errors_total ?? 0) > errors, 30_000);
    const during = await getJson<DeploymentJson & { spec: { template: { spec: { containers: { image: string }[] } } } }>(m1, ["deploy", "-n", NS, "web"]);
    assert.equal(during?.metadata.uid, before1.metadata.uid, "still the same object after a retry");
    assert.equal(during?.spec.template.spec.containers[0]?.image, "nginx", "member1 keeps what it last applied");
    assert.deepEqual(deletions(await flotilla.agentMetrics("member1")), {}, "member1's agent deleted nothing, for any reason");

    // member2 is not held up by member1's refusal.
    await apply(fleet.control, deployment("web", 3));
    await eventually("member2 follows the template", () => deploy(m2, "web"), (d) => d.spec.replicas === 3);

    // Removing the bad override brings member1 in line, in place.
    await kubectl(fleet.control, ["delete", "overridepolicy", "-n", NS, "web"]);
    const after1 = await eventually("member1 follows the template again", () => deploy(m1, "web"), (d) => d.spec.replicas === 3);
    assert.equal(after1.metadata.uid, before1.metadata.uid, "member1's Deployment was never recreated");
    assert.equal((await deploy(m2, "web"))?.metadata.uid, before2.metadata.uid);
    await eventually("member1 reports it applied", () => binding("web"), (b) => clusterItem(b, "member1")?.applied === true && (clusterItem(b, "member1")?.reason ?? "") === "");
  });

  it("an update a member-side ValidatingAdmissionPolicy denies keeps the running object and says UpdateFailed with the policy's message", async () => {
    const vap = {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: "frozen-replicas" },
      spec: {
        failurePolicy: "Fail",
        matchConstraints: { resourceRules: [{ apiGroups: ["apps"], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["deployments"] }] },
        validations: [{ expression: "object.metadata.name != 'frozen' || object.spec.replicas == oldObject.spec.replicas", message: "replicas of frozen are frozen in this cluster" }],
      },
    };
    const vapBinding = { apiVersion: "admissionregistration.k8s.io/v1", kind: "ValidatingAdmissionPolicyBinding", metadata: { name: "frozen-replicas" }, spec: { policyName: "frozen-replicas", validationActions: ["Deny"] } };
    await apply(fleet.control, deployment("frozen", 1));
    await apply(fleet.control, policy("frozen", ["member1"]));
    const before = await eventually("frozen in member1", () => deploy(m1, "frozen"), (d) => d.spec.replicas === 1);
    await apply(m1, JSON.stringify(vap));
    await apply(m1, JSON.stringify(vapBinding));
    // The policy takes a moment to be enforced: wait until member1 refuses a dry run of the change.
    await eventually(
      "the admission policy enforced",
      () => kubectl(m1, ["patch", "deploy", "-n", NS, "frozen", "--type=merge", "-p", '{"spec":{"replicas":5}}', "--dry-run=server"]).then(() => undefined, (err: Error) => (/frozen in this cluster/.test(err.message) ? true : undefined)),
      () => true,
    );
    await apply(fleet.control, deployment("frozen", 2));
    const b = await eventually("UpdateFailed from the admission policy", () => binding("frozen"), (x) => clusterItem(x, "member1")?.reason === "UpdateFailed", 60_000);
    assert.match(clusterItem(b, "member1")?.message ?? "", /frozen in this cluster/);
    const during = await deploy(m1, "frozen");
    assert.equal(during?.metadata.uid, before.metadata.uid, "the denied update left the object in place");
    assert.equal(during?.spec.replicas, 1);
    await kubectl(m1, ["delete", "validatingadmissionpolicybinding", "frozen-replicas"]);
    const after = await eventually("applied once the policy is gone", () => deploy(m1, "frozen"), (d) => d.spec.replicas === 2, 90_000);
    assert.equal(after.metadata.uid, before.metadata.uid);
  });

  it("a member apiserver that stops answering in the middle of an apply loses nothing, and the change lands once it answers", async () => {
    await apply(fleet.control, deployment("paused-api", 1));
    await apply(fleet.control, policy("paused-api", ["member1"]));
    const before = await eventually("paused-api in member1", () => deploy(m1, "paused-api"), (d) => d.spec.replicas === 1);
    const apiserver = m1.processes.find((p) => p.name.endsWith("kube-apiserver"));
    assert.ok(apiserver !== undefined, "member1 has a kube-apiserver process");
    apiserver.pause();
    try {
      await apply(fleet.control, deployment("paused-api", 3));
      await eventually("the binding carries the change", () => getJson<BindingJson & { spec: { replicas?: number } }>(fleet.control, ["rb", "-n", NS, "paused-api-deployment"]), (b) => b.spec.replicas === 3);
      await new Promise((r) => setTimeout(r, 10_000));
    } finally {
      apiserver.resume();
    }
    const after = await eventually("the change lands", () => deploy(m1, "paused-api"), (d) => d.spec.replicas === 3, 90_000);
    assert.equal(after.metadata.uid, before.metadata.uid, "the same object, updated in place");
  });

  it("an HPA in a member owns the workload's replicas: the agent neither fights it nor counts its scaling as drift, and template changes still land", async () => {
    await apply(fleet.control, deployment("scaled", 2));
    await apply(fleet.control, policy("scaled", ["member1"]));
    const before = await eventually("scaled in member1", () => deploy(m1, "scaled"), (d) => d.spec.replicas === 2);
    // The member's HPA controller enforces minReplicas even without metrics: it scales to 4.
    const hpa = {
      apiVersion: "autoscaling/v2",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "scaled", namespace: NS },
      spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "scaled" }, minReplicas: 4, maxReplicas: 4 },
    };
    await apply(m1, JSON.stringify(hpa));
    await eventually("the HPA scaled it to 4", () => deploy(m1, "scaled"), (d) => d.spec.replicas === 4, 90_000);
    const applies = (await flotilla.agentMetrics("member1")).flotilla_agent_applies_total ?? 0;
    await new Promise((r) => setTimeout(r, 20_000));
    const settled = await deploy(m1, "scaled");
    assert.equal(settled?.spec.replicas, 4, "the agent left the HPA's replicas alone");
    assert.equal((await flotilla.agentMetrics("member1")).flotilla_agent_applies_total ?? 0, applies, "no apply while the HPA holds the replicas: no fight, no loop");

    // A template change still reaches the member, with the HPA's replicas kept.
    await apply(fleet.control, deployment("scaled", 2, "nginx:1.28"));
    const after = await eventually("the new image in member1", () => getJson<DeploymentJson & { spec: { template: { spec: { containers: { image: string }[] } } } }>(m1, ["deploy", "-n", NS, "scaled"]), (d) => d.spec.template.spec.containers[0]?.image === "nginx:1.28");
    assert.equal(after.spec.replicas, 4);
    assert.equal(after.metadata.uid, before.metadata.uid);

    // Issue 37, item 4: a restarted agent has not listed the member's HPAs when the next change
    // comes; it must not apply the template's 2 meanwhile (the HPA would scale back to 4, after
    // pods were killed). Each change of spec, replicas too, bumps the Deployment's generation.
    await flotilla.stopAgent("member1");
    await flotilla.startAgent("member1");
    const generation = (await getJson<{ metadata: { generation: number } }>(m1, ["deploy", "-n", NS, "scaled"]))?.metadata.generation ?? 0;
    await apply(fleet.control, deployment("scaled", 2, "nginx:1.29"));
    const restarted = await eventually("the next image in member1 after the agent's restart", () => getJson<DeploymentJson & { metadata: { generation: number }; spec: { template: { spec: { containers: { image: string }[] } } } }>(m1, ["deploy", "-n", NS, "scaled"]), (d) => d.spec.template.spec.containers[0]?.image === "nginx:1.29");
    assert.equal(restarted.spec.replicas, 4, "the HPA's replicas kept through the agent's restart");
    assert.equal(restarted.metadata.generation, generation + 1, "one change of spec (the image): replicas were never set to the template's 2");
  });
});
