import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseWorkKey, templateKey, templateKeyOfBinding, workKey, WorkKeyError, workKeyLabelValue } from "./work-key.ts";
import type { WorkRef } from "./work-key.ts";

describe("workKey and parseWorkKey", () => {
  const cases: { name: string; ref: WorkRef; key: string }[] = [
    { name: "namespaced object in a named group", ref: { apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name: "web" }, key: "apps/v1/Deployment/default/web" },
    { name: "cluster-scoped core object", ref: { apiVersion: "v1", kind: "Namespace", name: "team-a" }, key: "core/v1/Namespace/-/team-a" },
    { name: "namespaced core object", ref: { apiVersion: "v1", kind: "ConfigMap", namespace: "kube-public", name: "info" }, key: "core/v1/ConfigMap/kube-public/info" },
    {
      name: "cluster-scoped object with dots and colons in its name",
      ref: { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", name: "system:aggregate-to-view.x" },
      key: "rbac.authorization.k8s.io/v1/ClusterRole/-/system:aggregate-to-view.x",
    },
    { name: "custom resource", ref: { apiVersion: "example.com/v1beta1", kind: "Widget", namespace: "ns", name: "w" }, key: "example.com/v1beta1/Widget/ns/w" },
  ];
  for (const c of cases) {
    it(`${c.name}: key`, () => assert.equal(workKey(c.ref), c.key));
    it(`${c.name}: parses back`, () => assert.deepEqual(parseWorkKey(c.key), c.ref));
  }

  it("treats an empty namespace as cluster scope", () => {
    assert.equal(workKey({ apiVersion: "v1", kind: "Namespace", namespace: "", name: "a" }), "core/v1/Namespace/-/a");
  });

  const badKeys: { name: string; key: string }[] = [
    { name: "empty string", key: "" },
    { name: "too few parts", key: "apps/v1/Deployment/web" },
    { name: "too many parts (a name with a slash)", key: "apps/v1/Deployment/default/web/x" },
    { name: "an empty group", key: "/v1/Deployment/default/web" },
    { name: "an empty version", key: "apps//Deployment/default/web" },
    { name: "an empty kind", key: "apps/v1//default/web" },
    { name: "an empty namespace", key: "apps/v1/Deployment//web" },
    { name: "an empty name", key: "apps/v1/Deployment/default/" },
  ];
  for (const c of badKeys) {
    it(`parseWorkKey refuses ${c.name}`, () => assert.throws(() => parseWorkKey(c.key), WorkKeyError));
  }

  const badRefs: { name: string; ref: WorkRef }[] = [
    { name: "an apiVersion with two slashes", ref: { apiVersion: "a/b/v1", kind: "K", name: "n" } },
    { name: "an empty apiVersion", ref: { apiVersion: "", kind: "K", name: "n" } },
    { name: "a group literally named core", ref: { apiVersion: "core/v1", kind: "K", name: "n" } },
    { name: 'namespace "-"', ref: { apiVersion: "v1", kind: "ConfigMap", namespace: "-", name: "n" } },
    { name: "a name with a slash", ref: { apiVersion: "v1", kind: "ConfigMap", namespace: "d", name: "a/b" } },
    { name: "an empty kind", ref: { apiVersion: "v1", kind: "", name: "n" } },
    { name: "an empty name", ref: { apiVersion: "v1", kind: "ConfigMap", namespace: "d", name: "" } },
  ];
  for (const c of badRefs) {
    it(`workKey refuses ${c.name}`, () => assert.throws(() => workKey(c.ref), WorkKeyError));
  }

  it("names the malformed key in the error", () => {
    assert.throws(() => parseWorkKey("apps/v1/web"), (err: unknown) => {
      assert.ok(err instanceof WorkKeyError);
      assert.equal(err.name, "WorkKeyError");
      assert.equal(err.input, '"apps/v1/web"');
      assert.match(err.message, /apps\/v1\/web/);
      return true;
    });
  });
});

describe("workKeyLabelValue", () => {
  const labelValue = /^[0-9a-f]{40}$/;
  const cases: { name: string; key: string; want?: string }[] = [
    { name: "is the head of the key's sha256", key: "core/v1/Namespace/-/team-a", want: "82794ef48eeff40cdb86773aa680706459da0012" },
    { name: "is label-safe for a long key", key: `apps/v1/Deployment/${"n".repeat(63)}/${"x".repeat(253)}` },
    { name: "is label-safe for a key with colons", key: "rbac.authorization.k8s.io/v1/ClusterRole/-/system:view" },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = workKeyLabelValue(c.key);
      assert.match(got, labelValue);
      if (c.want !== undefined) assert.equal(got, c.want);
    });
  }

  it("differs for different keys and is stable for the same key", () => {
    const a = "apps/v1/Deployment/default/web";
    assert.equal(workKeyLabelValue(a), workKeyLabelValue(a));
    assert.notEqual(workKeyLabelValue(a), workKeyLabelValue("apps/v1/Deployment/default/api"));
  });
});

describe("templateKey and templateKeyOfBinding", () => {
  it("a template and the binding that refers to it share one key", () => {
    const template = { apiVersion: "apps/v1", kind: "Deployment", metadata: { namespace: "default", name: "web" } };
    const binding = { apiVersion: "flotilla.dev/v1alpha1", kind: "ResourceBinding", metadata: { name: "web-deployment" }, spec: { resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name: "web" } } };
    assert.equal(templateKey(template), "apps/v1/Deployment/default/web");
    assert.equal(templateKeyOfBinding(binding as never), templateKey(template));
  });
  it("a cluster-scoped template has no namespace in its key", () => {
    assert.equal(templateKey({ apiVersion: "v1", kind: "Namespace", metadata: { name: "team-a" } }), "core/v1/Namespace/-/team-a");
  });
});
