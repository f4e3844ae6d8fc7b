// The member API client against an HTTPS server of its own: the path under /clusters/<name>, the
// TLS name checked, the caller's certificate presented, Status errors, and a log streamed in
// chunks read back as whole prefixed lines.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import { after, before, describe, it } from "node:test";
import { createCa, issueAdminCertificate, issueCertificate } from "../../shared/pki.ts";
import { MemberApi } from "./member-api.ts";
import { readLog } from "./member-logs.ts";

describe("the member API client", () => {
  let server: Server;
  let url: string;
  let api: MemberApi;
  const seen: { path: string; accept: string; user: string }[] = [];

  before(async () => {
    const ca = await createCa("test-ca");
    const serving = await issueCertificate(ca, { commonName: "control-plane", dnsNames: ["localhost"], usage: "server" });
    const caller = await issueAdminCertificate(ca, "alice");
    server = createServer({ cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: true }, (req, res) => {
      const subject = (req.socket as TLSSocket).getPeerCertificate().subject;
      seen.push({ path: req.url ?? "", accept: req.headers.accept ?? "", user: String(subject?.CN ?? "") });
      if (req.url === "/clusters/member1/api/v1/namespaces/demo/pods") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ kind: "PodList", items: [] }));
      } else if (req.url?.startsWith("/clusters/member1/api/v1/namespaces/demo/pods/web-1/log")) {
        res.writeHead(200, { "content-type": "text/plain" });
        res.write("first li");
        setTimeout(() => res.end("ne\nsecond line\nno newline"), 20);
      } else if (req.url?.startsWith("/clusters/member2/")) {
        res.writeHead(503, { "content-type": "application/json" });
        res.end(JSON.stringify({ kind: "Status", code: 503, reason: "ServiceUnavailable", message: "the agent of member2 is not connected" }));
      } else {
        res.writeHead(403, { "content-type": "application/json" });
        res.end(JSON.stringify({ kind: "Status", code: 403, reason: "Forbidden", message: 'secrets is forbidden: User "flotilla:admin:alice" cannot list resource "secrets"' }));
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    api = new MemberApi(url, { server: "unused", serverName: "localhost", ca: Buffer.from(ca.certPem), cert: Buffer.from(caller.certPem), key: Buffer.from(caller.keyPem) }, 5000);
  });
  after(() => {
    api.close();
    server.close();
  });

  it("reads a member's path as the caller, checking the control plane's name, with the Accept asked", async () => {
    assert.deepEqual(await api.get(cluster1, "/api/v1/namespaces/demo/pods", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"), { kind: "PodList", items: [] });
    assert.deepEqual(seen.at(-1), { path: "/clusters/member1/api/v1/namespaces/demo/pods", accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json", user: "alice" });
  });

  it("rejects with the Status message of the member's or the control plane's refusal", async () => {
    await assert.rejects(api.get(cluster1, "/api/v1/secrets"), { status: 403, message: 'secrets is forbidden: User "flotilla:admin:alice" cannot list resource "secrets"' });
    await assert.rejects(api.get("member2", "/api"), { status: 503, message: "the agent of member2 is not connected" });
  });

  it("refuses a control plane whose certificate does not name the TLS name in effect", async () => {
    const caller = await issueAdminCertificate(await createCa("other"), "mallory");
    const wrong = new MemberApi(url, { server: "unused", serverName: "elsewhere.example", ca: Buffer.from(caller.certPem), cert: Buffer.from(caller.certPem), key: Buffer.from(caller.keyPem) }, 5000);
    try {
      await assert.rejects(wrong.get(cluster1, "/api"));
    } finally {
      wrong.close();
    }
  });

  it("streams a log in chunks as whole lines, each prefixed with its cluster, pod and container", async () => {
    let out = "";
    await readLog(api, "demo", { cluster: cluster1, pod: "web-1", container: "app" }, { follow: true, tail: 5, sinceMs: 0, timestamps: false }, (text) => (out += text));
    assert.equal(out, "[member1 web-1/app] first line\n[member1 web-1/app] second line\n[member1 web-1/app] no newline\n");
    assert.equal(seen.at(-1)?.path, "/clusters/member1/api/v1/namespaces/demo/pods/web-1/log?container=app&follow=true&tailLines=5");
  });
});

const cluster1 = "member1";
