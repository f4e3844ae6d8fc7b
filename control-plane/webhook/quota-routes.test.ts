import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { storedTemplatePath } from "./quota-routes.ts";

describe("storedTemplatePath: the template a scale review names, as an apiserver path", () => {
  const req = (resource: unknown, namespace: unknown = "shop", name: unknown = "web") => ({ resource, namespace, name }) as Parameters<typeof storedTemplatePath>[0];
  const deployments = { group: "apps", version: "v1", resource: "deployments" };
  const cases: { name: string; req: Parameters<typeof storedTemplatePath>[0]; want: string | undefined }[] = [
    { name: "a Deployment", req: req(deployments), want: "/apis/apps/v1/namespaces/shop/deployments/web" },
    { name: "the core group", req: req({ group: "", version: "v1", resource: "replicationcontrollers" }), want: "/api/v1/namespaces/shop/replicationcontrollers/web" },
    { name: "a CRD's group", req: req({ group: "workloads.example.com", version: "v1beta1", resource: "gizmos" }), want: "/apis/workloads.example.com/v1beta1/namespaces/shop/gizmos/web" },
    { name: "a name and namespace with path characters are encoded", req: req(deployments, "a/../b", "x?y#z"), want: "/apis/apps/v1/namespaces/a%2F..%2Fb/deployments/x%3Fy%23z" },
    // Issue 37: the review's body is input; its group, version and resource were put in the path as they came.
    { name: "a group that climbs out of the path: none", req: req({ group: "../../api/v1/secrets", version: "v1", resource: "x" }), want: undefined },
    { name: "a resource with a slash: none", req: req({ ...deployments, resource: "deployments/../../secrets" }), want: undefined },
    { name: "a version with a query: none", req: req({ ...deployments, version: "v1?watch=1" }), want: undefined },
    { name: "an upper-case group: none", req: req({ ...deployments, group: "Apps" }), want: undefined },
    { name: "a group with an empty label: none", req: req({ ...deployments, group: "apps..example.com" }), want: undefined },
    { name: "a group label that ends in a dash: none", req: req({ ...deployments, group: "apps-.example.com" }), want: undefined },
    { name: "a group too long to be one: none", req: req({ ...deployments, group: `${"a".repeat(250)}.com` }), want: undefined },
    { name: "fields that are not strings: none", req: req({ group: 1, version: ["v1"], resource: null }), want: undefined },
    { name: "no resource: none", req: req(undefined), want: undefined },
    { name: "a namespace that is not a string: none", req: req(deployments, { a: 1 }), want: undefined },
  ];
  for (const c of cases) it(c.name, () => assert.equal(storedTemplatePath(c.req), c.want));

  it("answers a long hostile group at once (the length is checked before the pattern)", () => {
    const started = process.hrtime.bigint();
    assert.equal(storedTemplatePath(req({ ...deployments, group: `${"a-".repeat(50_000)}!` })), undefined);
    assert.ok(process.hrtime.bigint() - started < 1_000_000_000n);
  });
});
