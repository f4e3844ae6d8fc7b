import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../shared/api/types.ts";
import { isOurs } from "./deletion-judge.ts";
import { cascades, type HeldContents, heldContents, holdsAny, keptMessage } from "./unmanaged-contents.ts";

const WORK = { "flotilla.dev/work": "abc" };
const obj = (apiVersion: string, kind: string, name: string, extra: Partial<KubeObject["metadata"]> = {}, fields: Record<string, unknown> = {}): KubeObject => ({
  apiVersion,
  kind,
  metadata: { name, namespace: "shop", uid: `${kind}-${name}`, ...extra },
  ...fields,
});
const owned = (uid: string) => ({ ownerReferences: [{ apiVersion: "v1", kind: "X", name: "x", uid }] });
/** The removed Work is "abc", of this agent (owner fleet-a/member1), as member-deletion.ts asks. */
const thisWorks = (o: KubeObject) => isOurs(o, "abc", "fleet-a/member1");
const OTHER = { "flotilla.dev/work": "def" };
const plain = (c: HeldContents) => ({ unmanaged: Object.fromEntries(c.unmanaged.byKind), otherWorks: Object.fromEntries(c.otherWorks.byKind), total: c.unmanaged.total + c.otherWorks.total });

describe("heldContents", () => {
  const cases: { name: string; objects: KubeObject[]; total: number; byKind: Record<string, number>; otherWorks?: Record<string, number> }[] = [
    { name: "an empty namespace", objects: [], total: 0, byKind: {} },
    {
      name: "only what Kubernetes makes in every namespace",
      objects: [
        obj("v1", "ServiceAccount", "default"),
        obj("v1", "ConfigMap", "kube-root-ca.crt"),
        obj("v1", "Event", "web.1"),
        obj("events.k8s.io/v1", "Event", "web.2"),
        obj("v1", "Secret", "default-token-x", { annotations: { "kubernetes.io/service-account.name": "default" } }, { type: "kubernetes.io/service-account-token" }),
      ],
      total: 0,
      byKind: {},
    },
    { name: "only Flotilla's objects", objects: [obj("v1", "ConfigMap", "conf", { labels: WORK }), obj("apps/v1", "Deployment", "web", { labels: WORK })], total: 0, byKind: {} },
    {
      name: "a managed Deployment's ReplicaSet and Pods and a managed Service's slices and Endpoints go with their owners",
      objects: [
        obj("apps/v1", "Deployment", "web", { labels: WORK, uid: "d1" }),
        obj("apps/v1", "ReplicaSet", "web-1", { uid: "rs1", ...owned("d1") }),
        obj("v1", "Pod", "web-1-a", owned("rs1")),
        obj("v1", "Service", "web", { labels: WORK, uid: "s1" }),
        obj("discovery.k8s.io/v1", "EndpointSlice", "web-x", owned("s1")),
        obj("v1", "Endpoints", "web"),
      ],
      total: 0,
      byKind: {},
    },
    {
      name: "someone else's objects count, once per owner",
      objects: [
        obj("v1", "ConfigMap", "mine"),
        obj("v1", "ConfigMap", "theirs"),
        obj("v1", "Secret", "token", {}, { type: "Opaque" }),
        obj("apps/v1", "Deployment", "db", { uid: "d2" }),
        obj("apps/v1", "ReplicaSet", "db-1", { uid: "rs2", ...owned("d2") }),
        obj("v1", "Pod", "db-1-a", owned("rs2")),
      ],
      total: 4,
      byKind: { ConfigMap: 2, Secret: 1, Deployment: 1 },
    },
    { name: "an object marked flotilla.dev/managed=false is not Flotilla's", objects: [obj("v1", "ConfigMap", "hands-off", { labels: { "flotilla.dev/managed": "false" } })], total: 1, byKind: { ConfigMap: 1 } },
    { name: "a ConfigMap named like the root CA in another group is counted", objects: [obj("example.com/v1", "ConfigMap", "kube-root-ca.crt")], total: 1, byKind: { ConfigMap: 1 } },
    { name: "a ServiceAccount other than default is counted", objects: [obj("v1", "ServiceAccount", "builder")], total: 1, byKind: { ServiceAccount: 1 } },
    { name: "a Pod owned by something outside the namespace is counted", objects: [obj("v1", "Pod", "static", owned("node-1"))], total: 1, byKind: { Pod: 1 } },
    { name: "custom resources of a CRD without Flotilla's label", objects: [obj("example.com/v1", "Widget", "a"), obj("example.com/v1", "Widget", "b", { labels: WORK })], total: 1, byKind: { Widget: 1 } },
    // Issue 37: a ClusterPropagationPolicy dropped member1 from Namespace shop while a PropagationPolicy still placed a ConfigMap there.
    { name: "another Work's objects are held: someone still places them there", objects: [obj("v1", "ConfigMap", "conf", { labels: OTHER }), obj("apps/v1", "Deployment", "web", { labels: WORK })], total: 1, byKind: {}, otherWorks: { ConfigMap: 1 } },
    {
      name: "another Work's Deployment is held once, with its ReplicaSet and Pods",
      objects: [obj("apps/v1", "Deployment", "db", { labels: OTHER, uid: "d3" }), obj("apps/v1", "ReplicaSet", "db-1", { uid: "rs3", ...owned("d3") }), obj("v1", "Pod", "db-1-a", owned("rs3"))],
      total: 1,
      byKind: {},
      otherWorks: { Deployment: 1 },
    },
    { name: "this Work's label from another fleet (another owner) is held", objects: [obj("v1", "ConfigMap", "twin", { labels: WORK, annotations: { "flotilla.dev/owner": "fleet-b/member1" } })], total: 1, byKind: {}, otherWorks: { ConfigMap: 1 } },
    { name: "another Work's custom resource of a CRD is held", objects: [obj("example.com/v1", "Widget", "a", { labels: OTHER })], total: 1, byKind: {}, otherWorks: { Widget: 1 } },
    { name: "another Work's label with flotilla.dev/managed=false is not managed", objects: [obj("v1", "ConfigMap", "x", { labels: { ...OTHER, "flotilla.dev/managed": "false" } })], total: 1, byKind: { ConfigMap: 1 } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = heldContents(c.objects, thisWorks);
      assert.deepEqual(plain(got), { unmanaged: c.byKind, otherWorks: c.otherWorks ?? {}, total: c.total });
      assert.equal(holdsAny(got), c.total > 0);
    });
  }
});

describe("keptMessage", () => {
  it("names the object and the counts, most first", () => {
    const contents = heldContents([obj("v1", "Secret", "s", {}, { type: "Opaque" }), obj("v1", "ConfigMap", "a"), obj("v1", "ConfigMap", "b")], thisWorks);
    assert.equal(keptMessage("Namespace", "shop", contents), "kept Namespace shop: it holds 3 objects Flotilla does not manage (2 ConfigMap, 1 Secret)");
  });
  it("says one object", () => {
    assert.equal(keptMessage("CustomResourceDefinition", "widgets.example.com", heldContents([obj("example.com/v1", "Widget", "a")], thisWorks)), "kept CustomResourceDefinition widgets.example.com: it holds 1 object Flotilla does not manage (1 Widget)");
  });
  it("names another Work's objects, and both kinds joined by and", () => {
    assert.equal(keptMessage("Namespace", "shop", heldContents([obj("v1", "ConfigMap", "conf", { labels: OTHER })], thisWorks)), "kept Namespace shop: it holds 1 object another Work or fleet places (1 ConfigMap)");
    const both = heldContents([obj("v1", "ConfigMap", "conf", { labels: OTHER }), obj("v1", "Secret", "s", {}, { type: "Opaque" }), obj("apps/v1", "Deployment", "d", { labels: OTHER })], thisWorks);
    assert.equal(keptMessage("Namespace", "shop", both), "kept Namespace shop: it holds 1 object Flotilla does not manage (1 Secret) and 2 objects another Work or fleet places (1 ConfigMap, 1 Deployment)");
  });
});

describe("cascades", () => {
  const cases: [string, string, boolean][] = [
    ["v1", "Namespace", true],
    ["apiextensions.k8s.io/v1", "CustomResourceDefinition", true],
    ["apps/v1", "Deployment", false],
    ["example.com/v1", "Namespace", false],
  ];
  for (const [apiVersion, kind, want] of cases) it(`${apiVersion} ${kind}: ${want}`, () => assert.equal(cascades(apiVersion, kind), want));
});
