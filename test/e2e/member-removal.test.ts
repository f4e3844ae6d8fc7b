// Issue 20 on a real member: what the agent deletes and keeps (items 6, 7) and what it repairs (8).
// - every delete names the uid of the object decided on, so a replaced object stays;
// - a member namespace deleted by hand comes back with Flotilla's objects in it;
// - a Namespace or CRD that holds objects Flotilla does not manage, or another Work's, is kept and reported;
// - preserveResourcesOnDeletion holds when the binding is gone before the agent hears of the removal;
// - a forced unjoin while the agent is connected removes nothing (issue 37, item 9): last, it ends the member.
import { bindingName } from "../../control-plane/scheduling/binding-spec.ts";
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pino from "pino";
import type { Cluster } from "../env/cluster.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import type { KubeObject } from "../../shared/api/types.ts";
import { Discovery } from "../../shared/discovery.ts";
import { KubeRest } from "../../shared/kube-rest.ts";
import { MemberDeletion } from "../../agent/applied/member-deletion.ts";
import { apply, type BindingJson, clusterItem, deletions, eventually, getJson, kubectl, runCommand, sleep } from "./helpers.ts";
import { ensureTestBundles } from "../env/test-bundles.ts";

const NS = "removal";
const WORK = "flotilla.dev/work";

interface ObjectJson {
  metadata: { name: string; uid: string; labels?: Record<string, string>; annotations?: Record<string, string>; deletionTimestamp?: string };
}

const configMap = (name: string, namespace: string, data: Record<string, string> = { a: "b" }) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace }, data });
const policy = (name: string, namespace: string, kind: string, spec: object = {}) =>
  JSON.stringify({
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "PropagationPolicy",
    metadata: { name, namespace },
    spec: { resourceSelectors: [{ apiVersion: "v1", kind, name }], placement: { clusterAffinity: { clusterNames: ["member1"] } }, ...spec },
  });
const clusterPolicy = (name: string, selector: object) =>
  JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "ClusterPropagationPolicy", metadata: { name }, spec: { resourceSelectors: [selector], placement: { clusterAffinity: { clusterNames: ["member1"] } } } });
const gone = <T>(get: () => Promise<T | undefined>) => () => get().then((x) => (x === undefined ? true : undefined));

describe("what the agent deletes, keeps and repairs in a member", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let m1: Cluster;
  before(async () => {
    fleet = await startFleet({ members: 1 });
    // A kept Namespace or CRD is tried again every --kept-recheck-interval: 2 s here (30 s in production).
    flotilla = await startFlotilla(fleet, { agentArgs: ["--kept-recheck-interval=2s"] });
    [m1] = fleet.members as [Cluster];
    await kubectl(fleet.control, ["create", "namespace", NS]);
  });
  after(async () => {
    await flotilla?.stop();
    await fleet?.stop();
  });

  it("a delete names the uid it decided on: an object replaced since it was read is not deleted", async () => {
    const labelled = (uid?: string) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "swapped", namespace: "default", labels: { [WORK]: "w1" } }, data: { uid: uid ?? "" } });
    await apply(m1, labelled());
    const read = (await getJson<KubeObject>(m1, ["configmap", "-n", "default", "swapped"])) as KubeObject;
    await kubectl(m1, ["delete", "configmap", "-n", "default", "swapped"]);
    await apply(m1, labelled("second"));
    const replaced = (await getJson<ObjectJson>(m1, ["configmap", "-n", "default", "swapped"])) as ObjectJson;
    assert.notEqual(replaced.metadata.uid, read.metadata.uid);

    // The agent's deleter against the real apiserver, with the object as it read it before the swap.
    const rest = new KubeRest(m1.kubeConfig());
    const stats = { deletes: 0, deletesByReason: new Map<string, number>() };
    const deletion = new MemberDeletion({ rest, discovery: new Discovery(rest), objects: { get: async () => read }, stats, log: pino({ level: "silent" }) });
    try {
      await deletion.deleteIfOurs("core/v1/ConfigMap/default/swapped", { apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "swapped" }, "w1", "TemplateDeleted");
    } finally {
      rest.close();
    }
    assert.equal((await getJson<ObjectJson>(m1, ["configmap", "-n", "default", "swapped"]))?.metadata.uid, replaced.metadata.uid, "the replacement is still there");
    assert.equal(stats.deletes, 0, "nothing counted as deleted");
    await kubectl(m1, ["delete", "configmap", "-n", "default", "swapped"]);
  });

  it("a member namespace deleted by hand comes back with Flotilla's objects in it", async () => {
    const ns = "repaired";
    await kubectl(fleet.control, ["create", "namespace", ns]);
    await apply(fleet.control, configMap("conf", ns));
    await apply(fleet.control, policy("conf", ns, "ConfigMap"));
    await eventually("conf in member1", () => getJson<ObjectJson>(m1, ["configmap", "-n", ns, "conf"]), (c) => c.metadata.labels?.[WORK] !== undefined);
    await kubectl(m1, ["delete", "namespace", ns, "--wait=true"]);
    const back = await eventually("conf back in member1", () => getJson<ObjectJson>(m1, ["configmap", "-n", ns, "conf"]), (c) => c.metadata.labels?.[WORK] !== undefined, 60_000);
    assert.ok(back.metadata.uid);
    await eventually("member1 reports it applied", () => getJson<BindingJson>(fleet.control, ["rb", "-n", ns, "conf-configmap"]), (b) => clusterItem(b, "member1")?.applied === true && (clusterItem(b, "member1")?.reason ?? "") === "");
  });

  it("a template Namespace deleted by hand in a member comes back, still Flotilla's, with the objects in it", async () => {
    const ns = "stocked";
    await kubectl(fleet.control, ["create", "namespace", ns]);
    await apply(fleet.control, clusterPolicy(ns, { apiVersion: "v1", kind: "Namespace", name: ns }));
    await apply(fleet.control, configMap("conf", ns));
    await apply(fleet.control, policy("conf", ns, "ConfigMap"));
    await eventually("conf in member1", () => getJson<ObjectJson>(m1, ["configmap", "-n", ns, "conf"]), (c) => c.metadata.labels?.[WORK] !== undefined);
    await eventually("the namespace is Flotilla's in member1", () => getJson<ObjectJson>(m1, ["namespace", ns]), (n) => n.metadata.labels?.[WORK] !== undefined);
    await kubectl(m1, ["delete", "namespace", ns, "--wait=true"]);
    await eventually("conf back in member1", () => getJson<ObjectJson>(m1, ["configmap", "-n", ns, "conf"]), (c) => c.metadata.labels?.[WORK] !== undefined, 60_000);
    await eventually("the namespace is Flotilla's again", () => getJson<ObjectJson>(m1, ["namespace", ns]), (n) => n.metadata.labels?.[WORK] !== undefined, 30_000);
    const b = await eventually("member1 reports the Namespace applied", () => getJson<BindingJson>(fleet.control, ["clusterresourcebinding", `${ns}-namespace`]), (x) => clusterItem(x, "member1")?.applied === true && (clusterItem(x, "member1")?.reason ?? "") === "", 30_000);
    assert.equal(clusterItem(b, "member1")?.reason ?? "", "");
  });

  it("a template Namespace that holds an object Flotilla does not manage stays in the member with that object, and the binding says why", async () => {
    await apply(fleet.control, JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } }));
    await apply(fleet.control, clusterPolicy("shop", { apiVersion: "v1", kind: "Namespace", name: "shop" }));
    await eventually("shop in member1", () => getJson<ObjectJson>(m1, ["namespace", "shop"]), (n) => n.metadata.labels?.[WORK] !== undefined);
    await kubectl(m1, ["create", "configmap", "theirs", "-n", "shop", "--from-literal=owner=member-admin"]);

    await kubectl(fleet.control, ["delete", "namespace", "shop", "--wait=false"]);
    const binding = () => getJson<BindingJson>(fleet.control, ["clusterresourcebinding", "shop-namespace"]);
    // While the control cluster's namespace terminates the entry is the agent's report (DeletionFailed); once the binding is being deleted it waits, saying why.
    const waiting = (x: BindingJson) => clusterItem(x, "member1")?.reason === "WaitingForRemoval" && /kept Namespace shop/.test(clusterItem(x, "member1")?.message ?? "");
    const b = await eventually("the binding says why member1 keeps it", binding, waiting, 60_000);
    assert.match(clusterItem(b, "member1")?.message ?? "", /DeletionFailed: kept Namespace shop: it holds 1 object Flotilla does not manage \(1 ConfigMap\)/);
    const ns = await getJson<ObjectJson>(m1, ["namespace", "shop"]);
    assert.ok(ns !== undefined && ns.metadata.deletionTimestamp === undefined, "the namespace stays in member1");
    assert.ok(await getJson(m1, ["configmap", "-n", "shop", "theirs"]), "with the object Flotilla does not manage");

    // Once that object is gone, the namespace goes and the binding is released.
    await kubectl(m1, ["delete", "configmap", "-n", "shop", "theirs"]);
    await eventually("shop leaves member1", gone(() => getJson(m1, ["namespace", "shop"])), (x) => x, 120_000);
    await eventually("the binding released", gone(binding), (x) => x, 60_000);
  });

  it("a template Namespace dropped from a member while another policy still places an object in it stays, with that object, until that object goes (issue 37)", async () => {
    const ns = "aisle";
    await apply(fleet.control, JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: ns } }));
    await apply(fleet.control, clusterPolicy(ns, { apiVersion: "v1", kind: "Namespace", name: ns }));
    await apply(fleet.control, configMap("stock", ns));
    await apply(fleet.control, policy("stock", ns, "ConfigMap"));
    const stock = await eventually("stock in member1", () => getJson<ObjectJson>(m1, ["configmap", "-n", ns, "stock"]), (c) => c.metadata.labels?.[WORK] !== undefined);
    const namespace = await eventually("aisle is Flotilla's in member1", () => getJson<ObjectJson>(m1, ["namespace", ns]), (n) => n.metadata.labels?.[WORK] !== undefined);

    // The ClusterPropagationPolicy no longer places the Namespace on member1; the PropagationPolicy still places stock there.
    await apply(fleet.control, JSON.stringify({ apiVersion: "flotilla.dev/v1alpha1", kind: "ClusterPropagationPolicy", metadata: { name: ns }, spec: { resourceSelectors: [{ apiVersion: "v1", kind: "Namespace", name: ns }], placement: { clusterAffinity: { clusterNames: ["member2"] } } } }));
    const binding = () => getJson<BindingJson>(fleet.control, ["clusterresourcebinding", `${ns}-namespace`]);
    const b = await eventually("the binding says why member1 keeps aisle", binding, (x) => /kept Namespace aisle/.test(clusterItem(x, "member1")?.message ?? ""), 60_000);
    assert.match(clusterItem(b, "member1")?.message ?? "", /kept Namespace aisle: it holds 1 object another Work or fleet places \(1 ConfigMap\)/);
    const kept = await getJson<ObjectJson>(m1, ["namespace", ns]);
    assert.equal(kept?.metadata.uid, namespace.metadata.uid, "the same namespace");
    assert.equal(kept?.metadata.deletionTimestamp, undefined, "not terminating");
    assert.equal((await getJson<ObjectJson>(m1, ["configmap", "-n", ns, "stock"]))?.metadata.uid, stock.metadata.uid, "stock is the same object: never deleted and made again");

    // Once stock's template is deleted (its Work removes it), nothing holds the namespace, and it goes too.
    await kubectl(fleet.control, ["delete", "configmap", "-n", ns, "stock"]);
    await eventually("stock leaves member1", gone(() => getJson(m1, ["configmap", "-n", ns, "stock"])), (x) => x, 60_000);
    await eventually("aisle leaves member1", gone(() => getJson(m1, ["namespace", ns])), (x) => x, 120_000);
  });

  it("a template CRD whose member holds a custom resource Flotilla does not manage stays, and the binding says why", async () => {
    const crd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "gadgets.example.com" },
      spec: {
        group: "example.com",
        scope: "Namespaced",
        names: { plural: "gadgets", singular: "gadget", kind: "Gadget" },
        versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", properties: { spec: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } } } }],
      },
    };
    await apply(fleet.control, JSON.stringify(crd));
    await apply(fleet.control, clusterPolicy("gadgets", { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", name: "gadgets.example.com" }));
    await eventually("the CRD in member1", () => getJson<ObjectJson>(m1, ["crd", "gadgets.example.com"]), (c) => c.metadata.labels?.[WORK] !== undefined);
    await kubectl(m1, ["wait", "--for=condition=Established", "crd/gadgets.example.com", "--timeout=30s"]);
    await apply(m1, JSON.stringify({ apiVersion: "example.com/v1", kind: "Gadget", metadata: { name: "local", namespace: "default" }, spec: { size: 1 } }));

    await kubectl(fleet.control, ["delete", "crd", "gadgets.example.com", "--wait=false"]);
    const b = await eventually(
      "the binding says why member1 keeps it",
      () => getJson<BindingJson>(fleet.control, ["clusterresourcebinding", bindingName({ apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", name: "gadgets.example.com" })]),
      (x) => /kept CustomResourceDefinition/.test(clusterItem(x, "member1")?.message ?? ""),
      60_000,
    );
    assert.match(clusterItem(b, "member1")?.message ?? "", /kept CustomResourceDefinition gadgets\.example\.com: it holds 1 object Flotilla does not manage \(1 Gadget\)/);
    assert.ok(await getJson(m1, ["crd", "gadgets.example.com"]), "the CRD stays in member1");
    assert.ok(await getJson(m1, ["gadgets.example.com", "-n", "default", "local"]), "with its custom resource");
  });

  it("keeps a preserveResourcesOnDeletion template's member copy when the binding is gone before the agent hears of the removal", async () => {
    await apply(fleet.control, configMap("kept", NS));
    await apply(fleet.control, policy("kept", NS, "ConfigMap", { preserveResourcesOnDeletion: true }));
    const before = await eventually("kept in member1", () => getJson<ObjectJson>(m1, ["configmap", "-n", NS, "kept"]), (c) => c.metadata.labels?.[WORK] !== undefined);
    await eventually("member1 reports it applied", () => getJson<BindingJson>(fleet.control, ["rb", "-n", NS, "kept-configmap"]), (b) => clusterItem(b, "member1")?.applied === true);

    // The agent is away while the template goes, and the binding goes too (here its finalizer is
    // released by hand): when the agent is back, nobody in the control cluster says "preserve".
    await flotilla.stopAgent("member1");
    await kubectl(fleet.control, ["delete", "configmap", "-n", NS, "kept", "--wait=false"]);
    await kubectl(fleet.control, ["patch", "rb", "-n", NS, "kept-configmap", "--type=merge", "-p", '{"metadata":{"finalizers":null}}']).catch(() => undefined);
    await eventually("the binding gone", gone(() => getJson(fleet.control, ["rb", "-n", NS, "kept-configmap"])), (x) => x, 60_000);
    await flotilla.startAgent("member1");

    // The agent acts on the removal: the copy is released (no label) or, before the fix, deleted.
    const after = await eventually(
      "member1's agent acted on the removal",
      () => getJson<ObjectJson>(m1, ["configmap", "-n", NS, "kept"]).then((c) => c ?? { metadata: { name: "kept", uid: "(deleted)" } }),
      (c) => c.metadata.uid === "(deleted)" || c.metadata.labels?.[WORK] === undefined,
      60_000,
    );
    assert.equal(after.metadata.uid, before.metadata.uid, "the same object stays in member1");
    assert.equal(Object.keys(after.metadata.annotations ?? {}).some((k) => k.startsWith("flotilla.dev/")), false, "no Flotilla annotation");
  });

  // Issue 37, item 9: the Cluster being deleted read as an unjoin, and the hub sent ClusterUnjoined
  // removals until the forced release ended the stream; then the Cluster gone read as one too.
  it("a forced unjoin while the agent is connected removes nothing: the member keeps what Flotilla applied (the last case: member1 goes)", async () => {
    const names = ["f1", "f2", "f3", "f4", "f5", "f6"];
    for (const n of names) await apply(fleet.control, configMap(n, NS));
    for (const n of names) await apply(fleet.control, policy(n, NS, "ConfigMap"));
    const uids: Record<string, string> = {};
    for (const n of names) uids[n] = (await eventually(`${n} in member1`, () => getJson<ObjectJson>(m1, ["configmap", "-n", NS, n]), (c) => c.metadata.labels?.[WORK] !== undefined)).metadata.uid;
    const before = deletions(await flotilla.agentMetrics("member1"));
    const ctl = (await ensureTestBundles()).flotillactl;
    const r = await runCommand(process.execPath, [ctl, "unjoin", "member1", "--force"], { env: { ...process.env, FLOTILLA_STATE_DIR: fleet.root, FLOTILLA_CONTROL_KUBECONFIG: fleet.control.kubeconfigPath } });
    assert.equal(r.code, 0, r.stderr);
    await eventually("the Cluster gone", gone(() => getJson(fleet.control, ["cluster", "member1"])), (x) => x, 30_000);
    // Long enough for any removal the hub had sent to be acted on.
    await sleep(3_000);
    for (const n of names) assert.equal((await getJson<ObjectJson>(m1, ["configmap", "-n", NS, n]))?.metadata.uid, uids[n], `${n} stays in member1, the same object`);
    assert.deepEqual(deletions(await flotilla.agentMetrics("member1")), before, "the agent deleted nothing");
  });
});
