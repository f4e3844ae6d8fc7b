// DESIGN §11 on real clusters: a failed apply never deletes or replaces what runs in a member.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { CoreV1Api } from "@kubernetes/client-node";
import { waitFor } from "../env/wait.ts";
import { workKeyLabelValue } from "../../shared/work-key.ts";
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

  it("a Divided workload keeps every member's object through a partition of all agents, of one agent, and a control-plane kill -9 with a restart 60 s later", async () => {
    const divided = JSON.stringify({
      apiVersion: "flotilla.dev/v1alpha1",
      kind: "PropagationPolicy",
      metadata: { name: "shared", namespace: NS },
      spec: {
        resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "shared" }],
        placement: { clusterAffinity: { clusterNames: ["member1", "member2"] }, replicaScheduling: { replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted" } },
      },
    });
    const split = (b: BindingJson) => b.spec.clusters.map((c) => `${c.name}=${c.replicas}`).join(" ");
    await apply(fleet.control, deployment("shared", 4));
    await apply(fleet.control, divided);
    await eventually("2/2", () => binding("shared"), (b) => split(b) === "member1=2 member2=2");
    const uid1 = (await eventually("member1 runs 2", () => deploy(m1, "shared"), (d) => d.spec.replicas === 2)).metadata.uid;
    const uid2 = (await eventually("member2 runs 2", () => deploy(m2, "shared"), (d) => d.spec.replicas === 2)).metadata.uid;
    const sameObjects = async (when: string) => {
      assert.equal((await deploy(m1, "shared"))?.metadata.uid, uid1, `member1's object is the same ${when}`);
      assert.equal((await deploy(m2, "shared"))?.metadata.uid, uid2, `member2's object is the same ${when}`);
    };
    const agents = () => ["member1", "member2"].map((m) => flotilla.agents.get(m)?.process).filter((p) => p !== undefined);
    const ready = async (name: string) => (await getJson<{ status?: { conditions?: { type: string; status: string; lastTransitionTime: string }[] } }>(fleet.control, ["cluster", name]))?.status?.conditions?.find((c) => c.type === "Ready");

    // 1. Every agent partitioned for 45 s: both clusters go NotReady, the binding keeps its placement.
    for (const p of agents()) p.pause();
    try {
      await eventually("both NotReady", async () => [await ready("member1"), await ready("member2")], (r) => r.every((c) => c?.status === "False"), 30_000);
      await new Promise((r) => setTimeout(r, 35_000));
      // The agents stop a moment apart: the first cluster to go NotReady had its share added on
      // the other first. Once none is Ready, that last placement is kept: nobody loses a copy.
      const b = await binding("shared");
      const replicas = new Map((b?.spec.clusters ?? []).map((c) => [c.name, c.replicas ?? 0]));
      assert.ok((replicas.get("member1") ?? 0) >= 2 && (replicas.get("member2") ?? 0) >= 2, `no Ready cluster: both keep their copies (${b === undefined ? "no binding" : split(b)})`);
      const scheduled = b?.status?.conditions?.find((c) => c.type === "Scheduled");
      assert.equal(scheduled?.status, "False");
      assert.match(scheduled?.message ?? "", /none Ready; the clusters keep what they run/);
    } finally {
      for (const p of agents()) p.resume();
    }
    await eventually("both Ready again", async () => [await ready("member1"), await ready("member2")], (r) => r.every((c) => c?.status === "True"), 60_000);
    await eventually("2/2 without evictions", () => binding("shared"), (b) => split(b) === "member1=2 member2=2" && (b.spec as { gracefulEvictionTasks?: unknown[] }).gracefulEvictionTasks === undefined);
    await sameObjects("after all agents were partitioned");

    // 2. One agent partitioned for 45 s: its share is added on member1 first; member2 keeps its copy.
    const member2 = flotilla.agents.get("member2")?.process;
    member2?.pause();
    try {
      const b = await eventually("member1 takes 4, member2 holds 2", () => binding("shared"), (x) => split(x) === "member1=4 member2=2", 30_000);
      assert.deepEqual((b.spec as { gracefulEvictionTasks?: { fromCluster: string }[] }).gracefulEvictionTasks?.map((t) => t.fromCluster), ["member2"]);
      await eventually("member1 runs 4", () => deploy(m1, "shared"), (d) => d.spec.replicas === 4);
      await new Promise((r) => setTimeout(r, 35_000));
      assert.equal(split((await binding("shared")) as BindingJson), "member1=4 member2=2", "member2 is still held: the eviction period is not over");
    } finally {
      member2?.resume();
    }
    await eventually("2/2 again", () => binding("shared"), (b) => split(b) === "member1=2 member2=2" && (b.spec as { gracefulEvictionTasks?: unknown[] }).gracefulEvictionTasks === undefined, 60_000);
    await eventually("member1 back to 2", () => deploy(m1, "shared"), (d) => d.spec.replicas === 2);
    await sameObjects("after one agent was partitioned");

    // 3. The control plane killed with -9, restarted 60 s later: no cluster turns NotReady, nothing moves.
    const readyBefore = await Promise.all(["member1", "member2"].map(ready));
    await flotilla.controlPlane.kill();
    await new Promise((r) => setTimeout(r, 60_000));
    await sameObjects("while the control plane was down");
    await flotilla.startControlPlane();
    for (const m of ["member1", "member2"]) {
      await eventually(`${m}'s agent reconnected`, () => flotilla.agentMetrics(m), (x) => x.flotilla_agent_connected === 1, 60_000);
    }
    await eventually("heartbeats judged", async () => [await ready("member1"), await ready("member2")], (r) => r.every((c) => c?.status === "True"));
    const readyAfter = await Promise.all(["member1", "member2"].map(ready));
    assert.deepEqual(readyAfter.map((c) => c?.lastTransitionTime), readyBefore.map((c) => c?.lastTransitionTime), "neither cluster was marked NotReady across the restart");
    assert.equal(split((await binding("shared")) as BindingJson), "member1=2 member2=2");
    await sameObjects("after the control plane restarted");
  });

  it("an agent killed with -9 between an apply and its record leaves no orphan: the object goes when its template does", async () => {
    const core = m1.kubeConfig().makeApiClient(CoreV1Api);
    const cm = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "orphan", namespace: NS }, data: { a: "1" } });
    const cmPolicy = JSON.stringify({
      apiVersion: "flotilla.dev/v1alpha1",
      kind: "PropagationPolicy",
      metadata: { name: "orphan", namespace: NS },
      spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "orphan" }], placement: { clusterAffinity: { clusterNames: ["member1"] } } },
    });
    await apply(fleet.control, cm);
    await apply(fleet.control, cmPolicy);
    // Kill the agent the moment the object exists in member1: before the old code's delayed record.
    await waitFor(() => core.readNamespacedConfigMap({ name: "orphan", namespace: NS }).then(() => true, () => false), { what: "orphan in member1", timeoutMs: 30_000, intervalMs: 20 });
    await flotilla.agents.get("member1")?.process.kill();
    await kubectl(fleet.control, ["delete", "configmap", "-n", NS, "orphan", "--wait=false"]);
    await flotilla.startAgent("member1");
    await eventually("the object is deleted with its template", () => core.readNamespacedConfigMap({ name: "orphan", namespace: NS }).then(() => undefined, () => "gone"), () => true, 60_000);
    const metrics = await flotilla.agentMetrics("member1");
    assert.ok((metrics['flotilla_agent_deletes_total{reason="TemplateDeleted"}'] ?? 0) >= 1, `the deletion is counted with its reason: ${JSON.stringify(deletions(metrics))}`);
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
  });

  it("a restarted agent adopts labelled objects no record names, and deletes one only when the hub says its Work is not wanted", async () => {
    const core = m1.kubeConfig().makeApiClient(CoreV1Api);
    const labelledCm = (name: string, key: string) =>
      JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: NS, labels: { "flotilla.dev/work": workKeyLabelValue(key) }, annotations: { "flotilla.dev/work-key": key } }, data: { left: "behind" } });
    // A Work that is wanted (its template and policy exist), and one that is not (no template at all).
    await apply(fleet.control, JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "wanted", namespace: NS }, data: { a: "1" } }));
    await apply(fleet.control, JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name: "wanted", namespace: NS }, spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "wanted" }], placement: { clusterAffinity: { clusterNames: ["member1"] } } } }));
    await eventually("wanted in member1", () => getJson(m1, ["cm", "-n", NS, "wanted"]), () => true);
    await flotilla.stopAgent("member1");
    // What an agent that crashed before writing its record would have left.
    await apply(m1, labelledCm("stray", `core/v1/ConfigMap/${NS}/stray`));
    const wanted = await getJson<{ metadata: { uid: string } }>(m1, ["cm", "-n", NS, "wanted"]);
    await flotilla.startAgent("member1");
    await eventually("the stray object is deleted: its Work is not wanted", () => core.readNamespacedConfigMap({ name: "stray", namespace: NS }).then(() => undefined, () => "gone"), () => true, 60_000);
    const metrics = await flotilla.agentMetrics("member1");
    // Its template does not exist: the hub's reason is TemplateDeleted.
    assert.ok((metrics['flotilla_agent_deletes_total{reason="TemplateDeleted"}'] ?? 0) >= 1, `deleted for the hub's reason: ${JSON.stringify(deletions(metrics))}`);
    assert.equal((await getJson<{ metadata: { uid: string } }>(m1, ["cm", "-n", NS, "wanted"]))?.metadata.uid, wanted?.metadata.uid, "the wanted object is untouched");
  });

  it("a Work the hub keeps without sending (its render fails after a control-plane restart) stays when its object changes in the member", async () => {
    const cm = (name: string) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: NS }, data: { a: "1" } });
    for (const name of ["kept", "beside"]) {
      await apply(fleet.control, cm(name));
      await apply(fleet.control, JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name, namespace: NS }, spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name }], placement: { clusterAffinity: { clusterNames: ["member1"] } } } }));
      await eventually(`${name} in member1`, () => getJson(m1, ["cm", "-n", NS, name]), () => true);
    }
    const kept = await getJson<{ metadata: { uid: string } }>(m1, ["cm", "-n", NS, "kept"]);
    // An override that cannot apply: no Work renders for member1, the copy there stays as it was.
    await apply(fleet.control, JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "OverridePolicy", metadata: { name: "kept", namespace: NS }, spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "kept" }], overrideRules: [{ targetCluster: { clusterNames: ["member1"] }, overriders: { plaintext: [{ path: "/spec/nothing", operator: "remove" }] } }] } }));
    await eventually("kept says its overrides failed", () => getJson<BindingJson>(fleet.control, ["rb", "-n", NS, "kept-configmap"]), (b) => JSON.stringify(b.status ?? {}).includes("ApplyOverridesFailed"));
    // Both restart: the hub has no Work for kept (and no intent to delete it); the agent holds its record.
    await flotilla.stopAgent("member1");
    await flotilla.stopControlPlane();
    await flotilla.startControlPlane();
    await flotilla.startAgent("member1");
    await eventually("the agent synced", () => flotilla.agentMetrics("member1"), (m) => m.flotilla_agent_connected === 1 && (m.flotilla_agent_works ?? 0) >= 1);
    // beside's apply starts the agent's ConfigMap watch; a change to kept in the member wakes its Work.
    await kubectl(m1, ["label", "cm", "-n", NS, "kept", "touched=yes"]);
    await new Promise((r) => setTimeout(r, 5_000));
    assert.equal((await getJson<{ metadata: { uid: string } }>(m1, ["cm", "-n", NS, "kept"]))?.metadata.uid, kept?.metadata.uid, "kept still runs, the same object");
    assert.deepEqual(deletions(await flotilla.agentMetrics("member1")), {}, "the agent deleted nothing");
  });
});
