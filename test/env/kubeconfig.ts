import { writeFile } from "node:fs/promises";
import { stringify } from "yaml";
import type { KubeconfigCredentials } from "./pki.ts";

/** A kubeconfig with one cluster, one user and one context, all named `name`, credentials inline. */
export function renderKubeconfig(name: string, server: string, creds: KubeconfigCredentials): string {
  const b64 = (s: string) => Buffer.from(s).toString("base64");
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name, cluster: { server, "certificate-authority-data": b64(creds.caCert) } }],
    users: [
      { name, user: { "client-certificate-data": b64(creds.clientCert), "client-key-data": b64(creds.clientKey) } },
    ],
    contexts: [{ name, context: { cluster: name, user: name } }],
    "current-context": name,
    preferences: {},
  });
}

/** Writes a kubeconfig readable only by its owner. */
export async function writeKubeconfig(
  path: string,
  name: string,
  server: string,
  creds: KubeconfigCredentials,
): Promise<void> {
  await writeFile(path, renderKubeconfig(name, server, creds), { mode: 0o600 });
}
