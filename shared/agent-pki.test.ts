import assert from "node:assert/strict";
import { it } from "node:test";
import { certificateNotAfter, clusterUidOfCertificate, createCsr } from "./agent-pki.ts";
import * as pki from "./pki.ts";

it("reads a certificate's expiry as shared/pki.ts does, and makes a CSR pki.ts verifies", async () => {
  const ca = await pki.createCa("agent-pki-test", 30);
  assert.equal(certificateNotAfter(ca.certPem).toISOString(), pki.certificateNotAfter(ca.certPem).toISOString());
  const { csrPem, keyPem } = await createCsr("member1");
  assert.match(keyPem, /BEGIN PRIVATE KEY/);
  assert.match((await pki.verifyCsr(csrPem)).subject, /CN=member1/);
});

it("reads the Cluster uid an agent certificate is bound to, as the hub does; none without an OU", async () => {
  const ca = await pki.createCa("agent-pki-test", 30);
  const bound = await pki.issueAgentCertificate(ca, "member1", "5b0c7a1e-0000-4000-8000-000000000001");
  assert.equal(clusterUidOfCertificate(bound.certPem), "5b0c7a1e-0000-4000-8000-000000000001");
  assert.equal(clusterUidOfCertificate((await pki.issueAgentCertificate(ca, "member1")).certPem), undefined);
});
