import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { dashboardAccess, type DashboardRequest } from "./dashboard-access.ts";
import { dashboardTokenKey, signToken, UsedLogins, verifyToken } from "./dashboard-tokens.ts";

const viewer = { user: "vera", role: "viewer" as const, fingerprint256: "AA:BB", serialNumber: "01" };
const adminCert = { subject: { CN: "ada", O: "flotilla:admins" }, fingerprint256: "CC:DD", serialNumber: "02" };
const agentCert = { subject: { CN: "member1", O: "flotilla:agents" }, fingerprint256: "EE", serialNumber: "03" };
const clean = () => ({});

describe("dashboardAccess", () => {
  const cases: { name: string; req: Omit<DashboardRequest, "revocation"> & { revocation?: DashboardRequest["revocation"] }; want: number | "allowed"; via?: string; role?: string }[] = [
    { name: "the page is public", req: { method: "GET", path: "/" }, want: "allowed" },
    { name: "assets are public", req: { method: "GET", path: "/assets/app.js" }, want: "allowed" },
    { name: "an API read needs an identity", req: { method: "GET", path: "/api/overview" }, want: 401 },
    { name: "an admin certificate reads", req: { method: "GET", path: "/api/overview", cert: adminCert }, want: "allowed", via: "certificate", role: "admin" },
    { name: "an agent certificate is no identity", req: { method: "GET", path: "/api/overview", cert: agentCert }, want: 401 },
    { name: "a viewer session reads", req: { method: "GET", path: "/api/events", session: { ok: true, identity: viewer, exp: 1, nonce: "n" } }, want: "allowed", via: "session", role: "viewer" },
    { name: "a bad session is refused", req: { method: "GET", path: "/api/overview", session: { ok: false, reason: "expired" } }, want: 401 },
    { name: "POST is refused even for an admin", req: { method: "POST", path: "/api/overview", cert: adminCert }, want: 405 },
    { name: "DELETE on the page is refused", req: { method: "DELETE", path: "/" }, want: 405 },
    { name: "PUT is refused for a viewer session", req: { method: "PUT", path: "/api/clusters", session: { ok: true, identity: viewer, exp: 1, nonce: "n" } }, want: 405 },
    { name: "a revoked certificate's session is refused", req: { method: "GET", path: "/api/overview", session: { ok: true, identity: viewer, exp: 1, nonce: "n" }, revocation: (w) => (w.fingerprint256 === "AA:BB" ? { revokedBy: "fingerprint AABB" } : {}) }, want: 403 },
    { name: "a broken revocation list refuses all", req: { method: "GET", path: "/api/overview", cert: adminCert, revocation: () => ({ listBroken: "line 3" }) }, want: 403 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = dashboardAccess({ ...c.req, revocation: c.req.revocation ?? clean });
      if (c.want === "allowed") {
        assert.equal(got.allowed, true, JSON.stringify(got));
        if (got.allowed && c.via !== undefined) {
          assert.equal(got.via, c.via);
          assert.equal(got.identity?.role, c.role);
        }
      } else {
        assert.equal(got.allowed, false);
        if (!got.allowed) {
          assert.equal(got.status, c.want);
          assert.ok(got.reason.length > 10);
        }
      }
    });
  }
});

describe("dashboard tokens", () => {
  const key = dashboardTokenKey("-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----\n");
  it("a token verifies with its key, for its use, until it expires", () => {
    const t = signToken(key, viewer, "login", 1_000, 60_000, "n1");
    assert.deepEqual(verifyToken(key, t, "login", 2_000), { ok: true, identity: viewer, exp: 61_000, nonce: "n1" });
    assert.deepEqual(verifyToken(key, t, "session", 2_000), { ok: false, reason: "not a session token" });
    assert.deepEqual(verifyToken(key, t, "login", 61_000), { ok: false, reason: "expired" });
  });
  it("another key, a changed body or garbage is refused", () => {
    const t = signToken(key, viewer, "session", 0, 60_000);
    const other = dashboardTokenKey("another key");
    assert.deepEqual(verifyToken(other, t, "session", 1), { ok: false, reason: "bad signature" });
    const [body, sig] = t.split(".") as [string, string];
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body, "base64url").toString()), role: "admin" })).toString("base64url");
    assert.deepEqual(verifyToken(key, `${forged}.${sig}`, "session", 1), { ok: false, reason: "bad signature" });
    for (const junk of ["", ".", "a.b.c", "x"]) assert.equal(verifyToken(key, junk, "session", 1).ok, false, junk);
  });
  it("a login is taken once, and forgotten once expired", () => {
    const used = new UsedLogins();
    assert.equal(used.take("n", 100, 0), true);
    assert.equal(used.take("n", 100, 50), false);
    assert.equal(used.take("m", 100, 50), true);
    assert.equal(used.take("n", 300, 200), true);
  });
});
