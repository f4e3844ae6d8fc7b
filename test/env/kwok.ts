import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { KubeConfig, V1CustomResourceDefinition } from "@kubernetes/client-node";
import { ApiextensionsV1Api, CoreV1Api, loadYaml } from "@kubernetes/client-node";
import { parse, stringify } from "yaml";
import { binaryPath } from "./binaries.ts";
import { freePort } from "./free-port.ts";
import { getStatus } from "./kube-apiserver.ts";
import { ManagedProcess } from "./managed-process.ts";
import { retryOnPortClash } from "./port-retry.ts";
import { waitFor } from "./wait.ts";

/** The annotation that marks the fake Nodes this kwok manages. */
export const KWOK_NODE_ANNOTATION = "kwok.x-k8s.io/node";

/** Where metrics-server (v0.7.0 and later) scrapes a Node's resource metrics instead of /metrics/resource. */
export const RESOURCE_METRICS_PATH_ANNOTATION = "metrics.k8s.io/resource-metrics-path";

/**
 * The image of a bad release: kwok never makes a pod that runs it Ready (it stays Pending, so a
 * Deployment of it never gets an available replica). Every other image becomes Running and Ready
 * at once. The image is never pulled: kwok runs no containers.
 */
export const NEVER_READY_IMAGE = "flotilla.test/never-ready:1";

/** The jq query (kwok's selector keys) for the images of a pod's containers. */
const CONTAINER_IMAGES_QUERY = ".spec.containers.[].image";

/** Capacity of each fake Node. */
export const FAKE_NODE_CAPACITY = { cpu: "16", memory: "64Gi", pods: "110" };

/** kwok's part in member metrics: it serves every fake Node's /metrics/resource, as a kubelet would. */
export interface KwokMetrics {
  /** `kwok-metrics/` of the metrics binaries: the Metric for /metrics/resource and the usage CRDs. */
  filesDir: string;
}

/** kwok's server, which answers the apiserver for every fake Node as its kubelet. */
export interface KwokServer {
  process: ManagedProcess;
  /** Loopback port of kwok's server, written into each Node as its kubelet port. */
  port: number;
  /** The one file every container of every pod logs to (CRI format: pod-logs.ts writes it). */
  podLogPath: string;
}

/** The usage kinds kwok watches as CRDs when it serves metrics (usage.ts writes them). */
const USAGE_CRDS = ["ResourceUsage", "ClusterResourceUsage"];
const USAGE_CRD_FILES = ["kwok.x-k8s.io_resourceusages.yaml", "kwok.x-k8s.io_clusterresourceusages.yaml"];

/**
 * Writes kwokctl's stages from `stagesDir` (the binaries' `kwok-stages/`, left as built) into
 * `dir`, pod-ready's selector narrowed to pods none of whose containers runs NEVER_READY_IMAGE
 * (kwok's `NotIn` holds when no output of the query is among the values). Returns the files
 * written. Throws if pod-ready is missing or no longer has the shape this edit relies on.
 */
export async function writeKwokStages(stagesDir: string, dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const files = (await readdir(stagesDir)).filter((f) => f.endsWith(".yaml")).sort();
  let edited = false;
  const written: string[] = [];
  for (const file of files) {
    let text = await readFile(join(stagesDir, file), "utf8");
    const stage = parse(text) as { kind?: string; metadata?: { name?: string }; spec?: { selector?: { matchExpressions?: unknown } } };
    if (stage?.kind === "Stage" && stage.metadata?.name === "pod-ready") {
      const expressions = stage.spec?.selector?.matchExpressions;
      if (!Array.isArray(expressions)) throw new Error(`kwok stage ${file}: pod-ready has no spec.selector.matchExpressions to add the never-ready image to`);
      expressions.push({ key: CONTAINER_IMAGES_QUERY, operator: "NotIn", values: [NEVER_READY_IMAGE] });
      text = stringify(stage, { blockQuote: "literal" });
      edited = true;
    }
    const path = join(dir, file);
    await writeFile(path, text);
    written.push(path);
  }
  if (!edited) throw new Error(`kwok stages in ${stagesDir}: no Stage named pod-ready among ${files.join(", ")}`);
  return written;
}

/**
 * kwok's ClusterLogs (in `--config`, so no CRD is installed): every container of every pod reads
 * `podLogPath`. kwok's server reads it with the kubelet's own CRI log reader, `follow` included.
 */
export function clusterLogsConfig(podLogPath: string): string {
  return stringify({
    apiVersion: "kwok.x-k8s.io/v1alpha1",
    kind: "ClusterLogs",
    metadata: { name: "every-pod" },
    spec: { logs: [{ logsFile: podLogPath, follow: true }] },
  });
}

/**
 * Starts kwok with the stages kwokctl uses (nodes become Ready and keep a lease, pods become
 * Running), except that pods of NEVER_READY_IMAGE stay Pending (writeKwokStages; its copy goes to
 * `<dir>/kwok-stages/`). kwok also serves HTTPS on 127.0.0.1:port (the cluster's serving
 * certificate, so the apiserver verifies it with the cluster CA), each Node's kubelet port: the
 * apiserver's `logs` of any pod read `<dir>/pod-logs.log` (clusterLogsConfig), and `exec`,
 * `attach` and `port-forward` reach kwok, which refuses them (no ClusterExec and the like is
 * configured: docs/development/test-env.md says why). With metrics, `/metrics/nodes/<node>/metrics/resource`
 * there reports each pod's usage from the ResourceUsage/ClusterResourceUsage objects
 * (installUsageCrds first). Resolves once the server answers /healthz, on a port picked again if
 * another process took it first.
 */
export function startKwok(opts: {
  binDir: string;
  dir: string;
  name: string;
  kubeconfig: string;
  /** The cluster's CA, serving certificate (for 127.0.0.1) and key. */
  tls: { caCert: string; servingCert: string; servingKey: string };
  metrics?: KwokMetrics;
}): Promise<KwokServer> {
  return retryOnPortClash(async () => {
    const configs = await writeKwokStages(join(opts.binDir, "kwok-stages"), join(opts.dir, "kwok-stages"));
    const home = join(opts.dir, "kwok-home");
    await mkdir(home, { recursive: true });
    const podLogPath = join(opts.dir, "pod-logs.log");
    // kwok answers a logs request with an error while the file does not exist.
    await writeFile(podLogPath, "", { flag: "a" });
    const logsConfig = join(opts.dir, "kwok-cluster-logs.yaml");
    await writeFile(logsConfig, clusterLogsConfig(podLogPath));
    configs.push(logsConfig);
    const m = opts.metrics;
    if (m !== undefined) configs.push(join(m.filesDir, "metrics-resource.yaml"));
    const port = await freePort();
    const ca = await readFile(opts.tls.caCert);
    const serving = () => getStatus(port, "/healthz", { ca }).then((s) => s === 200, () => false);
    const kwok = ManagedProcess.start({
      name: `${opts.name}-kwok`,
      command: binaryPath(opts.binDir, "kwok"),
      args: [
        `--kubeconfig=${opts.kubeconfig}`,
        `--config=${configs.join(",")}`,
        "--manage-all-nodes=false",
        `--manage-nodes-with-annotation-selector=${KWOK_NODE_ANNOTATION}=fake`,
        "--node-ip=127.0.0.1",
        "--cidr=10.244.0.0/16",
        "--node-lease-duration-seconds=40",
        `--node-port=${port}`,
        `--server-address=127.0.0.1:${port}`,
        `--tls-cert-file=${opts.tls.servingCert}`,
        `--tls-private-key-file=${opts.tls.servingKey}`,
        ...(m === undefined ? [] : [`--enable-crds=${USAGE_CRDS.join(",")}`]),
      ],
      env: { ...process.env, HOME: home },
      logFile: join(opts.dir, "kwok.log"),
      ready: serving,
    });
    try {
      await kwok.guard(waitFor(serving, { what: `${opts.name} kwok's server /healthz`, timeoutMs: 60_000, intervalMs: 50 }));
    } catch (err) {
      await kwok.kill();
      throw err;
    }
    return { process: kwok, port, podLogPath };
  });
}

/** Installs kwok's ResourceUsage and ClusterResourceUsage CRDs and waits until they are served. */
export async function installUsageCrds(kc: KubeConfig, filesDir: string): Promise<void> {
  const ext = kc.makeApiClient(ApiextensionsV1Api);
  const names: string[] = [];
  for (const file of USAGE_CRD_FILES) {
    const crd = loadYaml<V1CustomResourceDefinition>(await readFile(join(filesDir, file), "utf8"));
    names.push(crd.metadata?.name as string);
    await ext.createCustomResourceDefinition({ body: crd });
  }
  await waitFor(
    async () => {
      for (const name of names) {
        const crd = await ext.readCustomResourceDefinition({ name });
        if (!crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True")) return false;
      }
      return true;
    },
    { what: `kwok's usage CRDs Established (${names.join(", ")})`, timeoutMs: 60_000, intervalMs: 100 },
  );
}

/**
 * Creates `count` fake Nodes named `<cluster>-node-<i>` for kwok to run. With metrics, each Node
 * tells metrics-server where kwok serves its /metrics/resource (all Nodes share kwok's one port).
 */
export async function createFakeNodes(kc: KubeConfig, cluster: string, count: number, opts: { metrics?: boolean } = {}): Promise<string[]> {
  const core = kc.makeApiClient(CoreV1Api);
  const names = Array.from({ length: count }, (_, i) => `${cluster}-node-${i}`);
  await Promise.all(
    names.map((name) =>
      core.createNode({
        body: {
          apiVersion: "v1",
          kind: "Node",
          metadata: {
            name,
            annotations: {
              [KWOK_NODE_ANNOTATION]: "fake",
              "node.alpha.kubernetes.io/ttl": "0",
              ...(opts.metrics ? { [RESOURCE_METRICS_PATH_ANNOTATION]: `/metrics/nodes/${name}/metrics/resource` } : {}),
            },
            labels: {
              type: "kwok",
              "kubernetes.io/hostname": name,
              "kubernetes.io/os": "linux",
              "kubernetes.io/arch": "amd64",
              "kubernetes.io/role": "agent",
              "node-role.kubernetes.io/agent": "",
            },
          },
          status: {
            capacity: FAKE_NODE_CAPACITY,
            allocatable: FAKE_NODE_CAPACITY,
          },
        },
      }),
    ),
  );
  return names;
}
