import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../shared/api/types.ts";
import type { AppliedResource } from "./applied-record.ts";
import { isOurs, judgeMemberDeletion, mayRelease, type MemberFacts, needsContents } from "./deletion-judge.ts";
import { objectDrifted } from "./by-hash.ts";

const LABEL = "w1";
const OWNER = "fleet-a/member1";
const obj = (kind: string, name: string, opts: { namespace?: string; uid?: string; label?: string; managed?: string; owner?: string; apiVersion?: string; ownerUid?: string } = {}): KubeObject => ({
  apiVersion: opts.apiVersion ?? "v1",
  kind,
  metadata: {
    name,
    ...(opts.namespace ? { namespace: opts.namespace } : {}),
    ...(opts.uid ? { uid: opts.uid } : {}),
    labels: { ...(opts.label ? { "flotilla.dev/work": opts.label } : {}), ...(opts.managed ? { "flotilla.dev/managed": opts.managed } : {}) },
    ...(opts.owner ? { annotations: { "flotilla.dev/owner": opts.owner } } : {}),
    ...(opts.ownerUid ? { ownerReferences: [{ apiVersion: "apps/v1", kind: "Deployment", name: "x", uid: opts.ownerUid }] } : {}),
  },
});
const entry = (kind: string, name: string, uid?: string, namespace?: string, apiVersion = "v1"): AppliedResource => ({ apiVersion, kind, name, ...(namespace ? { namespace } : {}), ...(uid ? { uid } : {}) });

describe("isOurs", () => {
  const cases: { name: string; labels: Record<string, string> | undefined; ours: boolean }[] = [
    { name: "this Work's label", labels: { "flotilla.dev/work": "w1" }, ours: true },
    { name: "another Work's label", labels: { "flotilla.dev/work": "w2" }, ours: false },
    { name: "no label", labels: undefined, ours: false },
    { name: "this Work's label but marked managed=false", labels: { "flotilla.dev/work": "w1", "flotilla.dev/managed": "false" }, ours: false },
  ];
  for (const c of cases) it(c.name, () => assert.equal(isOurs({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", labels: c.labels } }, "w1"), c.ours));
  it("an object that is not there", () => assert.equal(isOurs(undefined, "w1"), false));
});

describe("judgeMemberDeletion", () => {
  const cm = entry("ConfigMap", "c", "u1", "shop");
  const ns = entry("Namespace", "shop", "n1");
  const cases: { name: string; facts: MemberFacts; want: string }[] = [
    { name: "the object applied (its uid): deleted, by that uid", facts: { live: obj("ConfigMap", "c", { namespace: "shop", uid: "u1", label: LABEL }), recorded: cm, label: LABEL, record: [cm] }, want: "delete u1" },
    { name: "gone: nothing to delete", facts: { live: undefined, recorded: cm, label: LABEL, record: [cm] }, want: "absent" },
    { name: "another Work's label", facts: { live: obj("ConfigMap", "c", { namespace: "shop", uid: "u1", label: "w2" }), recorded: cm, label: LABEL, record: [cm] }, want: "notOurs" },
    { name: "no label (a user took it over)", facts: { live: obj("ConfigMap", "c", { namespace: "shop", uid: "u1" }), recorded: cm, label: LABEL, record: [cm] }, want: "notOurs" },
    { name: "managed=false", facts: { live: obj("ConfigMap", "c", { namespace: "shop", uid: "u1", label: LABEL, managed: "false" }), recorded: cm, label: LABEL, record: [cm] }, want: "notOurs" },
    { name: "another fleet's owner", facts: { live: obj("ConfigMap", "c", { namespace: "shop", uid: "u1", label: LABEL, owner: "fleet-b/member1" }), recorded: cm, label: LABEL, owner: OWNER, record: [cm] }, want: "notOurs" },
    {
      name: "the same name, labels and all, but another uid (made again by a user or a restore): kept",
      facts: { live: obj("ConfigMap", "c", { namespace: "shop", uid: "u2", label: LABEL }), recorded: cm, label: LABEL, record: [cm] },
      want: "replaced",
    },
    {
      name: "a record of an older agent (no uid): the label decides, as before",
      facts: { live: obj("ConfigMap", "c", { namespace: "shop", uid: "u2", label: LABEL }), recorded: entry("ConfigMap", "c", undefined, "shop"), label: LABEL, record: [] },
      want: "delete u2",
    },
    {
      name: "a Namespace holding only what Kubernetes makes: deleted",
      facts: { live: obj("Namespace", "shop", { uid: "n1", label: LABEL }), recorded: ns, label: LABEL, record: [ns], contents: [obj("ConfigMap", "kube-root-ca.crt", { namespace: "shop", uid: "k" }), obj("ServiceAccount", "default", { namespace: "shop", uid: "s" })] },
      want: "delete n1",
    },
    {
      name: "a Namespace holding another Work's object: kept (item 1)",
      facts: { live: obj("Namespace", "shop", { uid: "n1", label: LABEL }), recorded: ns, label: LABEL, record: [ns], contents: [obj("ConfigMap", "app", { namespace: "shop", uid: "a", label: "w2" })] },
      want: "holds: kept Namespace shop: it holds 1 object another Work or fleet places (1 ConfigMap)",
    },
    {
      name: "a Namespace holding an object Flotilla does not manage: kept",
      facts: { live: obj("Namespace", "shop", { uid: "n1", label: LABEL }), recorded: ns, label: LABEL, record: [ns], contents: [obj("PersistentVolumeClaim", "data", { namespace: "shop", uid: "p" })] },
      want: "holds: kept Namespace shop: it holds 1 object Flotilla does not manage (1 PersistentVolumeClaim)",
    },
    {
      name: "a Namespace holding a user's copy that carries this Work's labels under another name: kept (the record does not name it)",
      facts: { live: obj("Namespace", "shop", { uid: "n1", label: LABEL }), recorded: ns, label: LABEL, record: [ns], contents: [obj("ConfigMap", "copy", { namespace: "shop", uid: "c2", label: LABEL })] },
      want: "holds: kept Namespace shop: it holds 1 object another Work or fleet places (1 ConfigMap)",
    },
    {
      name: "a Namespace holding an object the record names, at another uid: kept",
      facts: { live: obj("Namespace", "shop", { uid: "n1", label: LABEL }), recorded: ns, label: LABEL, record: [ns, cm], contents: [obj("ConfigMap", "c", { namespace: "shop", uid: "u9", label: LABEL })] },
      want: "holds: kept Namespace shop: it holds 1 object another Work or fleet places (1 ConfigMap)",
    },
    {
      name: "a Namespace holding this Work's own recorded object and its dependents: deleted with them",
      facts: {
        live: obj("Namespace", "shop", { uid: "n1", label: LABEL }),
        recorded: ns,
        label: LABEL,
        record: [ns, entry("Deployment", "web", "d1", "shop", "apps/v1")],
        contents: [obj("Deployment", "web", { namespace: "shop", uid: "d1", label: LABEL, apiVersion: "apps/v1" }), obj("ReplicaSet", "web-1", { namespace: "shop", uid: "r1", apiVersion: "apps/v1", ownerUid: "d1" })],
      },
      want: "delete n1",
    },
    {
      name: "an object another Work of this agent applied too (a selector moved to another version of a CRD): kept for it",
      facts: { live: obj("ConfigMap", "c", { namespace: "shop", uid: "u1", label: LABEL }), recorded: cm, label: LABEL, record: [cm], sharedWith: "core/v1/ConfigMap/shop/c" },
      want: "shared",
    },
    {
      // work-runner.ts prunes with only the pruned entries as the record: what the new version still applies holds its Namespace.
      name: "a Namespace a new version prunes while it still applies an object inside: kept (only what is pruned with it is its own)",
      facts: { live: obj("Namespace", "shop", { uid: "n1", label: LABEL }), recorded: ns, label: LABEL, record: [ns], contents: [obj("ConfigMap", "c", { namespace: "shop", uid: "u1", label: LABEL })] },
      want: "holds: kept Namespace shop: it holds 1 object another Work or fleet places (1 ConfigMap)",
    },
    {
      name: "a replaced Namespace is never looked into: kept as not the one applied",
      facts: { live: obj("Namespace", "shop", { uid: "n2", label: LABEL }), recorded: ns, label: LABEL, record: [ns], contents: [] },
      want: "replaced",
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const v = judgeMemberDeletion(c.facts);
      assert.equal(v.delete ? `delete ${v.uid}` : v.keep === "holds" ? `holds: ${v.message}` : v.keep, c.want);
    });
  }
});

describe("needsContents, mayRelease and objectDrifted", () => {
  const ns = entry("Namespace", "shop", "n1");
  const crd = entry("CustomResourceDefinition", "widgets.example.com", "c1", undefined, "apiextensions.k8s.io/v1");
  const cm = entry("ConfigMap", "c", "u1", "shop");
  const cases: { name: string; live: KubeObject | undefined; recorded: AppliedResource; contents: boolean; release: boolean; drifted: boolean }[] = [
    { name: "the Namespace applied: its contents are listed", live: obj("Namespace", "shop", { uid: "n1", label: LABEL }), recorded: ns, contents: true, release: true, drifted: false },
    { name: "the CRD applied: its contents are listed", live: obj("CustomResourceDefinition", "widgets.example.com", { uid: "c1", label: LABEL, apiVersion: "apiextensions.k8s.io/v1" }), recorded: crd, contents: true, release: true, drifted: false },
    { name: "a ConfigMap holds nothing: no listing", live: obj("ConfigMap", "c", { namespace: "shop", uid: "u1", label: LABEL }), recorded: cm, contents: false, release: true, drifted: false },
    { name: "a Namespace made again (another uid): no listing, released, drifted", live: obj("Namespace", "shop", { uid: "n2", label: LABEL }), recorded: ns, contents: false, release: true, drifted: true },
    { name: "a Namespace another Work labels: nothing", live: obj("Namespace", "shop", { uid: "n1", label: "w2" }), recorded: ns, contents: false, release: false, drifted: true },
    { name: "another fleet's owner: nothing", live: obj("Namespace", "shop", { uid: "n1", label: LABEL, owner: "fleet-b/member1" }), recorded: ns, contents: false, release: false, drifted: true },
    { name: "gone: nothing, drifted", live: undefined, recorded: ns, contents: false, release: false, drifted: true },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(needsContents(c.live, c.recorded, LABEL, OWNER), c.contents);
      assert.equal(mayRelease(c.live, LABEL, OWNER), c.release);
      assert.equal(objectDrifted(c.recorded, c.live, LABEL, OWNER), c.drifted);
    });
  }
});
