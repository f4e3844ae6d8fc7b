import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { KubeError } from "../../shared/kube-rest.ts";
import { namespaceFailure, namespaceFailureOf, terminatingRetryMs } from "./namespaces.ts";

describe("namespaceFailure", () => {
  const cases: { name: string; status: number; message: string; want: string | undefined }[] = [
    { name: "the namespace is gone (NamespaceLifecycle 404)", status: 404, message: 'namespaces "shop" not found', want: "gone" },
    {
      name: "the namespace is being deleted (NamespaceLifecycle 403)",
      status: 403,
      message: 'configmaps "web" is forbidden: unable to create new content in namespace shop because it is being terminated',
      want: "terminating",
    },
    { name: "another namespace is gone: not this apply's", status: 404, message: 'namespaces "shop-2" not found', want: undefined },
    { name: "the kind is not served (404 of another resource)", status: 404, message: "the server could not find the requested resource", want: undefined },
    { name: "RBAC forbids the apply: not a namespace failure", status: 403, message: 'configmaps "web" is forbidden: User "agent" cannot patch resource "configmaps"', want: undefined },
    { name: "a refused object (422)", status: 422, message: 'Deployment.apps "web" is invalid: image: Required value', want: undefined },
  ];
  for (const c of cases) it(c.name, () => assert.equal(namespaceFailure({ status: c.status, message: c.message }, "shop"), c.want));

  it("reads only the apiserver's errors", () => {
    assert.equal(namespaceFailureOf(new KubeError(404, "NotFound", 'namespaces "shop" not found'), "shop"), "gone");
    assert.equal(namespaceFailureOf(new Error('namespaces "shop" not found'), "shop"), undefined);
  });
});

describe("terminatingRetryMs", () => {
  const cases: [number, number][] = [
    [0, 2_000],
    [6_000, 2_000],
    [20_000, 5_000],
    [120_000, 30_000],
    [3_600_000, 60_000],
  ];
  for (const [elapsed, wait] of cases) it(`terminating for ${elapsed} ms: try again in ${wait} ms`, () => assert.equal(terminatingRetryMs(elapsed), wait));
});
