// What a Secret template's rollout revision shows, and what its values' Secret holds.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../shared/api/types.ts";
import { holdsSecretValues, REVISION_SECRET_TYPE, revisionSecret, withoutSecretValues, withSecretValues } from "./revision-secret.ts";

const secret = {
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name: "db", namespace: "shop", labels: { app: "db" }, annotations: { note: "kept", "kubectl.kubernetes.io/last-applied-configuration": '{"data":{"password":"czNjcmV0"}}' } },
  type: "Opaque",
  data: { password: "czNjcmV0" },
  stringData: { user: "admin" },
} as unknown as KubeObject;

describe("holdsSecretValues", () => {
  for (const [what, obj, want] of [
    ["a core Secret", secret, true],
    ["a ConfigMap", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } }, false],
    ["a Secret-named kind of another group", { apiVersion: "example.io/v1", kind: "Secret", metadata: { name: "s" } }, false],
  ] as const) {
    it(what, () => assert.equal(holdsSecretValues(obj as KubeObject), want));
  }
});

describe("withoutSecretValues", () => {
  it("drops data, stringData and the last-applied annotation, and keeps the rest", () => {
    assert.deepEqual(withoutSecretValues(secret), { apiVersion: "v1", kind: "Secret", metadata: { name: "db", namespace: "shop", labels: { app: "db" }, annotations: { note: "kept" } }, type: "Opaque" });
  });
  it("leaves a template without the annotation's metadata as it is", () => {
    const plain = { apiVersion: "v1", kind: "Secret", metadata: { name: "db" }, data: { a: "Yg==" } } as unknown as KubeObject;
    assert.deepEqual(withoutSecretValues(plain), { apiVersion: "v1", kind: "Secret", metadata: { name: "db" } });
  });
});

describe("revisionSecret and withSecretValues", () => {
  const stored = { apiVersion: "v1", kind: "Secret", metadata: { name: "db", namespace: "shop" }, type: "Opaque", data: { password: "czNjcmV0", user: "YWRtaW4=" } } as unknown as KubeObject;
  it("hold the template's data key for key, in a Secret of Flotilla's type, and give the template back with the ControllerRevision's copy", () => {
    const held = revisionSecret({ name: "db-secret-r1", namespace: "shop", annotations: { a: "b" } }, stored) as KubeObject & { type: string; data: Record<string, string> };
    assert.equal(held.type, REVISION_SECRET_TYPE);
    assert.deepEqual(held.data, { password: "czNjcmV0", user: "YWRtaW4=" });
    assert.deepEqual(held.metadata, { name: "db-secret-r1", namespace: "shop", annotations: { a: "b" } });
    assert.deepEqual(withSecretValues(withoutSecretValues(stored), held), stored);
  });
  it("stringData goes in as base64 over data, as the apiserver stores it", () => {
    const held = revisionSecret({ name: "x" }, { ...stored, stringData: { user: "root" } } as KubeObject) as KubeObject & { data: Record<string, string> };
    assert.deepEqual(held.data, { password: "czNjcmV0", user: Buffer.from("root").toString("base64") });
  });
  it("a Secret without data gives the copy as it is", () => {
    const bare = { apiVersion: "v1", kind: "Secret", metadata: { name: "empty" }, type: "Opaque" } as unknown as KubeObject;
    assert.deepEqual(withSecretValues(bare, revisionSecret({ name: "x" }, bare)), bare);
  });
  it("a Secret of another type holds no revision's values", () => {
    assert.equal(withSecretValues(withoutSecretValues(stored), { ...stored, type: "Opaque" } as KubeObject), undefined);
  });
});
