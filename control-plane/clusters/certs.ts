// `flotilla certs`: the control plane's CA on disk, the hub's serving certificate, and one
// client certificate per member cluster (until bootstrap-token registration exists).
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { FlagSpec, FlagValues } from "../../shared/flags.ts";
import { createCa, issueAdminCertificate, issueAgentCertificate, issueCertificate, type KeyPair } from "../../shared/pki.ts";

export const certsInitFlags: FlagSpec[] = [
  { name: "dir", type: "string", required: true, help: "directory for ca.crt, ca.key, hub.crt, hub.key (created)" },
  { name: "hub-dns", type: "string", default: "localhost", help: "comma-separated DNS names of the hub's certificate" },
  { name: "hub-ip", type: "string", default: "127.0.0.1", help: "comma-separated IP addresses of the hub's certificate" },
];

export const certsAgentFlags: FlagSpec[] = [
  { name: "dir", type: "string", required: true, help: "directory holding ca.crt and ca.key (from certs init)" },
  { name: "cluster", type: "string", required: true, help: "the member cluster the certificate is for (its CN)" },
  { name: "out", type: "string", help: "directory for <cluster>.crt and <cluster>.key (default: --dir)" },
];

export const certsAdminFlags: FlagSpec[] = [
  { name: "dir", type: "string", required: true, help: "directory holding ca.crt and ca.key (from certs init)" },
  { name: "user", type: "string", default: "admin", help: "the admin's name (the certificate's CN)" },
  { name: "out", type: "string", help: "directory for admin.crt and admin.key (default: --dir)" },
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

/** Signs a client certificate for exactly one cluster. */
export async function certsAgent(flags: FlagValues): Promise<string> {
  const dir = flags.dir as string;
  const cluster = flags.cluster as string;
  if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(cluster)) {
    throw new Error(`--cluster ${JSON.stringify(cluster)} is not a valid cluster name (a DNS label: lowercase letters, digits, '-', at most 63)`);
  }
  const pair = await issueAgentCertificate(await readCa(dir), cluster);
  const out = (flags.out as string | undefined) ?? dir;
  await mkdir(out, { recursive: true, mode: 0o700 });
  await Promise.all([write(join(out, `${cluster}.crt`), pair.certPem, false), write(join(out, `${cluster}.key`), pair.keyPem, true)]);
  return `wrote ${out}/${cluster}.crt and ${cluster}.key`;
}

/** Signs an admin client certificate: flotillactl presents it to the Admin API. */
export async function certsAdmin(flags: FlagValues): Promise<string> {
  const dir = flags.dir as string;
  const user = String(flags.user ?? "admin");
  if (!/^[A-Za-z0-9][-A-Za-z0-9_.@]{0,62}$/.test(user)) throw new Error(`--user ${JSON.stringify(user)} is not a valid name (letters, digits, - _ . @, at most 63)`);
  const pair = await issueAdminCertificate(await readCa(dir), user);
  const out = (flags.out as string | undefined) ?? dir;
  await mkdir(out, { recursive: true, mode: 0o700 });
  await Promise.all([write(join(out, "admin.crt"), pair.certPem, false), write(join(out, "admin.key"), pair.keyPem, true)]);
  return `wrote ${out}/admin.crt and admin.key`;
}

async function readCa(dir: string): Promise<KeyPair> {
  const [certPem, keyPem] = await Promise.all([readFile(join(dir, "ca.crt"), "utf8"), readFile(join(dir, "ca.key"), "utf8")]);
  return { certPem, keyPem };
}
