import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { describe, it } from "node:test";
import { AGENT_ORGANIZATION, clusterOfSubject, createCa, issueAgentCertificate, issueCertificate } from "./pki.ts";

describe("pki", () => {
  it("issues server and agent certificates that verify against the CA", async () => {
    const ca = await createCa("flotilla-ca");
    const server = await issueCertificate(ca, { commonName: "hub", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"], usage: "server" });
    const agent = await issueAgentCertificate(ca, "member1");
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
