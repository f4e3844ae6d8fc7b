import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { MemberApiRequest } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { memberCall, upgradeAnswer } from "./member-request.ts";

const req = (o: Partial<MemberApiRequest>): MemberApiRequest => ({ streamId: 1, method: "GET", path: "/api/v1/pods", headers: {}, body: Buffer.alloc(0), user: "alice", role: "admin", window: 1024, upgrade: false, ...o });

describe("memberCall", () => {
  it("impersonates the caller in its role's group, whatever identity headers the hub sends", () => {
    const got = memberCall(req({ headers: { accept: "application/json", authorization: "Bearer hub", "impersonate-user": "system:admin", "impersonate-group": "system:masters", "impersonate-extra-scopes": "x" } }), false, "m1");
    assert.deepEqual(got, { method: "GET", path: "/api/v1/pods", headers: { accept: "application/json", "impersonate-user": "flotilla:admin:alice", "impersonate-group": "flotilla:admins" } });
    const viewer = memberCall(req({ role: "viewer", user: "vera" }), false, "m1");
    assert.ok(!("status" in viewer));
    assert.equal(viewer.headers["impersonate-user"], "flotilla:viewer:vera");
    assert.equal(viewer.headers["impersonate-group"], "flotilla:viewers");
  });

  const refusals: { name: string; r: Partial<MemberApiRequest>; allowWrites: boolean; status: number; message: RegExp }[] = [
    { name: "an admin's delete while writes are off", r: { method: "DELETE", path: "/api/v1/namespaces/ns/pods/p" }, allowWrites: false, status: 403, message: /are off in m1: its agent runs without --member-api-writes/ },
    { name: "an admin's exec while writes are off", r: { path: "/api/v1/namespaces/ns/pods/p/exec?command=sh" }, allowWrites: false, status: 403, message: /are off in m1/ },
    { name: "a viewer's delete with writes on", r: { role: "viewer", method: "DELETE", path: "/api/v1/namespaces/ns/pods/p" }, allowWrites: true, status: 403, message: /only reads/ },
    { name: "a viewer's Secret read", r: { role: "viewer", path: "/api/v1/namespaces/ns/secrets/s" }, allowWrites: true, status: 403, message: /may not read Secrets/ },
    { name: "an unknown role", r: { role: "root" }, allowWrites: true, status: 403, message: /unknown role/ },
    { name: "an empty user", r: { user: "" }, allowWrites: true, status: 403, message: /printable ASCII/ },
    { name: "a user with a newline", r: { user: "alice\r\nImpersonate-Group: system:masters" }, allowWrites: true, status: 403, message: /printable ASCII/ },
    { name: "CONNECT", r: { method: "CONNECT" }, allowWrites: true, status: 405, message: /does not carry/ },
    { name: "a traversal", r: { path: "/api/../../etc" }, allowWrites: true, status: 400, message: /no \. or \.\. segment/ },
  ];
  for (const c of refusals) {
    it(`refuses ${c.name}`, () => {
      const got = memberCall(req(c.r), c.allowWrites, "m1");
      assert.ok("status" in got, JSON.stringify(got));
      assert.equal(got.status, c.status);
      assert.match(got.message, c.message);
    });
  }

  it("an upgrade is a write, passes its upgrade headers only as an upgrade, and drops a header value that would end its line", () => {
    const headers = { connection: "Upgrade", upgrade: "websocket", "sec-websocket-protocol": "v5.channel.k8s.io", accept: "x\r\nImpersonate-User: system:admin" };
    const off = memberCall(req({ path: "/api/v1/namespaces/ns/pods/p/attach", upgrade: true, headers }), false, "m1");
    assert.ok("status" in off && off.status === 403);
    const on = memberCall(req({ path: "/api/v1/namespaces/ns/pods/p/attach", upgrade: true, headers }), true, "m1");
    assert.ok(!("status" in on));
    assert.deepEqual(on.headers, { connection: "Upgrade", upgrade: "websocket", "sec-websocket-protocol": "v5.channel.k8s.io", "impersonate-user": "flotilla:admin:alice", "impersonate-group": "flotilla:admins" });
    const plain = memberCall(req({ headers }), true, "m1");
    assert.ok(!("status" in plain));
    assert.equal(plain.headers.upgrade, undefined);
    const viewer = memberCall(req({ role: "viewer", upgrade: true, path: "/api/v1/pods" }), true, "m1");
    assert.ok("status" in viewer && viewer.status === 403);
  });

  it("lets an admin write when the agent allows writes", () => {
    const got = memberCall(req({ method: "patch", path: "/apis/apps/v1/namespaces/ns/deployments/web/scale", headers: { "content-type": "application/merge-patch+json" } }), true, "m1");
    assert.ok(!("status" in got));
    assert.equal(got.method, "PATCH");
    assert.equal(got.headers["content-type"], "application/merge-patch+json");
  });
});

describe("upgradeAnswer", () => {
  const cases: [string, { status: number; switched: boolean } | undefined][] = [
    ["HTTP/1.1 101 Switching Protocols\r\nUpgrade: SPDY/3.1\r\n\r\n", { status: 101, switched: true }],
    ["HTTP/1.1 101 Switching Protocols\r\nUpgr", undefined],
    ["HTTP/1.1 400 Bad Request\r\ncontent-length: 2\r\n\r\n{}", { status: 400, switched: false }],
    ["HTTP/1.1 403 Forbidden\r\n\r\n", { status: 403, switched: false }],
    ["garbage\r\n\r\n", { status: 502, switched: false }],
    [`HTTP/1.1 101 Switching Protocols\r\n${"x".repeat(20_000)}`, { status: 101, switched: false }],
  ];
  for (const [text, want] of cases) it(JSON.stringify(text.slice(0, 40)), () => assert.deepEqual(upgradeAnswer(Buffer.from(text)), want));
});
