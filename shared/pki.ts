// Flotilla's own certificate authority: the control plane signs the hub's serving certificate
// and one client certificate per member cluster (DESIGN §7). ECDSA P-256, via WebCrypto.
import { webcrypto } from "node:crypto";
// @peculiar/x509 resolves its ASN.1 codecs through tsyringe, which needs the Reflect metadata API.
import "reflect-metadata";
import * as x509 from "@peculiar/x509";

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

const algorithm = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;

/** The Organization every agent client certificate carries; the hub requires it. */
export const AGENT_ORGANIZATION = "flotilla:agents";
/** The organization (O) of an admin client certificate (flotillactl): may call the Admin API. */
export const ADMIN_ORGANIZATION = "flotilla:admins";

/** A certificate and its private key, both PEM. */
export interface KeyPair {
  certPem: string;
  keyPem: string;
}

async function newKeys(): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(algorithm, true, ["sign", "verify"])) as CryptoKeyPair;
}

async function keyPem(key: CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey("pkcs8", key);
  return x509.PemConverter.encode(der, "PRIVATE KEY");
}

async function importKey(pem: string): Promise<CryptoKey> {
  const der = x509.PemConverter.decodeFirst(pem);
  return webcrypto.subtle.importKey("pkcs8", der, algorithm, true, ["sign"]);
}

function serial(): string {
  return Buffer.from(webcrypto.getRandomValues(new Uint8Array(16))).toString("hex").replace(/^[89a-f]/, "1");
}

function validity(days: number): { notBefore: Date; notAfter: Date } {
  const notBefore = new Date(Date.now() - 5 * 60_000); // tolerate small clock skew
  return { notBefore, notAfter: new Date(notBefore.getTime() + days * 86_400_000) };
}

/** Escapes a value for an X.500 name string. */
function rdn(value: string): string {
  return value.replace(/([,+"\\<>;=])/g, "\\$1");
}

/** A new self-signed CA. */
export async function createCa(commonName: string, days = 3650): Promise<KeyPair> {
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${rdn(commonName)}`,
    keys,
    signingAlgorithm: algorithm,
    ...validity(days),
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString("pem"), keyPem: await keyPem(keys.privateKey) };
}

export interface IssueOptions {
  commonName: string;
  organization?: string;
  /** Subject alternative names for a serving certificate. */
  dnsNames?: string[];
  ipAddresses?: string[];
  usage: "server" | "client";
  days?: number;
}

/** Issues a leaf certificate signed by the CA. */
export async function issueCertificate(ca: KeyPair, opts: IssueOptions): Promise<KeyPair> {
  const caCert = new x509.X509Certificate(ca.certPem);
  const caKey = await importKey(ca.keyPem);
  const keys = await newKeys();
  const subject = [`CN=${rdn(opts.commonName)}`, ...(opts.organization ? [`O=${rdn(opts.organization)}`] : [])].join(", ");
  const names = [
    ...(opts.dnsNames ?? []).map((value) => ({ type: "dns" as const, value })),
    ...(opts.ipAddresses ?? []).map((value) => ({ type: "ip" as const, value })),
  ];
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject,
    issuer: caCert.subject,
    publicKey: keys.publicKey,
    signingKey: caKey,
    signingAlgorithm: algorithm,
    ...validity(opts.days ?? 365),
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([opts.usage === "server" ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth]),
      await x509.AuthorityKeyIdentifierExtension.create(caCert),
      ...(names.length > 0 ? [new x509.SubjectAlternativeNameExtension(names)] : []),
    ],
  });
  return { certPem: cert.toString("pem"), keyPem: await keyPem(keys.privateKey) };
}

/** Issues the client certificate that binds an agent to exactly one cluster. */
export function issueAgentCertificate(ca: KeyPair, cluster: string, days = 365): Promise<KeyPair> {
  return issueCertificate(ca, { commonName: cluster, organization: AGENT_ORGANIZATION, usage: "client", days });
}

/** The cluster an agent certificate names, from a peer certificate's subject; undefined if it is no agent's. */
export function clusterOfSubject(subject: { CN?: string | string[]; O?: string | string[] } | undefined): string | undefined {
  if (subject === undefined) return undefined;
  const orgs = Array.isArray(subject.O) ? subject.O : subject.O === undefined ? [] : [subject.O];
  if (!orgs.includes(AGENT_ORGANIZATION)) return undefined;
  const cn = Array.isArray(subject.CN) ? undefined : subject.CN;
  return cn === undefined || cn === "" ? undefined : cn;
}

/** Issues an admin client certificate (for flotillactl). */
export function issueAdminCertificate(ca: KeyPair, user: string, days = 365): Promise<KeyPair> {
  return issueCertificate(ca, { commonName: user, organization: ADMIN_ORGANIZATION, usage: "client", days });
}

/** The admin a peer certificate names, or undefined if it is no admin's (an agent's, say). */
export function adminOfSubject(subject: { CN?: string | string[]; O?: string | string[] } | undefined): string | undefined {
  if (subject === undefined) return undefined;
  const orgs = Array.isArray(subject.O) ? subject.O : subject.O === undefined ? [] : [subject.O];
  if (!orgs.includes(ADMIN_ORGANIZATION) || orgs.includes(AGENT_ORGANIZATION)) return undefined;
  const cn = Array.isArray(subject.CN) ? undefined : subject.CN;
  return cn === undefined || cn === "" ? undefined : cn;
}
