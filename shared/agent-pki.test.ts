import assert from "node:assert/strict";
import { it } from "node:test";
import { certificateNotAfter, createCsr } from "./agent-pki.ts";
import * as pki from "./pki.ts";

it("reads a certificate's expiry as shared/pki.ts does, and makes a CSR pki.ts verifies", async () => {
  const ca = await pki.createCa("agent-pki-test", 30);
  assert.equal(certificateNotAfter(ca.certPem).toISOString(), pki.certificateNotAfter(ca.certPem).toISOString());
  const { csrPem, keyPem } = await createCsr("member1");
  assert.match(keyPem, /BEGIN PRIVATE KEY/);
  assert.match((await pki.verifyCsr(csrPem)).subject, /CN=member1/);
});
