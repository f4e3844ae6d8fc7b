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
/** The organization (O) of an admin client certificate (flotillactl): may call every Admin API method. */
export const ADMIN_ORGANIZATION = "flotilla:admins";
/** The organization (O) of a viewer's client certificate: may call the Admin API's reads, Secrets aside. */
export const VIEWER_ORGANIZATION = "flotilla:viewers";

/** The organization (O) of a control-plane replica's own client certificate: replicas call each other (PeerMetrics) with it. */
export const CONTROL_PLANE_ORGANIZATION = "flotilla:control-plane";

/** What an admin client certificate allows: everything (admin), or the reads of non-Secrets (viewer). */
export type AdminRole = "admin" | "viewer";

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
  /** OU: for a registered agent, the uid of its Cluster object (a later registration of the name gets another). */
  organizationalUnit?: string;
  /** Subject alternative names for a serving certificate. */
  dnsNames?: string[];
  ipAddresses?: string[];
  usage: "server" | "client";
  days?: number;
  /** Validity in milliseconds; wins over days. */
  validityMs?: number;
}

/** Issues a leaf certificate signed by the CA, with a new key. */
export async function issueCertificate(ca: KeyPair, opts: IssueOptions): Promise<KeyPair> {
  const keys = await newKeys();
  return { certPem: await signLeaf(ca, keys.publicKey, opts), keyPem: await keyPem(keys.privateKey) };
}

async function signLeaf(ca: KeyPair, publicKey: CryptoKey | x509.PublicKey, opts: IssueOptions): Promise<string> {
  const caCert = new x509.X509Certificate(ca.certPem);
  const caKey = await importKey(ca.keyPem);
  const subject = [
    `CN=${rdn(opts.commonName)}`,
    ...(opts.organization ? [`O=${rdn(opts.organization)}`] : []),
    ...(opts.organizationalUnit ? [`OU=${rdn(opts.organizationalUnit)}`] : []),
  ].join(", ");
  const names = [
    ...(opts.dnsNames ?? []).map((value) => ({ type: "dns" as const, value })),
    ...(opts.ipAddresses ?? []).map((value) => ({ type: "ip" as const, value })),
  ];
  const notBefore = new Date(Date.now() - 5 * 60_000); // tolerate small clock skew
  const notAfter = opts.validityMs !== undefined ? new Date(Date.now() + opts.validityMs) : new Date(notBefore.getTime() + (opts.days ?? 365) * 86_400_000);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject,
    issuer: caCert.subject,
    publicKey,
    signingKey: caKey,
    signingAlgorithm: algorithm,
    notBefore,
    notAfter,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([opts.usage === "server" ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth]),
      await x509.AuthorityKeyIdentifierExtension.create(caCert),
      ...(names.length > 0 ? [new x509.SubjectAlternativeNameExtension(names)] : []),
    ],
  });
  return cert.toString("pem");
}

/** A new key and a certificate signing request for it (the agent's side of registration and renewal). */
export async function createCsr(commonName: string): Promise<{ csrPem: string; keyPem: string }> {
  const keys = await newKeys();
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: `CN=${rdn(commonName)}`, keys, signingAlgorithm: algorithm });
  return { csrPem: csr.toString("pem"), keyPem: await keyPem(keys.privateKey) };
}

/**
 * Signs an agent's CSR for exactly one cluster: the subject is set here (CN = cluster, O = agents,
 * OU = the Cluster's uid), whatever the CSR asks for. Throws on a malformed or badly signed CSR.
 */
export async function signAgentCsr(ca: KeyPair, csrPem: string, opts: { cluster: string; clusterUid: string; validityMs: number }): Promise<string> {
  const csr = await verifyCsr(csrPem);
  return signLeaf(ca, csr.publicKey, { commonName: opts.cluster, organization: AGENT_ORGANIZATION, organizationalUnit: opts.clusterUid, usage: "client", validityMs: opts.validityMs });
}

/** A parsed CSR whose signature verifies; throws a message for the user otherwise. */
export async function verifyCsr(csrPem: string): Promise<x509.Pkcs10CertificateRequest> {
  let csr: x509.Pkcs10CertificateRequest;
  try {
    csr = new x509.Pkcs10CertificateRequest(csrPem);
  } catch {
    throw new Error("the certificate signing request is not a PEM PKCS#10 request");
  }
  if (!(await csr.verify())) throw new Error("the certificate signing request's signature does not verify");
  return csr;
}

/** When a PEM certificate stops being valid. */
export function certificateNotAfter(certPem: string): Date {
  return new x509.X509Certificate(certPem).notAfter;
}

/**
 * Issues the client certificate that binds an agent to exactly one cluster and, with
 * `clusterUid`, to that Cluster object (OU): deleting the Cluster revokes it. The hub refuses a
 * certificate without one unless told otherwise.
 */
export function issueAgentCertificate(ca: KeyPair, cluster: string, clusterUid?: string, days = 365): Promise<KeyPair> {
  return issueCertificate(ca, { commonName: cluster, organization: AGENT_ORGANIZATION, ...(clusterUid ? { organizationalUnit: clusterUid } : {}), usage: "client", days });
}

/** The cluster an agent certificate names, from a peer certificate's subject; undefined if it is no agent's. */
export function clusterOfSubject(subject: { CN?: string | string[]; O?: string | string[] } | undefined): string | undefined {
  if (subject === undefined) return undefined;
  const orgs = Array.isArray(subject.O) ? subject.O : subject.O === undefined ? [] : [subject.O];
  if (!orgs.includes(AGENT_ORGANIZATION)) return undefined;
  const cn = Array.isArray(subject.CN) ? undefined : subject.CN;
  return cn === undefined || cn === "" ? undefined : cn;
}

/**
 * Issues an admin client certificate (for flotillactl) with a role (O = flotilla:admins or
 * flotilla:viewers), valid for `validityMs` (admin certificates are short-lived: 24h unless said otherwise).
 */
export function issueAdminCertificate(ca: KeyPair, user: string, validityMs = ADMIN_CERT_VALIDITY_MS, role: AdminRole = "admin"): Promise<KeyPair> {
  return issueCertificate(ca, { commonName: user, organization: role === "viewer" ? VIEWER_ORGANIZATION : ADMIN_ORGANIZATION, usage: "client", validityMs });
}

/** How long an admin certificate lasts by default: short, so that a lost one does not last (it can also be revoked: --admin-revocation-list). */
export const ADMIN_CERT_VALIDITY_MS = 24 * 3_600_000;

/**
 * The user and role a peer certificate names, or undefined if it is no admin's or viewer's (an
 * agent's, say). A certificate naming both roles is a viewer's: the lesser one wins.
 */
export function adminOfSubject(subject: { CN?: string | string[]; O?: string | string[] } | undefined): { user: string; role: AdminRole } | undefined {
  if (subject === undefined) return undefined;
  const orgs = Array.isArray(subject.O) ? subject.O : subject.O === undefined ? [] : [subject.O];
  if (orgs.includes(AGENT_ORGANIZATION)) return undefined;
  const role: AdminRole | undefined = orgs.includes(VIEWER_ORGANIZATION) ? "viewer" : orgs.includes(ADMIN_ORGANIZATION) ? "admin" : undefined;
  const cn = Array.isArray(subject.CN) ? undefined : subject.CN;
  return role === undefined || cn === undefined || cn === "" ? undefined : { user: cn, role };
}

/** The Cluster uid a registered agent's certificate is bound to (its OU), if any. */
export function clusterUidOfSubject(subject: { OU?: string | string[] } | undefined): string | undefined {
  const ou = subject?.OU;
  return typeof ou === "string" && ou !== "" ? ou : undefined;
}

/**
 * A control-plane replica's client certificate for calls to the other replicas (CN = its identity,
 * O = flotilla:control-plane), signed with the CA's key the replica holds; short-lived, the replica
 * signs itself a new one before it expires. Agents cannot get one: their CSRs are signed with O =
 * flotilla:agents whatever they ask for.
 */
export function issueReplicaCertificate(ca: KeyPair, identity: string, validityMs: number): Promise<KeyPair> {
  return issueCertificate(ca, { commonName: identity, organization: CONTROL_PLANE_ORGANIZATION, usage: "client", validityMs });
}

/** The replica identity a peer certificate names, or undefined if it is no control-plane replica's (an agent's, an admin's). */
export function replicaOfSubject(subject: { CN?: string | string[]; O?: string | string[] } | undefined): string | undefined {
  if (subject === undefined) return undefined;
  const orgs = Array.isArray(subject.O) ? subject.O : subject.O === undefined ? [] : [subject.O];
  if (orgs.length !== 1 || orgs[0] !== CONTROL_PLANE_ORGANIZATION) return undefined;
  const cn = Array.isArray(subject.CN) ? undefined : subject.CN;
  return cn === undefined || cn === "" ? undefined : cn;
}
