import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { impersonatedUser, isWriteRequest, passHeaders, REQUEST_HEADERS, requestTarget, touchesSecrets, validPath, viewerRefusal } from "./member-api.ts";

describe("requestTarget", () => {
  const cases: { path: string; want: { group: string; resource: string; subresource: string } }[] = [
    { path: "/api/v1/pods", want: { group: "", resource: "pods", subresource: "" } },
    { path: "/api/v1/namespaces/ns/pods/p/log?follow=true", want: { group: "", resource: "pods", subresource: "log" } },
    { path: "/api/v1/namespaces/ns/secrets", want: { group: "", resource: "secrets", subresource: "" } },
    { path: "/api/v1/watch/namespaces/ns/secrets", want: { group: "", resource: "secrets", subresource: "" } },
    { path: "/api/v1/namespaces/secrets", want: { group: "", resource: "namespaces", subresource: "" } },
    { path: "/api/v1/namespaces/ns/finalize", want: { group: "", resource: "namespaces", subresource: "finalize" } },
    { path: "/api/v1/namespaces/ns", want: { group: "", resource: "namespaces", subresource: "" } },
    { path: "/apis/apps/v1/namespaces/ns/deployments/web/scale", want: { group: "apps", resource: "deployments", subresource: "scale" } },
    { path: "/api/v1/nodes/n1/proxy/metrics", want: { group: "", resource: "nodes", subresource: "proxy" } },
    { path: "/api", want: { group: "", resource: "", subresource: "" } },
    { path: "/openapi/v3", want: { group: "", resource: "", subresource: "" } },
  ];
  for (const c of cases) it(c.path, () => assert.deepEqual(requestTarget(c.path), c.want));
});

describe("isWriteRequest and the viewer's refusals", () => {
  const cases: { name: string; method: string; path: string; headers?: Record<string, string>; write: boolean; secrets: boolean }[] = [
    { name: "a list", method: "GET", path: "/api/v1/pods", write: false, secrets: false },
    { name: "a watch", method: "GET", path: "/api/v1/pods?watch=1", write: false, secrets: false },
    { name: "HEAD", method: "HEAD", path: "/api", write: false, secrets: false },
    { name: "logs", method: "GET", path: "/api/v1/namespaces/ns/pods/p/log", write: false, secrets: false },
    { name: "a delete", method: "DELETE", path: "/api/v1/namespaces/ns/pods/p", write: true, secrets: false },
    { name: "a patch", method: "PATCH", path: "/apis/apps/v1/namespaces/ns/deployments/web/scale", write: true, secrets: false },
    { name: "exec by GET (websocket)", method: "GET", path: "/api/v1/namespaces/ns/pods/p/exec?command=sh", write: true, secrets: false },
    { name: "any upgrade", method: "GET", path: "/api/v1/pods", headers: { upgrade: "websocket" }, write: true, secrets: false },
    { name: "port-forward", method: "POST", path: "/api/v1/namespaces/ns/pods/p/portforward", write: true, secrets: false },
    { name: "a service proxy GET", method: "GET", path: "/api/v1/namespaces/ns/services/s/proxy/admin", write: true, secrets: false },
    { name: "a Secret read", method: "GET", path: "/api/v1/namespaces/ns/secrets/creds", write: false, secrets: true },
    { name: "every Secret, watched the old way", method: "GET", path: "/api/v1/watch/secrets", write: false, secrets: true },
    { name: "a namespace named secrets", method: "GET", path: "/api/v1/namespaces/secrets/pods", write: false, secrets: false },
    { name: "a CRD named secrets in another group", method: "GET", path: "/apis/example.com/v1/secrets", write: false, secrets: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(isWriteRequest(c.method, c.path, c.headers), c.write);
      assert.equal(touchesSecrets(c.path), c.secrets);
      assert.equal(viewerRefusal(c.method, c.path, c.headers ?? {}) !== undefined, c.write || c.secrets);
    });
  }
});

describe("validPath", () => {
  const cases: [string, boolean][] = [
    ["/", true],
    ["/api", true],
    ["/apis/", true],
    ["/api/v1/pods?labelSelector=app%3Dweb&watch=1", true],
    ["api", false],
    ["/api/../secrets", false],
    ["/api/./v1", false],
    ["/api//v1", false],
    ["/api/v1/namespaces/%2e%2e/secrets", false],
    ["/api/v1/namespaces/x/%73ecrets", false],
    ["/api/v1/pods\r\nImpersonate-User: system:admin", false],
    ["/api/v1/pods name", false],
    ["/api/v1/p\u00e9ds", false],
    [`/${"a".repeat(9000)}`, false],
  ];
  for (const [path, ok] of cases) it(JSON.stringify(path.slice(0, 60)), () => assert.equal(validPath(path), ok));
});

describe("passHeaders and the identity", () => {
  it("keeps only the allowed headers, lower-cased, repeated values joined", () => {
    const got = passHeaders({ Accept: "application/json", authorization: "Bearer x", "Impersonate-User": "system:admin", "impersonate-group": ["system:masters"], cookie: "a=b", "User-Agent": "kubectl", warning: ["a", "b"] }, REQUEST_HEADERS);
    assert.deepEqual(got, { accept: "application/json", "user-agent": "kubectl" });
    assert.deepEqual(passHeaders({ warning: ["299 - a", "299 - b"] }, ["warning"]), { warning: "299 - a, 299 - b" });
  });
  it("names the caller flotilla:<role>:<user>", () => {
    assert.equal(impersonatedUser("viewer", "vera"), "flotilla:viewer:vera");
    assert.equal(impersonatedUser("admin", "alice@example.com"), "flotilla:admin:alice@example.com");
  });
});
