// A kubeconfig for a member's endpoint on the control plane's member API (issue 41), holding a
// fresh admin or viewer certificate from the fleet's CA and nothing of the member's.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Flotilla } from "../env/flotilla.ts";
import { issueAdminCertificate } from "../../shared/pki.ts";

/** Writes the kubeconfig into the fleet's root and returns its path. */
export async function memberKubeconfig(flotilla: Flotilla, user: string, role: "admin" | "viewer", cluster: string): Promise<string> {
  const ca = await readFile(join(flotilla.certsDir, "ca.crt"), "utf8");
  const cert = await issueAdminCertificate({ certPem: ca, keyPem: await readFile(join(flotilla.certsDir, "ca.key"), "utf8") }, user, 3_600_000, role);
  const b64 = (s: string) => Buffer.from(s).toString("base64");
  const path = join(flotilla.fleet.root, `member-api-${user}-${cluster}.kubeconfig`);
  await writeFile(
    path,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: cluster, cluster: { server: `https://127.0.0.1:${flotilla.memberApiPort}/clusters/${cluster}`, "certificate-authority-data": b64(ca), "tls-server-name": "localhost" } }],
      users: [{ name: user, user: { "client-certificate-data": b64(cert.certPem), "client-key-data": b64(cert.keyPem) } }],
      contexts: [{ name: cluster, context: { cluster, user } }],
      "current-context": cluster,
    }),
    { mode: 0o600 },
  );
  return path;
}
