// End to end: templates and policies in the control cluster reach real member clusters through
// the real control plane and agents (gRPC over mTLS), and status comes back.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { join } from "node:path";
import { ensureBinaries } from "../env/binaries.ts";
import { waitFor } from "../env/wait.ts";
import { bindingName } from "../../control-plane/scheduling/binding-spec.ts";
import { apply, type BindingJson, clusterItem, condition, eventually, getJson, kubectl, runCommand } from "./helpers.ts";

interface DeploymentJson {
  metadata: { resourceVersion: string; generation?: number; labels?: Record<string, string> };
  spec: { replicas: number; template: { spec: { containers: { image: string }[] } } };
  status?: { replicas?: number; readyReplicas?: number; availableReplicas?: number; updatedReplicas?: number; observedGeneration?: number; conditions?: { type: string; status: string; reason: string; message: string }[] };
}
interface ConfigMapJson {
  metadata: { resourceVersion: string; labels?: Record<string, string> };
  data?: Record<string, string>;
}

const NS = "e2e";

function deployment(name: string, replicas: number, image = "nginx:1.27"): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: ${NS}, labels: {app: ${name}}}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec: {containers: [{name: main, image: "${image}"}]}
`;
}

function configMap(name: string, data: Record<string, string>, labels: Record<string, string> = {}): string {
  return JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: NS, labels }, data });
}

function policy(name: string, spec: Record<string, unknown>): string {
  return JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name, namespace: NS }, spec });
}

describe("propagation end to end", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let control: Cluster;
  let m1: Cluster;
  let m2: Cluster;
  const binding = (name: string) => getJson<BindingJson>(control, ["resourcebinding", "-n", NS, name]);

  before(async () => {
    fleet = await startFleet({ members: 2 });
    flotilla = await startFlotilla(fleet, {
      clusterFailureThreshold: "4s",
      clusterSpecs: {
        member1: { labels: { env: "prod", tier: "3" }, spec: { region: "east", provider: "kwok" } },
        member2: { labels: { env: "dev", tier: "1" }, spec: { region: "west", provider: "kwok" } },
      },
    });
    control = fleet.control;
    [m1, m2] = fleet.members as [Cluster, Cluster];
    await kubectl(control, ["create", "namespace", NS]);
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  it("propagates a Deployment to every member and sums their status on the template", async () => {
    await apply(control, deployment("web", 2));
    await apply(control, policy("web", { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "web" }] }));
    for (const m of [m1, m2]) {
      await eventually(`web Available in ${m.name}`, () => getJson<DeploymentJson>(m, ["deploy", "-n", NS, "web"]), (d) => d.status?.availableReplicas === 2);
    }
    const t = await eventually("template status = fleet sum", () => getJson<DeploymentJson>(control, ["deploy", "-n", NS, "web"]), (d) => d.status?.readyReplicas === 4);
    assert.deepEqual([t.status?.replicas, t.status?.readyReplicas, t.status?.availableReplicas], [4, 4, 4]);
    await eventually("rolled out on the template", () => getJson<DeploymentJson>(control, ["deploy", "-n", NS, "web"]), (d) => d.status?.updatedReplicas === 4 && d.status.observedGeneration === d.metadata.generation);
    const b = await eventually("binding fully applied", () => binding("web-deployment"), (x) => condition(x, "FullyApplied")?.status === "True" && condition(x, "Propagation")?.status === "True");
    assert.deepEqual(b.spec.clusters, [{ name: "member1", replicas: 2 }, { name: "member2", replicas: 2 }]);
    assert.equal(condition(b, "Scheduled")?.status, "True");
    for (const m of ["member1", "member2"]) assert.equal(clusterItem(b, m)?.health, "Healthy");
    const pods = await getJson<{ items: unknown[] }>(control, ["pods", "-A"]);
    assert.equal(pods?.items.length, 0, "the control cluster runs no pods");
  });

  it("rolls template changes out to the members", async () => {
    await apply(control, deployment("web", 3, "nginx:1.28"));
    for (const m of [m1, m2]) {
      const d = await eventually(`web updated in ${m.name}`, () => getJson<DeploymentJson>(m, ["deploy", "-n", NS, "web"]), (x) => x.spec.replicas === 3 && x.status?.availableReplicas === 3);
      assert.equal(d.spec.template.spec.containers[0]?.image, "nginx:1.28");
    }
    await eventually("template sum follows", () => getJson<DeploymentJson>(control, ["deploy", "-n", NS, "web"]), (d) => d.status?.readyReplicas === 6 && d.status?.updatedReplicas === 6);
  });

  it("`kubectl rollout status` on the control cluster waits for every member, and fails as on one cluster when a member passes its progress deadline", async () => {
    const kubectlBin = join(await ensureBinaries(), "kubectl");
    const rollout = (name: string, timeout: string) => runCommand(kubectlBin, ["--kubeconfig", control.kubeconfigPath, "rollout", "status", `deploy/${name}`, "-n", NS, `--timeout=${timeout}`], { timeoutMs: 120_000 });
    await apply(control, deployment("web", 3, "nginx:1.29"));
    const done = await rollout("web", "90s");
    assert.equal(done.code, 0, `rollout status: ${done.stdout}${done.stderr}`);
    assert.match(done.stdout, /successfully rolled out/);
    // Having finished, every member runs the new template.
    for (const m of [m1, m2]) {
      const d = await getJson<DeploymentJson>(m, ["deploy", "-n", NS, "web"]);
      assert.equal(d?.spec.template.spec.containers[0]?.image, "nginx:1.29", `${m.name} rolled out before kubectl said so`);
      assert.equal(d?.status?.updatedReplicas, 3);
    }

    // member2 cannot schedule the new pods (an override pins them to no node): its progress deadline passes.
    await apply(control, policy("stuck", { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "stuck" }] }));
    const stuck = (image: string) => JSON.stringify({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "stuck", namespace: NS }, spec: { replicas: 1, progressDeadlineSeconds: 5, selector: { matchLabels: { app: "stuck" } }, template: { metadata: { labels: { app: "stuck" } }, spec: { containers: [{ name: "main", image }] } } } });
    await apply(control, stuck("nginx:1.27"));
    assert.equal((await rollout("stuck", "90s")).code, 0);
    await apply(
      control,
      JSON.stringify({
        apiVersion: "flotilla.dev/v1alpha1",
        kind: "OverridePolicy",
        metadata: { name: "stuck", namespace: NS },
        spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "stuck" }], overrideRules: [{ targetCluster: { clusterNames: ["member2"] }, overriders: { plaintext: [{ path: "/spec/template/spec/nodeSelector", operator: "add", value: { nowhere: "true" } }] } }] },
      }),
    );
    await apply(control, stuck("nginx:1.28"));
    const failed = await rollout("stuck", "90s");
    assert.notEqual(failed.code, 0, "rollout status fails");
    assert.match(failed.stderr, /exceeded its progress deadline/);
    const t = await getJson<DeploymentJson>(control, ["deploy", "-n", NS, "stuck"]);
    const progressing = t?.status?.conditions?.find((c) => c.type === "Progressing");
    assert.equal(progressing?.reason, "ProgressDeadlineExceeded");
    assert.match(progressing?.message ?? "", /^member2: /);
    await kubectl(control, ["delete", "overridepolicy", "-n", NS, "stuck"]);
  });

  it("places by cluster labels (Gt on a numeric label) and by fields (region)", async () => {
    await apply(control, [configMap("by-label", { a: "1" }), configMap("by-field", { b: "2" })].join("\n---\n"));
    await apply(
      control,
      [
        policy("by-label", {
          resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "by-label" }],
          placement: { clusterAffinity: { labelSelector: { matchExpressions: [{ key: "tier", operator: "Gt", values: ["2"] }] } } },
        }),
        policy("by-field", {
          resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "by-field" }],
          placement: { clusterAffinity: { fieldSelector: { matchExpressions: [{ key: "region", operator: "In", values: ["west"] }] } } },
        }),
      ].join("\n---\n"),
    );
    await eventually("by-label in member1", () => getJson(m1, ["cm", "-n", NS, "by-label"]), () => true);
    await eventually("by-field in member2", () => getJson(m2, ["cm", "-n", NS, "by-field"]), () => true);
    const bl = await eventually("by-label bound", () => binding("by-label-configmap"), (b) => condition(b, "FullyApplied")?.status === "True");
    const bf = await eventually("by-field bound", () => binding("by-field-configmap"), (b) => condition(b, "FullyApplied")?.status === "True");
    assert.deepEqual(bl.spec.clusters.map((c) => c.name), ["member1"]);
    assert.deepEqual(bf.spec.clusters.map((c) => c.name), ["member2"]);
    assert.equal(await getJson(m2, ["cm", "-n", NS, "by-label"]), undefined);
    assert.equal(await getJson(m1, ["cm", "-n", NS, "by-field"]), undefined);
  });

  it("propagates a cluster-scoped object (a CRD) and objects of that CRD-defined kind", async () => {
    const crd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "widgets.example.com" },
      spec: {
        group: "example.com",
        scope: "Namespaced",
        names: { plural: "widgets", singular: "widget", kind: "Widget" },
        versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties: { size: { type: "integer" } } } } } } }],
      },
    };
    await apply(control, JSON.stringify(crd));
    await kubectl(control, ["wait", "--for=condition=Established", "crd/widgets.example.com", "--timeout=30s"]);
    await apply(
      control,
      JSON.stringify({
        apiVersion: "flotilla.dev/v1alpha1",
        kind: "ClusterPropagationPolicy",
        metadata: { name: "widgets-crd" },
        spec: { resourceSelectors: [{ apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", name: "widgets.example.com" }] },
      }),
    );
    await apply(control, JSON.stringify({ apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w1", namespace: NS }, spec: { size: 3 } }));
    await apply(control, policy("widgets", { resourceSelectors: [{ apiVersion: "example.com/v1", kind: "Widget" }] }));
    for (const m of [m1, m2]) {
      const w = await eventually(`widget w1 in ${m.name}`, () => getJson<{ spec: { size: number } }>(m, ["widgets.example.com", "-n", NS, "w1"]), () => true, 90_000);
      assert.equal(w.spec.size, 3);
    }
    const crb = await eventually("CRD bound cluster-wide", () => getJson<BindingJson>(control, ["clusterresourcebinding", bindingName({ apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", name: "widgets.example.com" })]), (b) => condition(b, "FullyApplied")?.status === "True");
    assert.deepEqual(crb.spec.clusters.map((c) => c.name), ["member1", "member2"]);
  });

  it("reports AlreadyExists for a member object Flotilla does not manage, and takes it over with Overwrite", async () => {
    await kubectl(m1, ["create", "configmap", "taken", "-n", NS, "--from-literal=owner=member-admin"]);
    const before = await getJson<ConfigMapJson>(m1, ["cm", "-n", NS, "taken"]);
    const conflictsBefore = (await flotilla.agentMetrics("member1")).flotilla_agent_create_conflicts_total ?? 0;
    await apply(control, configMap("taken", { owner: "flotilla" }));
    await apply(control, policy("taken", { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "taken" }] }));
    const b = await eventually("member1 says AlreadyExists", () => binding("taken-configmap"), (x) => clusterItem(x, "member1")?.reason === "AlreadyExists" && clusterItem(x, "member2")?.applied === true);
    assert.match(clusterItem(b, "member1")?.message ?? "", /Overwrite/);
    assert.equal(condition(b, "Propagation")?.reason, "CheckClusters");
    assert.match(condition(b, "Propagation")?.message ?? "", /member1: AlreadyExists/);
    const after = await getJson<ConfigMapJson>(m1, ["cm", "-n", NS, "taken"]);
    assert.equal(after?.data?.owner, "member-admin", "left untouched");
    assert.equal(after?.metadata.resourceVersion, before?.metadata.resourceVersion, "not written at all");
    // The agent's ConfigMap cache was synced and had no "taken": it sent a create-only apply, which
    // the apiserver refused (create-only.ts), then read the object and decided AlreadyExists.
    assert.ok(((await flotilla.agentMetrics("member1")).flotilla_agent_create_conflicts_total ?? 0) > conflictsBefore, "the create-only apply met the object");
    await apply(control, policy("taken", { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "taken" }], conflictResolution: "Overwrite" }));
    await eventually("member1 taken over", () => getJson<ConfigMapJson>(m1, ["cm", "-n", NS, "taken"]), (c) => c.data?.owner === "flotilla");
    await eventually("binding clean", () => binding("taken-configmap"), (x) => condition(x, "Propagation")?.status === "True");
  });

  it("never touches a member object labelled flotilla.dev/managed=false", async () => {
    await kubectl(m2, ["create", "configmap", "hands-off", "-n", NS, "--from-literal=v=local"]);
    await kubectl(m2, ["label", "configmap", "hands-off", "-n", NS, "flotilla.dev/managed=false"]);
    const before = await getJson<ConfigMapJson>(m2, ["cm", "-n", NS, "hands-off"]);
    await apply(control, configMap("hands-off", { v: "fleet" }));
    await apply(control, policy("hands-off", { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "hands-off" }], conflictResolution: "Overwrite" }));
    await eventually("member2 says ManagedLabelFalse", () => binding("hands-off-configmap"), (x) => clusterItem(x, "member2")?.reason === "ManagedLabelFalse" && clusterItem(x, "member1")?.applied === true);
    const after = await getJson<ConfigMapJson>(m2, ["cm", "-n", NS, "hands-off"]);
    assert.equal(after?.metadata.resourceVersion, before?.metadata.resourceVersion, "not written at all");
    assert.equal(after?.data?.v, "local");
  });

  it("repairs drift: an edit or a deletion made directly in a member", async () => {
    await kubectl(m1, ["scale", "deploy", "web", "-n", NS, "--replicas=7"]);
    await eventually("replicas restored in member1", () => getJson<DeploymentJson>(m1, ["deploy", "-n", NS, "web"]), (d) => d.spec.replicas === 3);
    await kubectl(m2, ["delete", "cm", "by-field", "-n", NS]);
    await eventually("by-field recreated in member2", () => getJson<ConfigMapJson>(m2, ["cm", "-n", NS, "by-field"]), (c) => c.data?.b === "2");
  });

  it("removes the object from a cluster that is no longer placed, and from all when the template goes", async () => {
    await apply(control, configMap("moving", { m: "1" }));
    await apply(control, policy("moving", { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "moving" }] }));
    for (const m of [m1, m2]) await eventually(`moving in ${m.name}`, () => getJson(m, ["cm", "-n", NS, "moving"]), () => true);
    await apply(control, policy("moving", { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "moving" }], placement: { clusterAffinity: { clusterNames: ["member1"] } } }));
    await waitFor(async () => (await getJson(m2, ["cm", "-n", NS, "moving"])) === undefined, { what: "moving gone from member2", timeoutMs: 60_000, intervalMs: 250 });
    assert.ok(await getJson(m1, ["cm", "-n", NS, "moving"]), "still in member1");
    await eventually("binding lists member1 only", () => binding("moving-configmap"), (b) => b.status?.aggregatedStatus?.map((i) => i.clusterName).join() === "member1");

    await kubectl(control, ["delete", "cm", "moving", "-n", NS]);
    await waitFor(async () => (await getJson(m1, ["cm", "-n", NS, "moving"])) === undefined, { what: "moving gone from member1", timeoutMs: 60_000, intervalMs: 250 });
    await waitFor(async () => (await binding("moving-configmap")) === undefined, { what: "binding released and deleted", timeoutMs: 60_000, intervalMs: 250 });
  });

  it("holds a deleted template's binding with WaitingForRemoval until a disconnected agent removes the object", async () => {
    await apply(control, configMap("later", { l: "1" }));
    await apply(control, policy("later", { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "later" }] }));
    for (const m of [m1, m2]) await eventually(`later in ${m.name}`, () => getJson(m, ["cm", "-n", NS, "later"]), () => true);
    // The binding must know member2 holds it before its agent goes: an agent stopped between its apply
    // and its report leaves no entry, and a deleting binding with none is released at once (the object
    // then goes at the agent's Hello), as ha.test.ts's replaced-replica test found in the tracker's CI.
    await eventually("member2's entry", () => binding("later-configmap"), (x) => clusterItem(x, "member2")?.applied === true);
    await flotilla.stopAgent("member2");
    await kubectl(control, ["delete", "cm", "later", "-n", NS, "--wait=false"]);
    await waitFor(async () => (await getJson(m1, ["cm", "-n", NS, "later"])) === undefined, { what: "later gone from member1", timeoutMs: 60_000, intervalMs: 250 });
    const b = await eventually("member2 WaitingForRemoval", () => binding("later-configmap"), (x) => x.status?.aggregatedStatus?.map((i) => `${i.clusterName}:${i.reason}`).join() === "member2:WaitingForRemoval");
    assert.ok(b.metadata.finalizers?.includes("flotilla.dev/binding-cleanup"), "the finalizer holds the binding");
    assert.ok(await getJson(m2, ["cm", "-n", NS, "later"]), "member2 still has it while its agent is away");
    await flotilla.startAgent("member2");
    await waitFor(async () => (await getJson(m2, ["cm", "-n", NS, "later"])) === undefined, { what: "later removed by member2's agent at resync", timeoutMs: 60_000, intervalMs: 250 });
    await waitFor(async () => (await binding("later-configmap")) === undefined, { what: "binding released", timeoutMs: 60_000, intervalMs: 250 });
  });

  it("shows each member's version, nodes and capacity on its Cluster", async () => {
    interface ClusterJson { status?: { kubernetesVersion?: string; agentVersion?: string; nodeSummary?: { totalNum: number; readyNum: number }; resourceSummary?: { allocatable?: Record<string, string>; allocated?: Record<string, string> }; lastHeartbeatTime?: string } }
    const c = await eventually("member1 status", () => getJson<ClusterJson>(control, ["cluster", "member1"]), (x) => (x.status?.resourceSummary?.allocated?.pods ?? "0") !== "0");
    assert.equal(c.status?.kubernetesVersion, "v1.36.3");
    assert.deepEqual(c.status?.nodeSummary, { totalNum: 2, readyNum: 2 });
    assert.equal(c.status?.resourceSummary?.allocatable?.cpu, "32", "2 kwok nodes × 16 CPU");
    assert.equal(c.status?.resourceSummary?.allocatable?.pods, "220");
    assert.ok(Number(c.status?.resourceSummary?.allocated?.pods) >= 3, "web's pods count as allocated");
    assert.ok(Date.now() - Date.parse(c.status?.lastHeartbeatTime ?? "") < 30_000, "a recent heartbeat");
    assert.equal(c.status?.agentVersion, "0.1.0");
  });

  it("refuses a bad policy at apply time with a message naming the field", async () => {
    const bad = policy("bad", {
      resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap" }],
      placement: { clusterAffinity: { labelSelector: { matchExpressions: [{ key: "tier", operator: "Gt", values: ["high"] }] } } },
    });
    await assert.rejects(apply(control, bad), (err: Error) => /matchExpressions\[0\]\.values/.test(err.message) && /Gt/.test(err.message));
    assert.equal(await getJson(control, ["pp", "-n", NS, "bad"]), undefined);
  });

  it("an agent restart re-applies nothing unchanged, and receives no manifest", async () => {
    const managed = async () => {
      const list = await getJson<{ items: { kind: string; metadata: { name: string; resourceVersion: string } }[] }>(m1, ["deploy,cm,widgets.example.com", "-n", NS, "-l", "flotilla.dev/work"]);
      return new Map((list?.items ?? []).map((o) => [`${o.kind}/${o.metadata.name}`, o.metadata.resourceVersion]));
    };
    const before = await managed();
    assert.ok(before.size >= 4, `member1 holds Flotilla's objects (${[...before.keys()].join(", ")})`);
    await flotilla.stopAgent("member1");
    await flotilla.startAgent("member1");
    const works = (await flotilla.controlPlaneMetrics())['flotilla_works{cluster="member1"}'];
    await waitFor(
      async () => {
        const m = await flotilla.agentMetrics("member1");
        return m.flotilla_agent_connected === 1 && m.flotilla_agent_works === works && m.flotilla_agent_work_queue_depth === 0;
      },
      { what: "the restarted agent to check every Work", timeoutMs: 60_000, intervalMs: 200 },
    );
    const m = await flotilla.agentMetrics("member1");
    assert.equal(m.flotilla_agent_applies_total, 0, "no server-side apply after the restart");
    assert.deepEqual(await managed(), before, "no member object was written");
    // It kept {work → hash} across the restart: the hub sent nothing, and it holds every Work by hash.
    assert.equal(m.flotilla_agent_works_by_hash, works, "every Work held by hash");
    assert.equal(m.flotilla_agent_upserts_received_total, 0, "no Work sent to the restarted agent");
    assert.equal(m.flotilla_agent_manifest_bytes_received_total, 0, "no manifest bytes received");
    const cp = await flotilla.controlPlaneMetrics();
    assert.equal(cp['flotilla_stream_manifest_bytes_total{cluster="member1"}'], 0, "no manifest bytes sent on member1's stream");
    // The hub keeps statuses only in memory: the agent reports every Work again, from the live objects.
    await waitFor(async () => ((await flotilla.controlPlaneMetrics())['flotilla_stream_statuses_total{cluster="member1"}'] ?? 0) >= (works ?? Infinity), {
      what: `a status for each of member1's ${works} Works on its new stream`,
      timeoutMs: 10_000,
      intervalMs: 200,
    });
  });

  it("after a restart, repairs drift of Works held by hash (an edit, a deletion), asking the hub for those Works alone", async () => {
    await kubectl(m1, ["patch", "cm", "by-label", "-n", NS, "--type=merge", "-p", '{"data":{"a":"drifted"}}']);
    await kubectl(m1, ["delete", "cm", "taken", "-n", NS]);
    await eventually("by-label repaired in member1", () => getJson<ConfigMapJson>(m1, ["cm", "-n", NS, "by-label"]), (c) => c.data?.a === "1");
    await eventually("taken recreated in member1", () => getJson<ConfigMapJson>(m1, ["cm", "-n", NS, "taken"]), (c) => c.data?.owner === "flotilla");
    const m = await flotilla.agentMetrics("member1");
    assert.equal(m.flotilla_agent_upserts_received_total, 2, "only the two drifted Works' contents came");
    assert.ok((m.flotilla_agent_manifest_bytes_received_total ?? 0) > 0);
    assert.equal(m.flotilla_agent_works_by_hash, (m.flotilla_agent_works ?? 0) - 2, "the drifted Works are now held with their manifests");
  });

  it("a control-plane restart sends no manifests to agents whose Works did not change", async () => {
    const before = await Promise.all(["member1", "member2"].map((m) => flotilla.agentMetrics(m)));
    await flotilla.stopControlPlane();
    await flotilla.startControlPlane();
    for (const [i, member] of ["member1", "member2"].entries()) {
      await waitFor(
        async () => {
          const m = await flotilla.agentMetrics(member);
          return m.flotilla_agent_connected === 1 && (m.flotilla_agent_stream_connects_total ?? 0) > (before[i]?.flotilla_agent_stream_connects_total ?? 0);
        },
        { what: `${member} to resync with the new control plane`, timeoutMs: 60_000, intervalMs: 200 },
      );
      const after = await flotilla.agentMetrics(member);
      assert.equal(after.flotilla_agent_upserts_received_total, before[i]?.flotilla_agent_upserts_received_total, `${member} received no Work`);
      assert.equal(after.flotilla_agent_manifest_bytes_received_total, before[i]?.flotilla_agent_manifest_bytes_received_total, `${member} received no manifest bytes`);
    }
    const cp = await flotilla.controlPlaneMetrics();
    assert.equal(cp['flotilla_stream_manifest_bytes_total{cluster="member1"}'], 0);
    assert.equal(cp['flotilla_stream_manifest_bytes_total{cluster="member2"}'], 0);
  });

  it("records a Warning Event on the template when an override cannot apply, and one Event for a failure that stands", async () => {
    const override = JSON.stringify({
      apiVersion: "flotilla.dev/v1alpha1",
      kind: "OverridePolicy",
      metadata: { name: "evt", namespace: NS },
      spec: {
        resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "evt" }],
        overrideRules: [{ targetCluster: { clusterNames: ["member1"] }, overriders: { plaintext: [{ path: "/spec/nothing", operator: "remove" }] } }],
      },
    });
    const template = (v: string) => [configMap("evt", { v }), policy("evt", { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "evt" }] })].join("\n---\n");
    interface EventJson { metadata: { name: string }; type: string; reason: string; message: string; count?: number; involvedObject: { kind: string; name: string; uid?: string }; source?: { component?: string } }
    const events = async () =>
      (await getJson<{ items: EventJson[] }>(control, ["events", "-n", NS, "--field-selector", "involvedObject.name=evt"]))?.items.filter((e) => e.involvedObject.kind === "ConfigMap" && e.reason === "ApplyOverridesFailed");
    await apply(control, override);
    await apply(control, template("1"));
    const [first] = await eventually("an ApplyOverridesFailed Event on the template", events, (l) => l.length > 0);
    assert.equal(first?.type, "Warning");
    assert.match(first?.message ?? "", /^cluster member1: .*\/spec\/nothing/);
    assert.equal(first?.source?.component, "flotilla-control-plane");
    assert.equal(first?.involvedObject.uid, (await getJson<{ metadata: { uid: string } }>(control, ["cm", "-n", NS, "evt"]))?.metadata.uid);

    // The same broken state again, and a template change that every cluster renders anew while member1 still fails the same way.
    await apply(control, override);
    await apply(control, template("2"));
    await eventually("member2 follows the template", () => getJson<ConfigMapJson>(m2, ["cm", "-n", NS, "evt"]), (c) => c.data?.v === "2");
    await eventually("the binding shows member2 applied and member1 still failing", () => binding("evt-configmap"), (b) => clusterItem(b, "member2")?.applied === true && clusterItem(b, "member2")?.reason === "" && clusterItem(b, "member1")?.reason === "ApplyOverridesFailed");
    await new Promise((resolve) => setTimeout(resolve, 2_000)); // room for an Event write that should not happen
    const after = await events();
    assert.deepEqual(after?.map((e) => e.metadata.name), [first?.metadata.name], "still one Event for the standing failure");
    assert.ok((after?.[0]?.count ?? 1) >= (first?.count ?? 1));
  });
});
