import { execFile } from "node:child_process";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Paths of the certificates and keys of one test cluster (all PEM). */
export interface ClusterPki {
  caCert: string;
  caKey: string;
  servingCert: string;
  servingKey: string;
  adminCert: string;
  adminKey: string;
  serviceAccountKey: string;
  serviceAccountPub: string;
}

/** PEM contents of the files a kubeconfig embeds. */
export interface KubeconfigCredentials {
  caCert: string;
  clientCert: string;
  clientKey: string;
}

const days = "30";

async function openssl(args: string[]): Promise<void> {
  try {
    await run("openssl", args);
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr ?? "";
    throw new Error(`openssl ${args[0]} failed: ${stderr.trim()}`, { cause: err });
  }
}

function ecKey(path: string): Promise<void> {
  return openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", path]);
}

/**
 * Makes a cluster's PKI in dir with openssl: its own CA, a serving certificate for
 * localhost/127.0.0.1, an admin client certificate (O=system:masters) and a service-account key.
 */
export async function makeClusterPki(dir: string): Promise<ClusterPki> {
  const f = (name: string) => join(dir, name);
  const pki: ClusterPki = {
    caCert: f("ca.crt"),
    caKey: f("ca.key"),
    servingCert: f("serving.crt"),
    servingKey: f("serving.key"),
    adminCert: f("admin.crt"),
    adminKey: f("admin.key"),
    serviceAccountKey: f("sa.key"),
    serviceAccountPub: f("sa.pub"),
  };
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await Promise.all([ecKey(pki.caKey), ecKey(pki.servingKey), ecKey(pki.adminKey), ecKey(pki.serviceAccountKey)]);
  await openssl([
    "req", "-x509", "-new", "-key", pki.caKey, "-subj", "/CN=flotilla-test-ca", "-days", days,
    "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
    "-out", pki.caCert,
  ]);
  const signed = (key: string, subject: string, out: string, ext: string[]) =>
    openssl([
      "req", "-x509", "-new", "-key", key, "-subj", subject, "-days", days,
      "-CA", pki.caCert, "-CAkey", pki.caKey,
      "-addext", "basicConstraints=critical,CA:FALSE",
      "-addext", "keyUsage=critical,digitalSignature,keyEncipherment",
      ...ext.flatMap((e) => ["-addext", e]),
      "-out", out,
    ]);
  await Promise.all([
    signed(pki.servingKey, "/CN=kube-apiserver", pki.servingCert, [
      "extendedKeyUsage=serverAuth",
      "subjectAltName=DNS:localhost,IP:127.0.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc",
    ]),
    signed(pki.adminKey, "/O=system:masters/CN=flotilla-admin", pki.adminCert, ["extendedKeyUsage=clientAuth"]),
    openssl(["pkey", "-in", pki.serviceAccountKey, "-pubout", "-out", pki.serviceAccountPub]),
  ]);
  return pki;
}

/** Reads the admin credentials a kubeconfig embeds. */
export async function adminCredentials(pki: ClusterPki): Promise<KubeconfigCredentials> {
  const [caCert, clientCert, clientKey] = await Promise.all(
    [pki.caCert, pki.adminCert, pki.adminKey].map((p) => readFile(p, "utf8")),
  );
  return { caCert: caCert as string, clientCert: clientCert as string, clientKey: clientKey as string };
}
