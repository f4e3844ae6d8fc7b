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

function selfSignedCa(key: string, subject: string, out: string): Promise<void> {
  return openssl([
    "req", "-x509", "-new", "-key", key, "-subj", subject, "-days", days,
    "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
    "-out", out,
  ]);
}

function signCert(ca: { caCert: string; caKey: string }, key: string, subject: string, out: string, ext: string[]): Promise<void> {
  return openssl([
    "req", "-x509", "-new", "-key", key, "-subj", subject, "-days", days,
    "-CA", ca.caCert, "-CAkey", ca.caKey,
    "-addext", "basicConstraints=critical,CA:FALSE",
    "-addext", "keyUsage=critical,digitalSignature,keyEncipherment",
    ...ext.flatMap((e) => ["-addext", e]),
    "-out", out,
  ]);
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
  await selfSignedCa(pki.caKey, "/CN=flotilla-test-ca", pki.caCert);
  const signed = (key: string, subject: string, out: string, ext: string[]) =>
    signCert({ caCert: pki.caCert, caKey: pki.caKey }, key, subject, out, ext);
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

/** The common name of the client certificate a test control cluster's apiserver presents to admission webhooks. */
export const WEBHOOK_CLIENT_NAME = "kube-apiserver-webhook-client";

/** The apiserver's client certificate for admission webhooks (signed by the cluster CA). */
export interface WebhookClientPki {
  cert: string;
  key: string;
}

/** Makes the client certificate a control cluster's apiserver calls admission webhooks with (CN WEBHOOK_CLIENT_NAME). */
export async function makeWebhookClientPki(dir: string, pki: ClusterPki): Promise<WebhookClientPki> {
  const out: WebhookClientPki = { cert: join(dir, "webhook-client.crt"), key: join(dir, "webhook-client.key") };
  await ecKey(out.key);
  await signCert({ caCert: pki.caCert, caKey: pki.caKey }, out.key, `/CN=${WEBHOOK_CLIENT_NAME}`, out.cert, ["extendedKeyUsage=clientAuth"]);
  return out;
}

/** Reads the admin credentials a kubeconfig embeds. */
export async function adminCredentials(pki: ClusterPki): Promise<KubeconfigCredentials> {
  const [caCert, clientCert, clientKey] = await Promise.all(
    [pki.caCert, pki.adminCert, pki.adminKey].map((p) => readFile(p, "utf8")),
  );
  return { caCert: caCert as string, clientCert: clientCert as string, clientKey: clientKey as string };
}

/** What the apiserver's aggregation layer needs to proxy to metrics-server, and what metrics-server serves with. */
export interface AggregationPki {
  /** CA of the apiserver's proxy client certificate (--requestheader-client-ca-file). */
  frontProxyCaCert: string;
  proxyClientCert: string;
  proxyClientKey: string;
  /** The CN --requestheader-allowed-names admits. */
  proxyClientName: string;
  /** metrics-server's serving certificate, signed by the cluster CA. */
  metricsServingCert: string;
  metricsServingKey: string;
}

/** The Service the metrics APIService names; the aggregator checks metrics-server's certificate for `<name>.<namespace>.svc`. */
export const METRICS_SERVER_SERVICE = { namespace: "kube-system", name: "metrics-server" };

/**
 * Makes the aggregation layer's certificates in dir: a front-proxy CA of its own (so no client
 * certificate of the cluster CA can pass for the proxy), the apiserver's proxy client certificate
 * and metrics-server's serving certificate.
 */
export async function makeAggregationPki(dir: string, cluster: ClusterPki): Promise<AggregationPki> {
  const f = (name: string) => join(dir, name);
  const frontProxyCaKey = f("front-proxy-ca.key");
  const agg: AggregationPki = {
    frontProxyCaCert: f("front-proxy-ca.crt"),
    proxyClientCert: f("front-proxy-client.crt"),
    proxyClientKey: f("front-proxy-client.key"),
    proxyClientName: "front-proxy-client",
    metricsServingCert: f("metrics-server.crt"),
    metricsServingKey: f("metrics-server.key"),
  };
  await Promise.all([ecKey(frontProxyCaKey), ecKey(agg.proxyClientKey), ecKey(agg.metricsServingKey)]);
  await selfSignedCa(frontProxyCaKey, "/CN=flotilla-front-proxy-ca", agg.frontProxyCaCert);
  const svc = `${METRICS_SERVER_SERVICE.name}.${METRICS_SERVER_SERVICE.namespace}.svc`;
  await Promise.all([
    signCert({ caCert: agg.frontProxyCaCert, caKey: frontProxyCaKey }, agg.proxyClientKey, `/CN=${agg.proxyClientName}`, agg.proxyClientCert, [
      "extendedKeyUsage=clientAuth",
    ]),
    signCert(cluster, agg.metricsServingKey, "/CN=metrics-server", agg.metricsServingCert, [
      "extendedKeyUsage=serverAuth",
      `subjectAltName=DNS:${svc},DNS:localhost,IP:127.0.0.1`,
    ]),
  ]);
  return agg;
}

/**
 * Makes a serving certificate (and its key) signed by the cluster CA in dir, as `<name>.crt` and
 * `<name>.key`, for the given subjectAltName entries (`DNS:…`, `IP:…`). Returns their paths.
 */
export async function makeServingCert(
  dir: string,
  cluster: ClusterPki,
  name: string,
  sans: string[],
): Promise<{ cert: string; key: string }> {
  const out = { cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) };
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await ecKey(out.key);
  await signCert(cluster, out.key, `/CN=${name}`, out.cert, ["extendedKeyUsage=serverAuth", `subjectAltName=${sans.join(",")}`]);
  return out;
}
