// DESIGN §11 on real clusters: an absence the control plane infers (a missing binding, a policy
// that is gone or no longer selects, a name two kinds share, a binding under an earlier version's
// name) is never intent: the member objects keep their uids and no agent deletes anything.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { bindingName } from "../../control-plane/scheduling/binding-spec.ts";
import { apply, type BindingJson, condition, deletions, eventually, getJson, kubectl, sleep } from "./helpers.ts";

const NS = "absent";
/** --dependency-release-grace-period in this file. */
const RELEASE_GRACE_MS = 4_000;

interface Obj {
  metadata: { name: string; uid: string; labels?: Record<string, string>; annotations?: Record<string, string>; finalizers?: string[]; ownerReferences?: unknown[] };
  spec?: Record<string, unknown>;
}
type Binding = BindingJson & { metadata: { labels?: Record<string, string>; annotations?: Record<string, string>; uid?: string; deletionTimestamp?: string }; spec: { resource: { apiVersion: string; uid?: string }; requiredBy?: { name: string; clusters?: string[]; resource?: { kind: string; name: string } }[] } };

/** A namespaced CRD `Widget` in the given group. */
const widgetCrd = (group: string) =>
  JSON.stringify({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `widgets.${group}` },
    spec: {
      group,
      scope: "Namespaced",
      names: { plural: "widgets", singular: "widget", kind: "Widget" },
      versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", properties: { spec: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } } } }],
    },
  });

const widget = (group: string, name: string, color: string) => JSON.stringify({ apiVersion: `${group}/v1`, kind: "Widget", metadata: { name, namespace: NS }, spec: { color } });
const configMap = (name: string) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: NS }, data: { k: name } });
const pp = (name: string, selectors: object[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "PropagationPolicy", metadata: { name, namespace: NS }, spec: { resourceSelectors: selectors, ...extra } });
const cpp = (name: string, selectors: object[]) => JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "ClusterPropagationPolicy", metadata: { name }, spec: { resourceSelectors: selectors } });


describe("no inferred absence deletes what runs", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let m1: Cluster;
  let m2: Cluster;
  before(async () => {
    fleet = await startFleet({ members: 2 });
    // A dependency's release waits --dependency-release-grace-period: 4 s here (10 s in production).
    flotilla = await startFlotilla(fleet, { controlPlaneArgs: [`--dependency-release-grace-period=${RELEASE_GRACE_MS}ms`] });
    [m1, m2] = fleet.members as [Cluster, Cluster];
    for (const c of [fleet.control, m1, m2]) {
      await kubectl(c, ["create", "namespace", NS]);
      for (const g of ["alpha.example", "beta.example"]) await apply(c, widgetCrd(g));
    }
    for (const c of [fleet.control, m1, m2]) {
      for (const g of ["alpha.example", "beta.example"]) await kubectl(c, ["wait", "--for=condition=Established", `crd/widgets.${g}`, "--timeout=60s"]);
    }
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  const member = (m: Cluster, resource: string, name: string) => getJson<Obj>(m, [resource, "-n", NS, name]);
  const binding = (name: string) => getJson<Binding>(fleet.control, ["rb", "-n", NS, name]);
  const uids = async (resource: string, name: string) => [(await member(m1, resource, name))?.metadata.uid, (await member(m2, resource, name))?.metadata.uid];
  const placed = async (resource: string, name: string) => eventually(`${resource} ${name} in both members`, () => uids(resource, name), (u) => u.every((x) => x !== undefined));

  it("one kind and name in two groups are two bindings: deleting one template leaves the other's member objects", async () => {
    await apply(fleet.control, widget("alpha.example", "web", "red"));
    await apply(fleet.control, widget("beta.example", "web", "blue"));
    await apply(fleet.control, pp("widgets", [{ apiVersion: "alpha.example/v1", kind: "Widget" }, { apiVersion: "beta.example/v1", kind: "Widget" }]));
    const alpha = await placed("widgets.alpha.example", "web");
    const beta = await placed("widgets.beta.example", "web");
    const names = ["alpha.example", "beta.example"].map((g) => bindingName({ apiVersion: `${g}/v1`, kind: "Widget", name: "web" }));
    assert.notEqual(names[0], names[1]);
    for (const n of names) await eventually(`binding ${n}`, () => binding(n), (b) => b.spec.clusters.length === 2);

    await kubectl(fleet.control, ["delete", "widgets.alpha.example", "-n", NS, "web"]);
    for (const m of [m1, m2]) await eventually(`alpha's web gone from ${m.name}`, () => member(m, "widgets.alpha.example", "web").then((o) => (o === undefined ? "gone" : undefined)), () => true);
    await sleep(2000);
    assert.deepEqual(await uids("widgets.beta.example", "web"), beta, "beta's Widget stays, same uids");
    assert.notDeepEqual(alpha, beta);
  });

  it("a binding deleted by hand is made again and changes nothing in the members", async () => {
    await apply(fleet.control, configMap("handy"));
    await apply(fleet.control, pp("handy", [{ apiVersion: "v1", kind: "ConfigMap", name: "handy" }]));
    const before = await placed("cm", "handy");
    const old = await eventually("binding", () => binding("handy-configmap"), (b) => b.spec.clusters.length === 2);
    const deletes = [deletions(await flotilla.agentMetrics("member1")), deletions(await flotilla.agentMetrics("member2"))];
    await kubectl(fleet.control, ["delete", "rb", "-n", NS, "handy-configmap"]);
    await eventually("a new binding", () => binding("handy-configmap"), (b) => b.metadata.uid !== old.metadata.uid && b.spec.clusters.length === 2);
    await sleep(3000);
    assert.deepEqual(await uids("cm", "handy"), before, "the member objects are the same ones");
    assert.deepEqual([deletions(await flotilla.agentMetrics("member1")), deletions(await flotilla.agentMetrics("member2"))], deletes, "no agent deleted anything");
  });

  it("a binding deleted by hand, then its template deleted before it is made again: the members remove the template's objects", async () => {
    await apply(fleet.control, configMap("brief"));
    await apply(fleet.control, pp("brief", [{ apiVersion: "v1", kind: "ConfigMap", name: "brief" }]));
    await placed("cm", "brief");
    const made = await eventually("binding", () => binding("brief-configmap"), (b) => b.spec.clusters.length === 2);
    // A finalizer of the test's holds the binding in its deletion, so the template is deleted before it is made again, every time.
    const hold = "e2e.test/hold";
    const finalizers = (b: Binding | undefined) => JSON.stringify({ metadata: { finalizers: (b?.metadata.finalizers ?? []).filter((f) => f !== hold) } });
    await kubectl(fleet.control, ["patch", "rb", "-n", NS, "brief-configmap", "--type=merge", "-p", JSON.stringify({ metadata: { finalizers: [...(made.metadata.finalizers ?? []), hold] } })]);
    try {
      // The binding's deletion alone is no intent: the hub keeps the members' objects. The template's is.
      await kubectl(fleet.control, ["delete", "rb", "-n", NS, "brief-configmap", "--wait=false"]);
      await eventually("the binding being deleted", () => binding("brief-configmap"), (b) => b.metadata.deletionTimestamp !== undefined);
      await sleep(1000);
      assert.ok((await member(m1, "cm", "brief")) !== undefined, "the binding's deletion removed nothing");
      await kubectl(fleet.control, ["delete", "cm", "-n", NS, "brief"]);
      for (const m of [m1, m2]) {
        // Before: the removal kept for the binding's deletion was never judged again, and the objects stayed until the agent reconnected.
        await eventually(`brief gone from ${m.name}`, () => member(m, "cm", "brief").then((o) => (o === undefined ? "gone" : undefined)), (v) => v === "gone", 30_000);
      }
    } finally {
      const left = await binding("brief-configmap");
      if (left !== undefined) await kubectl(fleet.control, ["patch", "rb", "-n", NS, "brief-configmap", "--type=merge", "-p", finalizers(left)]);
    }
  });

  it("a binding deleted by hand while its policy is held is made again as it was; one lost unseen names no cluster decided: no member removes the workload, even at its agent's next Hello", async () => {
    await apply(fleet.control, configMap("waits"));
    await apply(fleet.control, pp("waits", [{ apiVersion: "v1", kind: "ConfigMap", name: "waits" }]));
    const before = await placed("cm", "waits");
    await eventually("binding", () => binding("waits-configmap"), (b) => b.spec.clusters.length === 2);
    // The policy now waits for an OverridePolicy that does not exist yet: held, the binding keeps its clusters.
    await apply(fleet.control, pp("waits", [{ apiVersion: "v1", kind: "ConfigMap", name: "waits" }], { dependentOverrides: ["waits-op"] }));
    const held = await eventually("the policy held", () => binding("waits-configmap"), (b) => condition(b, "Scheduled")?.reason === "DependentOverridesMissing");
    assert.equal(held.spec.clusters.length, 2, "a held policy keeps the binding's clusters");
    const agentsRestarted = async () => {
      // Each Hello lists the ConfigMap: judged against the binding as it is now.
      for (const m of [m1, m2]) {
        await flotilla.stopAgent(m.name);
        await flotilla.startAgent(m.name);
      }
      await eventually("both agents back", () => flotilla.controlPlaneMetrics(), (x) => x.flotilla_connected_agents === 2);
      await sleep(3000);
    };

    // Deleted by hand while the control plane watches: made again from the binding as it was.
    await kubectl(fleet.control, ["delete", "rb", "-n", NS, "waits-configmap"]);
    const again = await eventually("the binding made again", () => binding("waits-configmap"), (b) => b.metadata.uid !== held.metadata.uid);
    assert.deepEqual(again.spec.clusters.map((c) => c.name).sort(), ["member1", "member2"], "made again as it was");
    assert.equal(again.metadata.annotations?.["flotilla.dev/placement-unknown"], undefined);
    await agentsRestarted();
    assert.deepEqual(await uids("cm", "waits"), before, "the member objects are the same ones");

    // Lost where no control plane saw it go (as in a restore): made again from nothing, while held.
    await flotilla.stopControlPlane();
    await kubectl(fleet.control, ["patch", "rb", "-n", NS, "waits-configmap", "--type=merge", "-p", JSON.stringify({ metadata: { finalizers: null } })]);
    await kubectl(fleet.control, ["delete", "rb", "-n", NS, "waits-configmap"]);
    await flotilla.startControlPlane();
    const lost = await eventually("the binding made again from nothing", () => binding("waits-configmap"), (b) => b.metadata.uid !== again.metadata.uid);
    assert.deepEqual(lost.spec.clusters, [], "no cluster decided while held");
    assert.equal(lost.metadata.annotations?.["flotilla.dev/placement-unknown"], "DependentOverridesMissing");
    await agentsRestarted();
    assert.deepEqual(await uids("cm", "waits"), before, "before: each Hello judged PlacementChanged and the agents removed it");
    assert.deepEqual([deletions(await flotilla.agentMetrics("member1")), deletions(await flotilla.agentMetrics("member2"))], [{}, {}], "no agent deleted anything");

    // The OverridePolicy comes: the hold ends, the policy places the template where it runs, the annotation goes.
    await apply(fleet.control, JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "OverridePolicy", metadata: { name: "waits-op", namespace: NS }, spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "waits" }], overrideRules: [] } }));
    const decided = await eventually("placed again", () => binding("waits-configmap"), (b) => b.spec.clusters.length === 2);
    assert.equal(decided.metadata.annotations?.["flotilla.dev/placement-unknown"], undefined);
    await sleep(2000);
    assert.deepEqual(await uids("cm", "waits"), before, "the member objects are the same ones");
  });

  it("a dependency stays while its parent's binding is deleted by hand and made again (propagateDeps)", async () => {
    await apply(fleet.control, configMap("parent-conf"));
    await apply(
      fleet.control,
      JSON.stringify({
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "parent", namespace: NS },
        spec: { replicas: 1, selector: { matchLabels: { app: "parent" } }, template: { metadata: { labels: { app: "parent" } }, spec: { containers: [{ name: "c", image: "nginx", envFrom: [{ configMapRef: { name: "parent-conf" } }] }] } } },
      }),
    );
    await apply(fleet.control, pp("parent", [{ apiVersion: "apps/v1", kind: "Deployment", name: "parent" }], { propagateDeps: true }));
    const before = await placed("cm", "parent-conf");
    const parent = await placed("deploy", "parent");
    const old = await eventually("the parent's binding", () => binding("parent-deployment"), (b) => b.spec.clusters.length === 2);
    const deletes = [deletions(await flotilla.agentMetrics("member1")), deletions(await flotilla.agentMetrics("member2"))];
    await kubectl(fleet.control, ["delete", "rb", "-n", NS, "parent-deployment"]);
    await eventually("the parent's binding made again", () => binding("parent-deployment"), (b) => b.metadata.uid !== old.metadata.uid && b.spec.clusters.length === 2);
    await sleep(RELEASE_GRACE_MS + 2_000); // past --dependency-release-grace-period (4 s here), which a dependency's release waits for
    assert.deepEqual(await uids("cm", "parent-conf"), before, "the dependency is the same object in both members");
    assert.deepEqual(await uids("deploy", "parent"), parent, "and so is the parent");
    assert.ok(await binding("parent-conf-configmap"), "the dependency's binding stays");
    assert.deepEqual([deletions(await flotilla.agentMetrics("member1")), deletions(await flotilla.agentMetrics("member2"))], deletes, "no agent deleted anything");

    // Its policy deleted (it keeps its placement), then its binding deleted by hand: no policy claims
    // it, so it is not made again, and the workload runs on unmanaged; what it mounts stays with it.
    await kubectl(fleet.control, ["delete", "propagationpolicy", "-n", NS, "parent"]);
    await eventually("the parent unclaimed", () => binding("parent-deployment"), (b) => condition(b, "Scheduled")?.reason === "NoPolicyClaims");
    await kubectl(fleet.control, ["delete", "rb", "-n", NS, "parent-deployment"]);
    await eventually("the parent's binding gone", () => binding("parent-deployment").then((b) => (b === undefined ? "gone" : undefined)), () => true);
    await sleep(RELEASE_GRACE_MS + 3_000);
    assert.deepEqual(await uids("cm", "parent-conf"), before, "before: the dependency was released, and both members removed it under the running workload");
    assert.deepEqual(await uids("deploy", "parent"), parent, "the workload runs on");
    const kept = await binding("parent-conf-configmap");
    assert.deepEqual(kept?.spec.requiredBy?.map((r) => [r.name, r.resource?.kind, r.resource?.name]), [["parent-deployment", "Deployment", "parent"]], "still required by the parent, named");
    assert.deepEqual([deletions(await flotilla.agentMetrics("member1")), deletions(await flotilla.agentMetrics("member2"))], deletes, "no agent deleted anything");

    // The workload's template deleted: intent. It goes, and what it mounted goes after it (its kind stays watched while the ConfigMap's binding names it).
    await kubectl(fleet.control, ["delete", "deploy", "-n", NS, "parent"]);
    for (const [resource, name] of [["deploy", "parent"], ["cm", "parent-conf"]] as const) {
      for (const m of [m1, m2]) await eventually(`${name} gone from ${m.name}`, () => member(m, resource, name).then((o) => (o === undefined ? "gone" : undefined)), (v) => v === "gone", 30_000);
    }
  });

  it("a deleted policy keeps the last placement and says so; the policy made again claims it, nothing changes in the members", async () => {
    await apply(fleet.control, configMap("kept"));
    await apply(fleet.control, pp("kept", [{ apiVersion: "v1", kind: "ConfigMap", name: "kept" }]));
    const before = await placed("cm", "kept");
    await kubectl(fleet.control, ["delete", "pp", "-n", NS, "kept"]);
    const b = await eventually("the binding says no policy claims it", () => binding("kept-configmap"), (x) => condition(x, "Scheduled")?.reason === "NoPolicyClaims");
    assert.equal(condition(b, "Scheduled")?.status, "False");
    assert.match(condition(b, "Scheduled")?.message ?? "", /keeps its last placement \(member1, member2\)/);
    assert.deepEqual(b.spec.clusters.map((c) => c.name), ["member1", "member2"]);
    await sleep(2000);
    assert.deepEqual(await uids("cm", "kept"), before, "still in both members, same uids");

    // Editing a policy so that it no longer selects the template is the same.
    await apply(fleet.control, pp("kept", [{ apiVersion: "v1", kind: "ConfigMap", name: "kept" }]));
    await eventually("claimed again", () => binding("kept-configmap"), (x) => condition(x, "Scheduled")?.status === "True" && x.metadata.labels?.["flotilla.dev/policy-name"] === "kept");
    await apply(fleet.control, pp("kept", [{ apiVersion: "v1", kind: "ConfigMap", name: "something-else" }]));
    await eventually("unclaimed again", () => binding("kept-configmap"), (x) => condition(x, "Scheduled")?.reason === "NoPolicyClaims");
    await sleep(2000);
    assert.deepEqual(await uids("cm", "kept"), before, "still in both members, same uids");

    // Deleting the template is intent: it goes.
    await kubectl(fleet.control, ["delete", "cm", "-n", NS, "kept"]);
    for (const m of [m1, m2]) await eventually(`kept gone from ${m.name}`, () => member(m, "cm", "kept").then((o) => (o === undefined ? "gone" : undefined)), () => true);
  });

  it("a tenant's policy does not take a template a ClusterPropagationPolicy claims, unless it says preemption: Always", async () => {
    await apply(fleet.control, configMap("claimed"));
    await apply(fleet.control, cpp("fleet-claimed", [{ apiVersion: "v1", kind: "ConfigMap", name: "claimed", namespace: NS }]));
    await placed("cm", "claimed");
    await eventually("the cluster policy claims it", () => binding("claimed-configmap"), (x) => x.metadata.labels?.["flotilla.dev/policy-name"] === "fleet-claimed");
    await apply(fleet.control, pp("tenant", [{ apiVersion: "v1", kind: "ConfigMap", name: "claimed" }], { placement: { clusterAffinity: { clusterNames: ["member1"] } } }));
    await sleep(3000);
    const still = await binding("claimed-configmap");
    assert.equal(still?.metadata.labels?.["flotilla.dev/policy-name"], "fleet-claimed", "the claim holds");
    assert.deepEqual(still?.spec.clusters.map((c) => c.name), ["member1", "member2"]);
    await apply(fleet.control, pp("tenant", [{ apiVersion: "v1", kind: "ConfigMap", name: "claimed" }], { placement: { clusterAffinity: { clusterNames: ["member1"] } }, preemption: "Always" }));
    await eventually("preempted", () => binding("claimed-configmap"), (x) => x.metadata.labels?.["flotilla.dev/policy-name"] === "tenant" && x.spec.clusters.length === 1);
    await kubectl(fleet.control, ["delete", "clusterpropagationpolicy", "fleet-claimed"]);
  });

  it("a binding under an earlier version's name (<name>-<kind>) is moved to its current name with no change in any member", async () => {
    await apply(fleet.control, widget("beta.example", "mover", "green"));
    await apply(fleet.control, pp("mover", [{ apiVersion: "beta.example/v1", kind: "Widget", name: "mover" }]));
    const before = await placed("widgets.beta.example", "mover");
    const current = bindingName({ apiVersion: "beta.example/v1", kind: "Widget", name: "mover" });
    await eventually("current binding", () => binding(current), (x) => x.spec.clusters.length === 2);
    const deletes = [deletions(await flotilla.agentMetrics("member1")), deletions(await flotilla.agentMetrics("member2"))];

    // What the previous version left: the same binding named mover-widget, and no current one.
    await flotilla.stopControlPlane();
    const full = (await getJson<Obj & { apiVersion: string; kind: string }>(fleet.control, ["rb", "-n", NS, current])) as Obj & { apiVersion: string; kind: string };
    const legacy = { apiVersion: full.apiVersion, kind: full.kind, metadata: { name: "mover-widget", namespace: NS, labels: full.metadata.labels, finalizers: full.metadata.finalizers, ownerReferences: full.metadata.ownerReferences }, spec: full.spec };
    await apply(fleet.control, JSON.stringify(legacy));
    await kubectl(fleet.control, ["patch", "rb", "-n", NS, current, "--type=merge", "-p", '{"metadata":{"finalizers":null}}']);
    await kubectl(fleet.control, ["delete", "rb", "-n", NS, current]);
    await flotilla.startControlPlane();

    await eventually("moved to the current name", () => binding(current), (x) => x.spec.clusters.length === 2);
    await eventually("the legacy binding is gone", () => binding("mover-widget").then((x) => (x === undefined ? "gone" : undefined)), () => true);
    await sleep(2000);
    assert.deepEqual(await uids("widgets.beta.example", "mover"), before, "the member objects are the same ones");
    assert.deepEqual([deletions(await flotilla.agentMetrics("member1")), deletions(await flotilla.agentMetrics("member2"))], deletes, "no agent deleted anything");
  });
});
