// Issue 21, propagateDeps through the resource interpreter, on real members. A CRD kind of our own
// (Widget) is taught its dependencies by a ResourceInterpreterCustomization's GetDependencies (Lua,
// run by the control plane): a ConfigMap by name, Secrets by label selector, and an object of a
// second CRD kind (Gadget) that nothing else makes the control plane watch. Under a propagateDeps
// policy they follow the Widget to its members, a Secret labelled later follows too, and one
// labelled otherwise stays home. A script edited to fail says InterpreterFailed on the Widget's
// binding and keeps every dependency where it is (past the release grace period: DESIGN §11);
// edited back, the condition clears.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { apply, type BindingJson, condition, eventually, getJson, kubectl, sleep } from "./helpers.ts";

const NS = "lua-deps";
const GROUP = "deps.flotilla.dev";
/** --dependency-release-grace-period in this file. */
const RELEASE_GRACE_MS = 4_000;

const crd = (kind: string, plural: string) => ({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `${plural}.${GROUP}` },
  spec: {
    group: GROUP,
    scope: "Namespaced",
    names: { plural, singular: kind.toLowerCase(), kind },
    versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", properties: { spec: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } } } }],
  },
});

const GOOD_SCRIPT = `function GetDependencies(desiredObj)
  local ns = desiredObj.metadata.namespace
  local refs = {}
  refs[1] = { apiVersion = "v1", kind = "ConfigMap", namespace = ns, name = desiredObj.spec.config }
  refs[2] = { apiVersion = "v1", kind = "Secret", namespace = ns, labelSelector = { matchLabels = { app = desiredObj.spec.app } } }
  refs[3] = { apiVersion = "${GROUP}/v1", kind = "Gadget", namespace = ns, name = desiredObj.spec.gadget }
  return refs
end`;
const FAILING_SCRIPT = `function GetDependencies(desiredObj)
  return { { apiVersion = "v1", kind = "ConfigMap", namespace = desiredObj.metadata.namespace, name = desiredObj.spec.missing.name } }
end`;

const customization = (script: string) => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "ResourceInterpreterCustomization",
  metadata: { name: "widget-deps" },
  spec: { target: { apiVersion: `${GROUP}/v1`, kind: "Widget" }, customizations: { dependencyInterpretation: { luaScript: script } } },
});

const secret = (name: string, app: string) => ({ apiVersion: "v1", kind: "Secret", metadata: { name, namespace: NS, labels: { app } }, stringData: { key: name } });

interface ObjectJson {
  metadata: { uid: string; name: string };
}

describe("dependencies a customization's GetDependencies names, on real members", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  before(async () => {
    fleet = await startFleet({ members: 2 });
    // A dependency's release waits --dependency-release-grace-period: 4 s here (10 s in production).
    flotilla = await startFlotilla(fleet, { controlPlaneArgs: [`--dependency-release-grace-period=${RELEASE_GRACE_MS}ms`] });
    await kubectl(fleet.control, ["create", "namespace", NS]);
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  it("follow the Widget by name and by label selector, any kind; a failing script keeps them and says InterpreterFailed; fixed, the condition clears", async () => {
    const [m1, m2] = fleet.members as [Cluster, Cluster];
    for (const [kind, plural] of [["Widget", "widgets"], ["Gadget", "gadgets"]]) await apply(fleet.control, JSON.stringify(crd(kind as string, plural as string)));
    for (const plural of ["widgets", "gadgets"]) await kubectl(fleet.control, ["wait", "--for=condition=Established", `crd/${plural}.${GROUP}`, "--timeout=60s"]);
    await apply(
      fleet.control,
      JSON.stringify({
        apiVersion: "flotilla.dev/v1alpha1",
        kind: "ClusterPropagationPolicy",
        metadata: { name: "deps-crds" },
        spec: {
          resourceSelectors: ["widgets", "gadgets"].map((plural) => ({ apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", name: `${plural}.${GROUP}` })),
        },
      }),
    );
    await apply(fleet.control, JSON.stringify(customization(GOOD_SCRIPT)));
    await apply(fleet.control, JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "widget-conf", namespace: NS }, data: { MODE: "fleet" } }));
    await apply(fleet.control, JSON.stringify(secret("widget-key-a", "widget")));
    await apply(fleet.control, JSON.stringify(secret("unrelated", "other")));
    await apply(fleet.control, JSON.stringify({ apiVersion: `${GROUP}/v1`, kind: "Gadget", metadata: { name: "widget-gadget", namespace: NS }, spec: { size: 1 } }));
    await apply(
      fleet.control,
      JSON.stringify({ apiVersion: `${GROUP}/v1`, kind: "Widget", metadata: { name: "w", namespace: NS }, spec: { config: "widget-conf", app: "widget", gadget: "widget-gadget" } }),
    );
    await apply(
      fleet.control,
      JSON.stringify({
        apiVersion: "flotilla.dev/v1alpha1",
        kind: "PropagationPolicy",
        metadata: { name: "w", namespace: NS },
        spec: { resourceSelectors: [{ apiVersion: `${GROUP}/v1`, kind: "Widget", name: "w" }], propagateDeps: true, placement: { clusterAffinity: { clusterNames: ["member1", "member2"] } } },
      }),
    );

    const dependencies = [["configmap", "widget-conf"], ["secret", "widget-key-a"], [`gadgets.${GROUP}`, "widget-gadget"]] as const;
    const uids = new Map<string, string>();
    for (const m of [m1, m2]) {
      await eventually(`the Widget in ${m.name}`, () => getJson<ObjectJson>(m, [`widgets.${GROUP}`, "-n", NS, "w"]), () => true, 90_000);
      for (const [kind, name] of dependencies) {
        const got = await eventually(`${kind}/${name} in ${m.name}`, () => getJson<ObjectJson>(m, [kind, "-n", NS, name]), () => true, 90_000);
        uids.set(`${m.name}/${kind}/${name}`, got.metadata.uid);
      }
    }
    const gadgetBinding = await eventually(
      "the Gadget's binding, required by the Widget's",
      async () => (await getJson<{ items: (BindingJson & { spec: { resource: { kind: string }; requiredBy?: { name: string; clusters: string[] }[] } })[] }>(fleet.control, ["rb", "-n", NS]))?.items.find((b) => b.spec.resource.kind === "Gadget"),
      (b) => (b.spec.requiredBy ?? []).length === 1,
    );
    assert.deepEqual(gadgetBinding.spec.requiredBy?.[0]?.clusters, ["member1", "member2"]);
    assert.equal(await getJson(m1, ["secret", "-n", NS, "unrelated"]), undefined, "a Secret the selector does not match stays home");

    // A Secret labelled to match after the Widget was placed follows it too.
    await apply(fleet.control, JSON.stringify(secret("widget-key-b", "widget")));
    for (const m of [m1, m2]) await eventually(`secret/widget-key-b in ${m.name}`, () => getJson<ObjectJson>(m, ["secret", "-n", NS, "widget-key-b"]), () => true);
    // A new binding's Works go out while it is written (issue 42): the member may show it first.
    await eventually("secret/widget-key-b's binding", () => getJson<ObjectJson>(fleet.control, ["rb", "-n", NS, "widget-key-b-secret"]), () => true);

    // The script fails for this Widget: its binding says why, and every dependency stays.
    const widgetBinding = async () => (await getJson<{ items: (BindingJson & { spec: { resource: { kind: string } } })[] }>(fleet.control, ["rb", "-n", NS]))?.items.find((b) => b.spec.resource.kind === "Widget");
    const bindingsBefore = await getJson<{ items: ObjectJson[] }>(fleet.control, ["rb", "-n", NS]);
    await apply(fleet.control, JSON.stringify(customization(FAILING_SCRIPT)));
    const failed = await eventually("InterpreterFailed on the Widget's binding", widgetBinding, (b) => condition(b, "Scheduled")?.reason === "InterpreterFailed");
    assert.match(condition(failed, "Scheduled")?.message ?? "", /^InterpretDependency: .*missing/);
    assert.deepEqual(failed.spec.clusters.map((c) => c.name), ["member1", "member2"], "the Widget keeps its placement");
    await sleep(RELEASE_GRACE_MS + 2_000); // past --dependency-release-grace-period (4 s here), which a dependency's release waits for
    for (const m of [m1, m2]) {
      for (const [kind, name] of dependencies) {
        const got = await getJson<ObjectJson>(m, [kind, "-n", NS, name]);
        assert.equal(got?.metadata.uid, uids.get(`${m.name}/${kind}/${name}`), `${m.name} keeps ${kind}/${name}`);
      }
      assert.ok(await getJson(m, ["secret", "-n", NS, "widget-key-b"]), `${m.name} keeps secret/widget-key-b`);
    }
    const bindingsAfter = await getJson<{ items: ObjectJson[] }>(fleet.control, ["rb", "-n", NS]);
    assert.deepEqual(bindingsAfter?.items.map((b) => b.metadata.uid).sort(), bindingsBefore?.items.map((b) => b.metadata.uid).sort(), "no binding was released or made again");

    // Edited back: the condition clears, and the dependencies are the same objects.
    await apply(fleet.control, JSON.stringify(customization(GOOD_SCRIPT)));
    const fixed = await eventually("the Widget's binding Scheduled again", widgetBinding, (b) => condition(b, "Scheduled")?.status === "True");
    assert.equal(condition(fixed, "Scheduled")?.reason, "Scheduled");
    for (const m of [m1, m2]) {
      for (const [kind, name] of dependencies) {
        const got = await getJson<ObjectJson>(m, [kind, "-n", NS, name]);
        assert.equal(got?.metadata.uid, uids.get(`${m.name}/${kind}/${name}`), `${m.name} still has the same ${kind}/${name}`);
      }
    }
  });
});
