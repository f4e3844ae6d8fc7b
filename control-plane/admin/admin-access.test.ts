import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ADMIN_ORGANIZATION, AGENT_ORGANIZATION, VIEWER_ORGANIZATION } from "../../shared/pki.ts";
import { type AccessRequest, type AdminMethod, adminAccess, type KindRef } from "./admin-access.ts";

const admin = { CN: "alice", O: ADMIN_ORGANIZATION };
const viewer = { CN: "vera", O: VIEWER_ORGANIZATION };
const agent = { CN: "member1", O: AGENT_ORGANIZATION };
const ok = {};
const configMap: KindRef = { apiVersion: "v1", kind: "ConfigMap", namespace: "adm", name: "pre" };
const secret: KindRef = { apiVersion: "v1", kind: "Secret", namespace: "adm", name: "creds" };
const deployment: KindRef = { apiVersion: "apps/v1", kind: "Deployment", namespace: "adm", name: "web" };
/** A custom kind that happens to be called Secret is not the core Secret. */
const otherSecret: KindRef = { apiVersion: "example.com/v1", kind: "Secret", name: "x" };

const READS: AdminMethod[] = ["listClusters", "getPropagation", "render", "diff", "plan", "listWorks", "listBindings", "rolloutStatus", "explain"];
const WRITES: AdminMethod[] = ["createToken", "listTokens", "deleteToken", "unjoin", "rollout"];

describe("adminAccess", () => {
  const cases: { name: string; req: AccessRequest; want: { role: string } | RegExp }[] = [
    ...[...READS, ...WRITES].map((method) => ({ name: `an admin may call ${method}`, req: { subject: admin, method, revocation: ok }, want: { role: "admin" } })),
    ...READS.map((method) => ({ name: `a viewer may call ${method}`, req: { subject: viewer, method, revocation: ok }, want: { role: "viewer" } })),
    ...WRITES.map((method) => ({ name: `a viewer may not call ${method}`, req: { subject: viewer, method, revocation: ok }, want: new RegExp(`vera has a viewer certificate \\(O=flotilla:viewers\\), which may not call ${method}: bootstrap tokens, unjoin and rollout commands need an admin certificate`) })),
    { name: "a viewer renders a ConfigMap", req: { subject: viewer, method: "render", objects: [configMap], revocation: ok }, want: { role: "viewer" } },
    { name: "a viewer plans a Deployment and a ConfigMap", req: { subject: viewer, method: "plan", objects: [deployment, configMap], revocation: ok }, want: { role: "viewer" } },
    { name: "a viewer renders another group's kind named Secret", req: { subject: viewer, method: "render", objects: [otherSecret], revocation: ok }, want: { role: "viewer" } },
    { name: "a viewer may not render a Secret", req: { subject: viewer, method: "render", objects: [secret], revocation: ok }, want: /vera has a viewer certificate .*which may not render a Secret \(Secret adm\/creds\): Secrets need an admin certificate/ },
    { name: "a viewer may not diff a Secret", req: { subject: viewer, method: "diff", objects: [secret], revocation: ok }, want: /may not diff a Secret/ },
    { name: "a viewer may not plan input holding a Secret", req: { subject: viewer, method: "plan", objects: [deployment, secret], revocation: ok }, want: /may not plan a Secret \(Secret adm\/creds\)/ },
    { name: "an admin renders, diffs and plans Secrets", req: { subject: admin, method: "plan", objects: [secret], revocation: ok }, want: { role: "admin" } },
    { name: "an agent's certificate is no admin's", req: { subject: agent, method: "listClusters", revocation: ok }, want: /the Admin API needs an admin client certificate \(O=flotilla:admins, or O=flotilla:viewers to read/ },
    { name: "no certificate", req: { subject: undefined, method: "listClusters", revocation: ok }, want: /needs an admin client certificate/ },
    { name: "a revoked admin", req: { subject: admin, method: "listClusters", revocation: { revokedBy: "serial number 1A" } }, want: /^certificate revoked: admin alice's certificate is in the admin revocation list \(serial number 1A\)$/ },
    { name: "a revoked viewer", req: { subject: viewer, method: "listClusters", revocation: { revokedBy: "SHA-256 fingerprint AB" } }, want: /^certificate revoked: viewer vera's/ },
    { name: "an unreadable list refuses admins too", req: { subject: admin, method: "listClusters", revocation: { listBroken: "/etc/list line 3: not hex" } }, want: /refuses every certificate until the admin revocation list can be read: \/etc\/list line 3: not hex/ },
    { name: "an agent hears it is no admin before anything about the list", req: { subject: agent, method: "listClusters", revocation: { listBroken: "x" } }, want: /needs an admin client certificate/ },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = adminAccess(c.req);
      if (c.want instanceof RegExp) {
        assert.equal(got.allowed, false);
        assert.match(got.allowed ? "" : got.reason, c.want);
      } else {
        assert.deepEqual(got, { allowed: true, user: c.req.subject?.CN, role: c.want.role });
      }
    });
  }
});
