import { readFile, writeFile } from "node:fs/promises";
import { request } from "node:https";
import { join } from "node:path";
import { binaryPath } from "./binaries.ts";
import { freePort } from "./free-port.ts";
import { ManagedProcess } from "./managed-process.ts";
import type { AggregationPki, ClusterPki, WebhookClientPki } from "./pki.ts";
import { retryOnPortClash } from "./port-retry.ts";
import { waitFor } from "./wait.ts";

export interface KubeApiserver {
  process: ManagedProcess;
  /** https://127.0.0.1:PORT */
  server: string;
  port: number;
}

/**
 * Its flags that name no port or path. They decide what it writes into a new etcd at its first
 * start, so they are part of the etcd seed's key (etcd-seed.ts). Without the watch cache, every
 * list and watch is served by etcd: a member's apiserver took about 0.4 s less CPU until ready
 * (1.9 to 2.05 s against 2.3 to 2.5 s, 3 starts each) and half the CPU at idle (0.010 against
 * 0.021 cores), and a test cluster has a few clients, not thousands (2026-11-30).
 */
export const FIXED_FLAGS: readonly string[] = [
  "--service-cluster-ip-range=10.0.0.0/24",
  "--authorization-mode=RBAC",
  "--allow-privileged=true",
  "--profiling=false",
  "--enable-priority-and-fairness=false",
  "--watch-cache=false",
  "--v=0",
];

/** Starts kube-apiserver on a loopback port against etcdUrl; resolves once /readyz says ok. */
export function startKubeApiserver(opts: {
  binDir: string;
  dir: string;
  name: string;
  etcdUrl: string;
  pki: ClusterPki;
  /** Write an audit log (JSON lines, Metadata level, writes only) to this file. */
  auditLogPath?: string;
  /** Turn on the aggregation layer's proxy (front-proxy client certificate and request headers), for APIServices. */
  aggregation?: AggregationPki;
  /** Present this client certificate to every admission webhook (AdmissionConfiguration kubeConfigFile). */
  webhookClient?: WebhookClientPki;
}): Promise<KubeApiserver> {
  return retryOnPortClash(async () => {
    const audit = opts.auditLogPath === undefined ? [] : await auditFlags(opts.dir, opts.auditLogPath);
    const admission = opts.webhookClient === undefined ? [] : await admissionFlags(opts.dir, opts.webhookClient);
    const port = await freePort();
    const server = `https://127.0.0.1:${port}`;
    const { pki } = opts;
    const [ca, cert, key] = await Promise.all([pki.caCert, pki.adminCert, pki.adminKey].map((p) => readFile(p)));
    const ready = () => getStatus(port, "/readyz", { ca, cert, key }).then((s) => s === 200);
    const process = ManagedProcess.start({
      name: `${opts.name}-kube-apiserver`,
      command: binaryPath(opts.binDir, "kube-apiserver"),
      args: [
        `--etcd-servers=${opts.etcdUrl}`,
        `--cert-dir=${join(opts.dir, "apiserver-certs")}`,
        `--tls-cert-file=${pki.servingCert}`,
        `--tls-private-key-file=${pki.servingKey}`,
        `--client-ca-file=${pki.caCert}`,
        `--secure-port=${port}`,
        "--bind-address=127.0.0.1",
        "--advertise-address=127.0.0.1",
        `--service-account-issuer=${server}/`,
        `--service-account-key-file=${pki.serviceAccountPub}`,
        `--service-account-signing-key-file=${pki.serviceAccountKey}`,
        // A member's kubelets are kwok's server (kwok.ts). The apiserver dials a Node's InternalIP,
        // 127.0.0.1 (kwok gives a Node no other address, but the default order would try a
        // Hostname address first, which would resolve nowhere), and checks the serving certificate
        // against the cluster CA (without this flag it would not check it at all). Neither flag
        // writes anything into etcd, so the seed's key (FIXED_FLAGS) leaves them out.
        "--kubelet-preferred-address-types=InternalIP",
        `--kubelet-certificate-authority=${pki.caCert}`,
        ...FIXED_FLAGS,
        ...audit,
        ...admission,
        ...(opts.aggregation === undefined ? [] : aggregationFlags(opts.aggregation)),
      ],
      logFile: join(opts.dir, "kube-apiserver.log"),
      ready: () => ready().catch(() => false),
    });
    try {
      await process.guard(
        waitFor(ready, {
          what: `${opts.name} kube-apiserver /readyz`,
          timeoutMs: 60_000,
          intervalMs: 100,
        }),
      );
    } catch (err) {
      await process.kill();
      throw err;
    }
    return { process, server, port };
  });
}

/** The HTTP status of GET https://127.0.0.1:port/path, with these TLS credentials. */
export function getStatus(
  port: number,
  path: string,
  tls: { ca: Buffer | undefined; cert?: Buffer | undefined; key?: Buffer | undefined },
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, method: "GET", ...tls, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", reject);
    req.end();
  });
}

/** Every write (who, what, when, with which user agent) at Metadata level; reads are not logged. */
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: Metadata
    verbs: ["create", "update", "patch", "delete", "deletecollection"]
  - level: None
`;

async function auditFlags(dir: string, logPath: string): Promise<string[]> {
  const policyFile = join(dir, "audit-policy.yaml");
  await writeFile(policyFile, auditPolicy);
  return [`--audit-policy-file=${policyFile}`, `--audit-log-path=${logPath}`, "--audit-log-format=json", "--audit-log-maxbackup=0"];
}

/**
 * The webhook admission plugins read a kubeconfig whose user `*` (any webhook host) holds the
 * client certificate they present to admission webhooks, as a production apiserver is configured
 * to authenticate to one (docs/operations/webhook-authentication.md).
 */
async function admissionFlags(dir: string, client: WebhookClientPki): Promise<string[]> {
  const kubeconfig = join(dir, "admission-webhooks.kubeconfig");
  const config = join(dir, "admission-configuration.yaml");
  await writeFile(kubeconfig, `apiVersion: v1
kind: Config
users:
  - name: "*"
    user:
      client-certificate: ${client.cert}
      client-key: ${client.key}
`);
  const plugin = (name: string) => `  - name: ${name}
    configuration:
      apiVersion: apiserver.config.k8s.io/v1
      kind: WebhookAdmissionConfiguration
      kubeConfigFile: ${kubeconfig}
`;
  await writeFile(config, `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
${plugin("ValidatingAdmissionWebhook")}${plugin("MutatingAdmissionWebhook")}`);
  return [`--admission-control-config-file=${config}`];
}

/**
 * The aggregator proxies a request to an APIService's server with its proxy client certificate and
 * the caller's identity in X-Remote-* headers; the server trusts those headers only from a client
 * certificate of the requestheader CA with an allowed name (it reads both from the
 * kube-system/extension-apiserver-authentication ConfigMap the apiserver publishes).
 */
function aggregationFlags(agg: AggregationPki): string[] {
  return [
    `--requestheader-client-ca-file=${agg.frontProxyCaCert}`,
    `--requestheader-allowed-names=${agg.proxyClientName}`,
    "--requestheader-username-headers=X-Remote-User",
    "--requestheader-group-headers=X-Remote-Group",
    "--requestheader-extra-headers-prefix=X-Remote-Extra-",
    `--proxy-client-cert-file=${agg.proxyClientCert}`,
    `--proxy-client-key-file=${agg.proxyClientKey}`,
  ];
}
