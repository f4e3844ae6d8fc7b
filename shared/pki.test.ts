import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { describe, it } from "node:test";
import { ADMIN_ORGANIZATION, adminOfSubject, AGENT_ORGANIZATION, certificateNotAfter, clusterOfSubject, clusterUidOfSubject, CONTROL_PLANE_ORGANIZATION, createCa, createCsr, issueAdminCertificate, issueAgentCertificate, issueCertificate, issueReplicaCertificate, replicaOfSubject, signAgentCsr, VIEWER_ORGANIZATION } from "./pki.ts";

describe("pki", () => {
  it("issues server and agent certificates that verify against the CA", async () => {
    const ca = await createCa("flotilla-ca");
    const server = await issueCertificate(ca, { commonName: "hub", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"], usage: "server" });
    const agent = await issueAgentCertificate(ca, "member1", "uid-7");
    const caCert = new X509Certificate(ca.certPem);
    assert.equal(caCert.ca, true);
    const s = new X509Certificate(server.certPem);
    assert.ok(s.verify(caCert.publicKey));
    assert.ok(s.checkIP("127.0.0.1"));
    assert.equal(s.checkHost("localhost"), "localhost");
    const a = new X509Certificate(agent.certPem);
    assert.ok(a.verify(caCert.publicKey));
    assert.match(a.subject, /CN=member1/);
    assert.match(a.subject, new RegExp(`O=${AGENT_ORGANIZATION}`));
    assert.match(a.subject, /OU=uid-7/, "bound to its Cluster's uid, so deleting the Cluster revokes it");
    assert.ok(a.checkPrivateKey((await import("node:crypto")).createPrivateKey(agent.keyPem)));
  });

  const cases: { name: string; subject: { CN?: string | string[]; O?: string | string[] } | undefined; want: string | undefined }[] = [
    { name: "agent certificate", subject: { CN: "member1", O: AGENT_ORGANIZATION }, want: "member1" },
    { name: "agent among several organizations", subject: { CN: "member2", O: ["x", AGENT_ORGANIZATION] }, want: "member2" },
    { name: "no agent organization", subject: { CN: "member1", O: "system:masters" }, want: undefined },
    { name: "no organization", subject: { CN: "member1" }, want: undefined },
    { name: "empty common name", subject: { CN: "", O: AGENT_ORGANIZATION }, want: undefined },
    { name: "two common names", subject: { CN: ["a", "b"], O: AGENT_ORGANIZATION }, want: undefined },
    { name: "no certificate", subject: undefined, want: undefined },
  ];
  for (const c of cases) it(`clusterOfSubject: ${c.name}`, () => assert.equal(clusterOfSubject(c.subject), c.want));
});

describe("registration certificates", () => {
  it("signs a CSR for exactly the registered cluster, whatever the CSR's subject says", async () => {
    const ca = await createCa("flotilla-ca");
    const { csrPem, keyPem } = await createCsr("member-9-wants-this");
    const certPem = await signAgentCsr(ca, csrPem, { cluster: "member1", clusterUid: "uid-1", validityMs: 60_000 });
    const cert = new X509Certificate(certPem);
    assert.ok(cert.verify(new X509Certificate(ca.certPem).publicKey));
    assert.match(cert.subject, /CN=member1/);
    assert.match(cert.subject, /OU=uid-1/);
    assert.match(cert.subject, new RegExp(`O=${AGENT_ORGANIZATION}`));
    assert.ok(cert.checkPrivateKey((await import("node:crypto")).createPrivateKey(keyPem)), "the certificate is for the CSR's key");
    const left = certificateNotAfter(certPem).getTime() - Date.now();
    assert.ok(left > 50_000 && left <= 60_000, `valid for the asked time, got ${left} ms`);
  });
  it("refuses a malformed or tampered CSR", async () => {
    const ca = await createCa("flotilla-ca");
    await assert.rejects(signAgentCsr(ca, "not a csr", { cluster: "m", clusterUid: "u", validityMs: 1000 }), /not a PEM PKCS#10 request/);
    const { csrPem } = await createCsr("m");
    const body = csrPem.split("\n").filter((l) => !l.startsWith("-----")).join("");
    const der = Buffer.from(body, "base64");
    der[der.length - 10] = (der[der.length - 10] as number) ^ 0xff; // flip bits in the signature
    const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString("base64")}\n-----END CERTIFICATE REQUEST-----`;
    await assert.rejects(signAgentCsr(ca, tampered, { cluster: "m", clusterUid: "u", validityMs: 1000 }), /does not verify|not a PEM/);
  });
  it("tells an admin certificate from a viewer's and an agent's", async () => {
    const ca = await createCa("flotilla-ca");
    const admin = new X509Certificate((await issueAdminCertificate(ca, "alice")).certPem);
    assert.match(admin.subject, new RegExp(`O=${ADMIN_ORGANIZATION}`));
    const left = new Date(admin.validTo).getTime() - Date.now();
    assert.ok(left > 23 * 3_600_000 && left <= 24 * 3_600_000, `an admin certificate is short-lived (24h by default), got ${left} ms`);
    const hour = new X509Certificate((await issueAdminCertificate(ca, "alice", 3_600_000)).certPem);
    assert.ok(new Date(hour.validTo).getTime() - Date.now() <= 3_600_000);
    const viewer = new X509Certificate((await issueAdminCertificate(ca, "vera", 3_600_000, "viewer")).certPem);
    assert.match(viewer.subject, new RegExp(`O=${VIEWER_ORGANIZATION}`));
    const cases: [object | undefined, { user: string; role: string } | undefined][] = [
      [{ CN: "alice", O: ADMIN_ORGANIZATION }, { user: "alice", role: "admin" }],
      [{ CN: "vera", O: VIEWER_ORGANIZATION }, { user: "vera", role: "viewer" }],
      [{ CN: "both", O: [ADMIN_ORGANIZATION, VIEWER_ORGANIZATION] }, { user: "both", role: "viewer" }],
      [{ CN: "member1", O: AGENT_ORGANIZATION }, undefined],
      [{ CN: "both", O: [ADMIN_ORGANIZATION, AGENT_ORGANIZATION] }, undefined],
      [{ CN: "both", O: [VIEWER_ORGANIZATION, AGENT_ORGANIZATION] }, undefined],
      [{ CN: "", O: ADMIN_ORGANIZATION }, undefined],
      [{ CN: "nobody" }, undefined],
      [undefined, undefined],
    ];
    for (const [subject, want] of cases) assert.deepEqual(adminOfSubject(subject as never), want, JSON.stringify(subject));
    assert.equal(clusterUidOfSubject({ OU: "uid-1" }), "uid-1");
    assert.equal(clusterUidOfSubject({}), undefined);
  });

  it("a replica's certificate names its identity; only a control-plane certificate is a replica's", async () => {
    const ca = await createCa("test-ca");
    const cert = new X509Certificate((await issueReplicaCertificate(ca, "replica-1", 3_600_000)).certPem);
    assert.match(cert.subject, new RegExp(`O=${CONTROL_PLANE_ORGANIZATION}`));
    const cases: [object | undefined, string | undefined][] = [
      [{ CN: "replica-1", O: CONTROL_PLANE_ORGANIZATION }, "replica-1"],
      [{ CN: "member1", O: AGENT_ORGANIZATION }, undefined],
      [{ CN: "alice", O: ADMIN_ORGANIZATION }, undefined],
      [{ CN: "member1", O: [AGENT_ORGANIZATION, CONTROL_PLANE_ORGANIZATION] }, undefined],
      [{ CN: "", O: CONTROL_PLANE_ORGANIZATION }, undefined],
      [{ CN: ["a", "b"], O: CONTROL_PLANE_ORGANIZATION }, undefined],
      [undefined, undefined],
    ];
    for (const [subject, want] of cases) assert.equal(replicaOfSubject(subject as never), want, JSON.stringify(subject));
    assert.equal(clusterOfSubject({ CN: "replica-1", O: CONTROL_PLANE_ORGANIZATION }), undefined, "no agent stream with it");
    assert.equal(adminOfSubject({ CN: "replica-1", O: CONTROL_PLANE_ORGANIZATION }), undefined, "no Admin API with it");
  });
});
