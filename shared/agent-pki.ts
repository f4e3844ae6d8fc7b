// What the agent needs of certificates (issue 25): a certificate's expiry, read with Node's own
// X509Certificate, and a CSR, made by shared/pki.ts loaded only when the agent registers or renews
// (@peculiar/x509, its ASN.1 codecs and reflect-metadata stay out of an agent's idle memory).
import { X509Certificate } from "node:crypto";

/** When a PEM certificate expires. */
export function certificateNotAfter(certPem: string): Date {
  return new X509Certificate(certPem).validToDate;
}

/** A new key pair and a CSR for it with CN = commonName (shared/pki.ts's createCsr, loaded on first use). */
export async function createCsr(commonName: string): Promise<{ csrPem: string; keyPem: string }> {
  const pki = await import("./pki.ts");
  return pki.createCsr(commonName);
}

/**
 * The Cluster uid a registered agent's certificate is bound to (its one OU), as the hub reads it
 * (shared/pki.ts clusterUidOfSubject); undefined when it names none, or several.
 */
export function clusterUidOfCertificate(certPem: string): string | undefined {
  const ous = new X509Certificate(certPem).subject.split("\n").filter((line) => line.startsWith("OU="));
  return ous.length === 1 && ous[0] !== "OU=" ? (ous[0] as string).slice(3) : undefined;
}
