// A Karmada v1.18.0 control plane in pull mode, as plain processes on 127.0.0.1: Karmada's own
// kube-apiserver (with etcd and a kube-controller-manager for namespaces and garbage collection),
// karmada-webhook, karmada-aggregated-apiserver (cluster.karmada.io), karmada-controller-manager,
// karmada-scheduler, and one karmada-agent per member, which registers its member itself.
// For comparing Flotilla with Karmada and migrating from it; nothing in Flotilla depends on it.
import { execFile } from "node:child_process";
import { rmSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { ApiextensionsV1Api, ApiregistrationV1Api, CoreV1Api, CustomObjectsApi, KubeConfig } from "@kubernetes/client-node";
import { parseAllDocuments } from "yaml";
import { binaryPath, ensureBinaries, ensureKarmadaBinaries, type KARMADA_BINARY_NAMES } from "./binaries.ts";
import { onExit } from "./cleanup.ts";
import type { Cluster } from "./cluster.ts";
import { CONTROL_CLUSTER_CONTROLLERS, startKubeControllerManager } from "./controllers.ts";
import { startEtcd } from "./etcd.ts";
import { freePort } from "./free-port.ts";
import { getStatus, startKubeApiserver } from "./kube-apiserver.ts";
import { writeKubeconfig } from "./kubeconfig.ts";
import { ManagedProcess } from "./managed-process.ts";
import { adminCredentials, makeAggregationPki, makeClusterPki, makeServingCert } from "./pki.ts";
import { retryOnPortClash } from "./port-retry.ts";
import { waitFor } from "./wait.ts";

const run = promisify(execFile);

/** The Service Karmada's APIService names; the aggregator checks the serving certificate for `<name>.<namespace>.svc`. */
export const KARMADA_AGGREGATED_APISERVER_SERVICE = { namespace: "karmada-system", name: "karmada-aggregated-apiserver" };
const CLUSTER_API = { group: "cluster.karmada.io", version: "v1alpha1" };
/** The URL Karmada's webhook configurations name, which the local webhook's URL replaces. */
const WEBHOOK_SERVICE_URL = "https://karmada-webhook.karmada-system.svc:443/";
const readyTimeoutMs = 120_000;

export interface KarmadaOptions {
  /** The members, one karmada-agent each (registered under the member's name, in Pull mode). */
  members: Cluster[];
  /** Karmada's own directory (certificates, etcd data, logs); created, and removed by stop(). */
  dir: string;
  /** The cluster binaries (default: ensureBinaries()). */
  binDir?: string;
  /** The Karmada binaries and karmada-crds/ (default: ensureKarmadaBinaries()). */
  karmadaBinDir?: string;
}

/** A running Karmada control plane and its agents. */
export interface Karmada {
  dir: string;
  /** Karmada's apiserver, https://127.0.0.1:PORT. */
  server: string;
  /** Admin kubeconfig of Karmada's apiserver (client cert in O=system:masters). */
  kubeconfigPath: string;
  /** Every process, in start order; agents last. */
  processes: ManagedProcess[];
  /** Each member's karmada-agent, by member name. */
  agents: Map<string, ManagedProcess>;
  /** Each component's Prometheus metrics (http://127.0.0.1:PORT/metrics), by process name. */
  metricsUrls: Map<string, string>;
  kubeConfig(): KubeConfig;
  /** Stops every process (agents first) and removes dir. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts Karmada's control plane and an agent per member, and resolves once every member's Cluster
 * is Ready. On failure it stops what it started and throws with the failing component's log tail.
 */
export async function startKarmada(opts: KarmadaOptions): Promise<Karmada> {
  const binDir = opts.binDir ?? (await ensureBinaries());
  const karmadaBinDir = opts.karmadaBinDir ?? (await ensureKarmadaBinaries());
  const { dir } = opts;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const processes: ManagedProcess[] = [];
  const agents = new Map<string, ManagedProcess>();
  const metricsUrls = new Map<string, string>();
  const unregisterDir = onExit(() => rmSync(dir, { recursive: true, force: true }));
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      for (const p of [...processes].reverse()) await p.stop();
      await rm(dir, { recursive: true, force: true });
      unregisterDir();
    })());
  try {
    const pki = await makeClusterPki(dir);
    const aggregation = await makeAggregationPki(dir, pki);
    const svc = KARMADA_AGGREGATED_APISERVER_SERVICE;
    const serving = await makeServingCert(join(dir, "karmada-serving"), pki, "karmada", [
      `DNS:${svc.name}.${svc.namespace}.svc`,
      "DNS:localhost",
      "IP:127.0.0.1",
    ]);
    const name = "karmada";
    const etcd = await startEtcd({ binDir, dir, name });
    processes.push(etcd.process);
    const apiserver = await startKubeApiserver({ binDir, dir, name, etcdUrl: etcd.clientUrl, pki, aggregation });
    processes.push(apiserver.process);
    const kubeconfigPath = join(dir, "karmada.kubeconfig");
    await writeKubeconfig(kubeconfigPath, name, apiserver.server, await adminCredentials(pki));
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfigPath);
    processes.push(startKubeControllerManager({ binDir, dir, name, kubeconfig: kubeconfigPath, pki, controllers: CONTROL_CLUSTER_CONTROLLERS }));

    const kubectl = (...args: string[]) =>
      run(binaryPath(binDir, "kubectl"), [`--kubeconfig=${kubeconfigPath}`, `--cache-dir=${join(dir, "kubectl-cache")}`, ...args]);
    const core = kc.makeApiClient(CoreV1Api);
    for (const ns of ["karmada-system", "karmada-cluster"]) await core.createNamespace({ body: { metadata: { name: ns } } });
    const crds = join(karmadaBinDir, "karmada-crds");
    await kubectl("apply", "--server-side", "-R", "-f", join(crds, "bases"));
    // Not `kubectl wait --for=condition=Established`: it fails at once on a CRD whose status has no
    // conditions yet (".status.conditions accessor error: <nil>"), as one just created can (a run
    // of 2026-11-30 failed so).
    const extensions = kc.makeApiClient(ApiextensionsV1Api);
    await waitFor(
      async () => {
        const list = await extensions.listCustomResourceDefinition();
        return list.items.length > 0 && list.items.every((crd) => crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True") === true);
      },
      { what: "Karmada's CRDs Established", timeoutMs: 60_000, intervalMs: 200 },
    );

    const ca = await readFile(pki.caCert);
    const start = (c: string, args: string[], ports: ComponentPorts, ready: (p: ManagedProcess) => Promise<void>, command = c) =>
      startComponent({ dir, command: binaryPath(karmadaBinDir, command as KarmadaBinary), name: c, args, ports, ready, processes, metricsUrls });
    const tls = (what: string, path: string) => async (p: ManagedProcess) => {
      const port = Number(flagValue(p.args, "secure-port"));
      await p.guard(waitFor(() => getStatus(port, path, { ca }).then((s) => s === 200).catch(() => false), { what: `${what} ${path}`, timeoutMs: readyTimeoutMs }));
    };
    const healthz = (what: string) => async (p: ManagedProcess) => {
      const port = Number(flagValue(p.args, "health-probe-bind-address")?.split(":")[1]);
      await p.guard(waitFor(() => httpStatus(port, "/healthz").then((s) => s === 200).catch(() => false), { what: `${what} /healthz`, timeoutMs: readyTimeoutMs }));
    };
    const all = { secure: true, metrics: true, health: true };
    const controller = { metrics: true, health: true };

    // The webhook first: its configurations fail every Karmada write while it is down.
    const webhookArgs = [
      `--kubeconfig=${kubeconfigPath}`,
      "--bind-address=127.0.0.1",
      `--cert-dir=${join(dir, "karmada-serving")}`,
      "--tls-cert-file-name=karmada.crt",
      "--tls-private-key-file-name=karmada.key",
    ];
    const webhook = await start("karmada-webhook", webhookArgs, all, tls("karmada-webhook", "/readyz/"));
    const webhookConfig = join(dir, "webhook-configuration.yaml");
    await writeFile(webhookConfig, webhookConfiguration(await readFile(join(crds, "webhook-configuration.yaml"), "utf8"), Number(flagValue(webhook.args, "secure-port")), ca));
    await kubectl("apply", "--server-side", "-f", webhookConfig);

    const aggregatedArgs = [
      `--kubeconfig=${kubeconfigPath}`,
      `--authentication-kubeconfig=${kubeconfigPath}`,
      `--authorization-kubeconfig=${kubeconfigPath}`,
      `--etcd-servers=${etcd.clientUrl}`,
      "--etcd-prefix=/karmada-aggregated-apiserver",
      "--bind-address=127.0.0.1",
      `--tls-cert-file=${serving.cert}`,
      `--tls-private-key-file=${serving.key}`,
    ];
    // An apiserver: its /metrics is on its secure port.
    await start("karmada-aggregated-apiserver", aggregatedArgs, { secure: true }, async (p) => {
      await tls("karmada-aggregated-apiserver", "/livez")(p);
      await registerClusterApi(kc, Number(flagValue(p.args, "secure-port")), ca);
      await p.guard(waitUntilApiServiceAvailable(kc));
    });
    const cmArgs = [`--kubeconfig=${kubeconfigPath}`, "--leader-elect=false", "--cluster-status-update-frequency=10s"];
    await start("karmada-controller-manager", cmArgs, controller, healthz("karmada-controller-manager"));
    await start("karmada-scheduler", [`--kubeconfig=${kubeconfigPath}`, "--leader-elect=false"], controller, healthz("karmada-scheduler"));

    for (const member of opts.members) {
      const agentName = `${member.name}-karmada-agent`;
      const agentArgs = [
        `--karmada-kubeconfig=${kubeconfigPath}`,
        `--kubeconfig=${member.kubeconfigPath}`,
        `--cluster-name=${member.name}`,
        `--cluster-api-endpoint=${member.server}`,
        // Pull mode needs no member credentials on Karmada's side.
        "--report-secrets=None",
        "--leader-elect=false",
      ];
      agents.set(member.name, await start(agentName, agentArgs, controller, healthz(agentName), "karmada-agent"));
    }
    await waitUntilClustersReady(kc, opts.members.map((m) => m.name), processes);
    return {
      dir,
      server: apiserver.server,
      kubeconfigPath,
      processes,
      agents,
      metricsUrls,
      kubeConfig: () => {
        const k = new KubeConfig();
        k.loadFromFile(kubeconfigPath);
        return k;
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

type KarmadaBinary = (typeof KARMADA_BINARY_NAMES)[number];

/** Which loopback ports a component gets flags for (each has its own defaults on 0.0.0.0 otherwise). */
interface ComponentPorts {
  /** --secure-port (HTTPS). */
  secure?: boolean;
  /** --metrics-bind-address. */
  metrics?: boolean;
  /** --health-probe-bind-address. */
  health?: boolean;
}

/**
 * Starts one Karmada component on fresh loopback ports, waits until `ready` passes and appends it to
 * processes; a lost port race starts it again on other ports.
 */
async function startComponent(o: {
  dir: string;
  command: string;
  name: string;
  args: string[];
  ports: ComponentPorts;
  ready: (p: ManagedProcess) => Promise<void>;
  processes: ManagedProcess[];
  metricsUrls: Map<string, string>;
}): Promise<ManagedProcess> {
  return retryOnPortClash(async () => {
    const args = [...o.args];
    if (o.ports.secure) args.push(`--secure-port=${await freePort()}`);
    const metricsPort = o.ports.metrics ? await freePort() : undefined;
    if (metricsPort !== undefined) args.push(`--metrics-bind-address=127.0.0.1:${metricsPort}`);
    if (o.ports.health) args.push(`--health-probe-bind-address=127.0.0.1:${await freePort()}`);
    // The working directory is Karmada's own: an apiserver writes self-signed certificates under
    // its working directory when it lacks some.
    const p = ManagedProcess.start({ name: o.name, command: o.command, args, cwd: o.dir, logFile: join(o.dir, `${o.name}.log`) });
    try {
      await o.ready(p);
    } catch (err) {
      await p.stop(0);
      throw err;
    }
    o.processes.push(p);
    if (metricsPort !== undefined) o.metricsUrls.set(o.name, `http://127.0.0.1:${metricsPort}/metrics`);
    return p;
  });
}

/** The value of `--name=value` in args, or undefined. */
export function flagValue(args: readonly string[], name: string): string | undefined {
  const prefix = `--${name}=`;
  return args.find((a) => a.startsWith(prefix))?.slice(prefix.length);
}

/**
 * Karmada's Mutating/ValidatingWebhookConfigurations from its module, pointed at the local webhook
 * (https://127.0.0.1:PORT/…) with the CA that signed its certificate; their 3 s timeout raised to
 * 10 s, so a loaded test machine does not fail Karmada's writes.
 */
export function webhookConfiguration(yaml: string, port: number, ca: Buffer): string {
  const docs = parseAllDocuments(yaml.replaceAll("{{caBundle}}", ca.toString("base64")));
  let hooks = 0;
  for (const doc of docs) {
    const obj = doc.toJS() as { webhooks?: { clientConfig?: { url?: string }; timeoutSeconds?: number }[] } | null;
    for (const [i, hook] of (obj?.webhooks ?? []).entries()) {
      const url = hook.clientConfig?.url ?? "";
      if (!url.startsWith(WEBHOOK_SERVICE_URL)) throw new Error(`Karmada's webhook configuration: webhook ${i} calls ${url}, not ${WEBHOOK_SERVICE_URL}…`);
      doc.setIn(["webhooks", i, "clientConfig", "url"], `https://127.0.0.1:${port}/${url.slice(WEBHOOK_SERVICE_URL.length)}`);
      doc.setIn(["webhooks", i, "timeoutSeconds"], 10);
      hooks++;
    }
  }
  if (hooks === 0) throw new Error("Karmada's webhook configuration: no webhooks found");
  return docs.map((d) => d.toString()).join("");
}

/** An ExternalName Service (`localhost`) and the v1alpha1.cluster.karmada.io APIService naming it. */
async function registerClusterApi(kc: KubeConfig, port: number, ca: Buffer): Promise<void> {
  const { namespace, name } = KARMADA_AGGREGATED_APISERVER_SERVICE;
  await kc.makeApiClient(CoreV1Api).createNamespacedService({
    namespace,
    body: { metadata: { name, namespace }, spec: { type: "ExternalName", externalName: "localhost", ports: [{ name: "https", port, protocol: "TCP" }] } },
  });
  await kc.makeApiClient(ApiregistrationV1Api).createAPIService({
    body: {
      metadata: { name: `${CLUSTER_API.version}.${CLUSTER_API.group}` },
      spec: {
        ...CLUSTER_API,
        service: { namespace, name, port },
        caBundle: ca.toString("base64"),
        groupPriorityMinimum: 2000,
        versionPriority: 10,
      },
    },
  });
}

async function waitUntilApiServiceAvailable(kc: KubeConfig): Promise<void> {
  const api = kc.makeApiClient(ApiregistrationV1Api);
  const name = `${CLUSTER_API.version}.${CLUSTER_API.group}`;
  let last = "";
  await waitFor(
    async () => {
      const available = (await api.readAPIService({ name })).status?.conditions?.find((c) => c.type === "Available");
      last = `${available?.reason ?? ""}: ${available?.message ?? ""}`;
      return available?.status === "True";
    },
    { what: `APIService ${name} Available`, timeoutMs: readyTimeoutMs, intervalMs: 200 },
  ).catch((err: unknown) => {
    throw new Error(`${(err as Error).message} (last condition ${last})`, { cause: err });
  });
}

/** Waits until each named Cluster exists (its agent registered it) with Ready=True. */
async function waitUntilClustersReady(kc: KubeConfig, names: string[], processes: ManagedProcess[]): Promise<void> {
  const api = kc.makeApiClient(CustomObjectsApi);
  let last = "";
  let ready: Promise<unknown> = waitFor(
    async () => {
      const list = (await api.listClusterCustomObject({ ...CLUSTER_API, plural: "clusters" })) as {
        items: { metadata: { name: string }; spec?: { syncMode?: string }; status?: { conditions?: { type: string; status: string }[] } }[];
      };
      const readyNames = list.items
        .filter((c) => c.status?.conditions?.some((k) => k.type === "Ready" && k.status === "True"))
        .map((c) => `${c.metadata.name} (${c.spec?.syncMode})`);
      last = `Ready: ${readyNames.join(", ") || "none"}; registered: ${list.items.map((c) => c.metadata.name).join(", ") || "none"}`;
      return names.every((n) => readyNames.includes(`${n} (Pull)`));
    },
    { what: `Karmada Clusters ${names.join(", ")} Ready in Pull mode`, timeoutMs: readyTimeoutMs, intervalMs: 500 },
  ).catch((err: unknown) => {
    throw new Error(`${(err as Error).message} (${last})`, { cause: err });
  });
  for (const p of processes) ready = p.guard(ready);
  await ready;
}

async function httpStatus(port: number, path: string): Promise<number> {
  return (await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(2000) })).status;
}

