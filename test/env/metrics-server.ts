// metrics-server in a member: scrapes kwok's per-Node /metrics/resource and serves
// metrics.k8s.io/v1beta1 through the member apiserver's aggregation layer, all on 127.0.0.1.
import { readFile } from "node:fs/promises";
import { request } from "node:https";
import { join } from "node:path";
import { ApiregistrationV1Api, CoreV1Api, type KubeConfig } from "@kubernetes/client-node";
import { binaryPath } from "./binaries.ts";
import { freePort } from "./free-port.ts";
import { ManagedProcess } from "./managed-process.ts";
import { type AggregationPki, type ClusterPki, METRICS_SERVER_SERVICE } from "./pki.ts";
import { retryOnPortClash } from "./port-retry.ts";
import { waitFor } from "./wait.ts";

/** How often metrics-server scrapes (its minimum); a pod's CPU needs two scrapes to show. */
export const METRICS_RESOLUTION_SECONDS = 10;

export interface MetricsServer {
  process: ManagedProcess;
  port: number;
}

/**
 * Starts metrics-server against the member's apiserver, serving on 127.0.0.1:<port>, registers it
 * as the v1beta1.metrics.k8s.io APIService and resolves once the apiserver reports that APIService
 * Available (it proxies to metrics-server). On failure it stops what it started.
 */
export function startMetricsServer(opts: {
  metricsBinDir: string;
  dir: string;
  name: string;
  kubeconfig: string;
  kc: KubeConfig;
  pki: ClusterPki;
  aggregation: AggregationPki;
}): Promise<MetricsServer> {
  return retryOnPortClash(async () => {
    const port = await freePort();
    const ca = await readFile(opts.pki.caCert);
    const healthy = () => getStatus(port, "/livez", ca).then((s) => s === 200);
    const process = ManagedProcess.start({
      name: `${opts.name}-metrics-server`,
      command: binaryPath(opts.metricsBinDir, "metrics-server"),
      args: [
        `--kubeconfig=${opts.kubeconfig}`,
        `--authentication-kubeconfig=${opts.kubeconfig}`,
        `--authorization-kubeconfig=${opts.kubeconfig}`,
        "--bind-address=127.0.0.1",
        `--secure-port=${port}`,
        `--tls-cert-file=${opts.aggregation.metricsServingCert}`,
        `--tls-private-key-file=${opts.aggregation.metricsServingKey}`,
        // kwok is every Node's kubelet: its address is the Node's InternalIP (127.0.0.1), its port
        // the Node's kubelet port, its path the Node's resource-metrics-path annotation (kwok.ts).
        "--kubelet-preferred-address-types=InternalIP",
        "--kubelet-use-node-status-port",
        `--kubelet-certificate-authority=${opts.pki.caCert}`,
        `--metric-resolution=${METRICS_RESOLUTION_SECONDS}s`,
        // It must be shorter than the resolution (its default, 10s, is not).
        "--kubelet-request-timeout=5s",
      ],
      logFile: join(opts.dir, "metrics-server.log"),
      ready: () => healthy().catch(() => false),
    });
    try {
      await process.guard(
        waitFor(() => healthy().catch(() => false), { what: `${opts.name} metrics-server /livez`, timeoutMs: 60_000, intervalMs: 100 }),
      );
      await registerApiService(opts.kc, port, ca);
      await process.guard(waitUntilAvailable(opts.kc, opts.name));
    } catch (err) {
      await process.stop(0);
      throw err;
    }
    return { process, port };
  });
}

/**
 * The APIService names a Service; an ExternalName Service (`localhost`) makes the apiserver dial
 * 127.0.0.1:<port> itself, with no Endpoints (which may not hold loopback addresses) and no
 * --enable-aggregator-routing. The certificate is still checked for `<name>.<namespace>.svc`.
 */
async function registerApiService(kc: KubeConfig, port: number, ca: Buffer): Promise<void> {
  const { namespace, name } = METRICS_SERVER_SERVICE;
  await kc.makeApiClient(CoreV1Api).createNamespacedService({
    namespace,
    body: {
      metadata: { name, namespace },
      spec: { type: "ExternalName", externalName: "localhost", ports: [{ name: "https", port, protocol: "TCP" }] },
    },
  });
  await kc.makeApiClient(ApiregistrationV1Api).createAPIService({
    body: {
      metadata: { name: "v1beta1.metrics.k8s.io" },
      spec: {
        group: "metrics.k8s.io",
        version: "v1beta1",
        service: { namespace, name, port },
        caBundle: ca.toString("base64"),
        groupPriorityMinimum: 100,
        versionPriority: 100,
      },
    },
  });
}

async function waitUntilAvailable(kc: KubeConfig, cluster: string): Promise<void> {
  const api = kc.makeApiClient(ApiregistrationV1Api);
  let last = "";
  await waitFor(
    async () => {
      const svc = await api.readAPIService({ name: "v1beta1.metrics.k8s.io" });
      const available = svc.status?.conditions?.find((c) => c.type === "Available");
      last = `${available?.reason ?? ""}: ${available?.message ?? ""}`;
      return available?.status === "True";
    },
    { what: `${cluster} APIService v1beta1.metrics.k8s.io Available`, timeoutMs: 60_000, intervalMs: 200 },
  ).catch((err: unknown) => {
    throw new Error(`${(err as Error).message} (last condition ${last})`, { cause: err });
  });
}

function getStatus(port: number, path: string, ca: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, method: "GET", ca, servername: "localhost", timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", reject);
    req.end();
  });
}
