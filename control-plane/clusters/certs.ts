// `flotilla certs`: the control plane's CA on disk, the hub's serving certificate, and one
// client certificate per member cluster (until bootstrap-token registration exists).
import { X509Certificate } from "node:crypto";
import { appendFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Cluster } from "../../shared/api/types.ts";
import { FlagError, type FlagSpec, type FlagValues } from "../../shared/flags.ts";
import { isKubeStatus, KubeRest } from "../../shared/kube-rest.ts";
import { loadKubeConfig } from "../../shared/kubeconfig.ts";
import { type AdminRole, certificateNotAfter, createCa, issueAdminCertificate, issueAgentCertificate, issueCertificate, type KeyPair } from "../../shared/pki.ts";
import { parseRevocationList, revocationEntry } from "../../shared/revocation-list.ts";

export const certsInitFlags: FlagSpec[] = [
  { name: "dir", type: "string", required: true, help: "directory for ca.crt, ca.key, hub.crt, hub.key (created)" },
  { name: "hub-dns", type: "string", default: "localhost", help: "comma-separated DNS names of the hub's certificate" },
  { name: "hub-ip", type: "string", default: "127.0.0.1", help: "comma-separated IP addresses of the hub's certificate" },
];

export const certsAgentFlags: FlagSpec[] = [
  { name: "dir", type: "string", required: true, help: "directory holding ca.crt and ca.key (from certs init)" },
  { name: "cluster", type: "string", required: true, help: "the member cluster the certificate is for (its CN)" },
  { name: "kubeconfig", type: "string", env: "KUBECONFIG", help: "kubeconfig of the control cluster: the certificate is bound to the uid of the Cluster named --cluster there (create the Cluster first)" },
  { name: "cluster-uid", type: "string", help: "the Cluster's uid, instead of --kubeconfig (kubectl get cluster NAME -o jsonpath='{.metadata.uid}')" },
  { name: "validity", type: "duration", default: "8760h", help: "how long the certificate is valid" },
  { name: "out", type: "string", help: "directory for <cluster>.crt and <cluster>.key (default: --dir)" },
];

export const certsAdminFlags: FlagSpec[] = [
  { name: "dir", type: "string", required: true, help: "directory holding ca.crt and ca.key (from certs init)" },
  { name: "user", type: "string", default: "admin", help: "the admin's name (the certificate's CN)" },
  { name: "role", type: "string", default: "admin", help: "admin (O=flotilla:admins: every Admin API call) or viewer (O=flotilla:viewers: get, describe, render, diff and plan of anything but Secrets; no tokens, no unjoin)" },
  { name: "validity", type: "duration", default: "24h", help: "how long the certificate is valid: keep it short and issue another when it expires (a lost one can also be revoked: `flotilla certs revoke`)" },
  { name: "out", type: "string", help: "directory for admin.crt and admin.key (default: --dir)" },
];

export const certsRevokeFlags: FlagSpec[] = [
  { name: "cert", type: "string", required: true, help: "the admin or viewer certificate to revoke (PEM, e.g. admin.crt)" },
  { name: "list", type: "string", required: true, help: "the revocation list file (the control plane's --admin-revocation-list; created if missing): its SHA-256 fingerprint is appended, with a comment naming the certificate and the time" },
];

const write = (path: string, text: string, secret: boolean) => writeFile(path, text, { mode: secret ? 0o600 : 0o644 });

/** Creates a CA and the hub's serving certificate; refuses to overwrite an existing CA. */
export async function certsInit(flags: FlagValues): Promise<string> {
  const dir = flags.dir as string;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const exists = await readFile(join(dir, "ca.key")).then(() => true, () => false);
  if (exists) throw new Error(`${join(dir, "ca.key")} exists; refusing to replace the CA (every agent certificate depends on it)`);
  const list = (v: unknown) => String(v ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  const ca = await createCa("flotilla-ca");
  const hub = await issueCertificate(ca, { commonName: "flotilla-hub", dnsNames: list(flags["hub-dns"]), ipAddresses: list(flags["hub-ip"]), usage: "server" });
  await Promise.all([
    write(join(dir, "ca.crt"), ca.certPem, false),
    write(join(dir, "ca.key"), ca.keyPem, true),
    write(join(dir, "hub.crt"), hub.certPem, false),
    write(join(dir, "hub.key"), hub.keyPem, true),
  ]);
  return `wrote ${dir}/ca.crt, ca.key, hub.crt, hub.key`;
}

/**
 * Signs a client certificate for exactly one cluster, bound to its Cluster object's uid: deleting
 * (and re-creating) the Cluster revokes it, as it does a registered agent's.
 */
export async function certsAgent(flags: FlagValues): Promise<string> {
  const dir = flags.dir as string;
  const cluster = flags.cluster as string;
  if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(cluster)) {
    throw new Error(`--cluster ${JSON.stringify(cluster)} is not a valid cluster name (a DNS label: lowercase letters, digits, '-', at most 63)`);
  }
  const uid = await clusterUid(cluster, flags["cluster-uid"] as string | undefined, flags.kubeconfig as string | undefined);
  const pair = await issueAgentCertificate(await readCa(dir), cluster, uid, (flags.validity as number) / 86_400_000);
  const out = (flags.out as string | undefined) ?? dir;
  await mkdir(out, { recursive: true, mode: 0o700 });
  await Promise.all([write(join(out, `${cluster}.crt`), pair.certPem, false), write(join(out, `${cluster}.key`), pair.keyPem, true)]);
  return `wrote ${out}/${cluster}.crt and ${cluster}.key (bound to Cluster ${cluster} uid ${uid})`;
}

/** The uid the certificate is bound to: given, or read from the control cluster's Cluster object. */
async function clusterUid(cluster: string, given: string | undefined, kubeconfig: string | undefined): Promise<string> {
  if (given !== undefined && given !== "") return given;
  if (kubeconfig === undefined || kubeconfig === "") {
    throw new FlagError(`an agent certificate is bound to its Cluster's uid, so that deleting the Cluster revokes it: pass --kubeconfig of the control cluster (where Cluster ${cluster} exists), or --cluster-uid`);
  }
  const rest = new KubeRest(loadKubeConfig(kubeconfig), { maxSockets: 1 });
  try {
    const c = await rest.request<Cluster>("GET", `/apis/flotilla.dev/v1alpha1/clusters/${encodeURIComponent(cluster)}`, { timeoutMs: 30_000 });
    if (!c.metadata.uid) throw new Error(`Cluster ${cluster} has no uid`);
    return c.metadata.uid;
  } catch (err) {
    if (isKubeStatus(err, 404)) throw new Error(`there is no Cluster ${cluster} in the control cluster: create it first (kubectl apply a Cluster named ${cluster}), then issue its certificate`, { cause: err });
    throw err;
  } finally {
    rest.close();
  }
}

/** Signs an admin client certificate: flotillactl presents it to the Admin API. */
export async function certsAdmin(flags: FlagValues): Promise<string> {
  const dir = flags.dir as string;
  const user = String(flags.user ?? "admin");
  if (!/^[A-Za-z0-9][-A-Za-z0-9_.@]{0,62}$/.test(user)) throw new Error(`--user ${JSON.stringify(user)} is not a valid name (letters, digits, - _ . @, at most 63)`);
  const role = String(flags.role ?? "admin");
  if (role !== "admin" && role !== "viewer") throw new FlagError(`--role ${JSON.stringify(role)}: choose admin or viewer`);
  const pair = await issueAdminCertificate(await readCa(dir), user, flags.validity as number, role as AdminRole);
  const out = (flags.out as string | undefined) ?? dir;
  await mkdir(out, { recursive: true, mode: 0o700 });
  await Promise.all([write(join(out, "admin.crt"), pair.certPem, false), write(join(out, "admin.key"), pair.keyPem, true)]);
  return `wrote ${out}/admin.crt and admin.key (${role} ${user}, valid until ${certificateNotAfter(pair.certPem).toISOString()})`;
}

/**
 * Appends a certificate's SHA-256 fingerprint to the admin revocation list. Refuses a list that
 * already has a bad line (the control plane would refuse every admin call with it) and leaves it as it was.
 */
export async function certsRevoke(flags: FlagValues): Promise<string> {
  const certFile = flags.cert as string;
  const listFile = flags.list as string;
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(await readFile(certFile));
  } catch (err) {
    throw new Error(`cannot read a PEM certificate from ${certFile}: ${(err as Error).message}`, { cause: err });
  }
  const existing = await readFile(listFile, "utf8").catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return "";
    throw err;
  });
  const bad = parseRevocationList(existing).errors[0];
  if (bad !== undefined) throw new Error(`${listFile} line ${bad.line} ${JSON.stringify(bad.text)}: ${bad.reason}; fix it first (the control plane refuses every admin call while it is there)`);
  const line = revocationEntry(cert, new Date());
  await appendFile(listFile, existing === "" || existing.endsWith("\n") ? line : `\n${line}`, { mode: 0o644 });
  return `revoked ${cert.subject.split("\n").join(", ")} (SHA-256 fingerprint ${cert.fingerprint256}) in ${listFile}`;
}

async function readCa(dir: string): Promise<KeyPair> {
  const [certPem, keyPem] = await Promise.all([readFile(join(dir, "ca.crt"), "utf8"), readFile(join(dir, "ca.key"), "utf8")]);
  return { certPem, keyPem };
}
