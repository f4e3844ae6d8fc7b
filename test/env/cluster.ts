import { rmSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { pino } from "pino";
import { ensureBinaries, ensureMetricsBinaries } from "./binaries.ts";
import { onExit } from "./cleanup.ts";
import { CONTROL_CLUSTER_CONTROLLERS, MEMBER_CLUSTER_CONTROLLERS, startKubeControllerManager, startKubeScheduler } from "./controllers.ts";
import { startEtcd } from "./etcd.ts";
import { etcdSeed, seedWanted } from "./etcd-seed.ts";
import { startKubeApiserver } from "./kube-apiserver.ts";
import { writeKubeconfig } from "./kubeconfig.ts";
import { createFakeNodes, installUsageCrds, type KwokMetrics, startKwok } from "./kwok.ts";
import type { ManagedProcess } from "./managed-process.ts";
import { loadBalancerBlock } from "./address-pool.ts";
import { type LoadBalancers, startLoadBalancers } from "./load-balancers.ts";
import { startMetricsServer } from "./metrics-server.ts";
import { installFallbackUsage } from "./usage.ts";
import { type AggregationPki, adminCredentials, makeAggregationPki, makeClusterPki, makeWebhookClientPki, WEBHOOK_CLIENT_NAME } from "./pki.ts";
import { withStartSlot } from "./start-slots.ts";
import { waitFor } from "./wait.ts";
import { allSettledOrThrow } from "./all-settled.ts";

/** control: apiserver + etcd + GC/namespace controllers, no workloads. member: runs workloads on kwok. */
export type ClusterRole = "control" | "member";

export interface ClusterOptions {
  name: string;
  role: ClusterRole;
  /** The cluster's own directory (certs, etcd data, logs); created, and removed by stop(). */
  dir: string;
  /** Fake Nodes in a member (default 2). */
  nodes?: number;
  binDir?: string;
  /** Keep an audit log of every write at `<dir>/audit.log` (see kube-apiserver.ts). */
  audit?: boolean;
  /**
   * A member's load balancers get addresses from 127.0.<block>.0/24 (load-balancers.ts); default
   * 100 + N for a cluster named memberN, else 100.
   */
  loadBalancerBlock?: number;
  /**
   * A member runs metrics-server (registered as v1beta1.metrics.k8s.io) and kwok reports pod usage
   * from ResourceUsage objects (usage.ts); off by default, so other clusters pay nothing.
   */
  metrics?: boolean;
  /** Where metrics-server and kwok's metrics files are (default: ensureMetricsBinaries()). */
  metricsBinDir?: string;
  /**
   * A member runs every controller kube-controller-manager turns on by default (StatefulSets,
   * DaemonSets, CronJobs, …), as the local fleet of `npm run up` does for people; tests run only
   * MEMBER_CLUSTER_CONTROLLERS, which is cheaper.
   */
  allControllers?: boolean;
}

/** A running test cluster on loopback ports. */
export interface Cluster {
  name: string;
  role: ClusterRole;
  dir: string;
  /** https://127.0.0.1:PORT */
  server: string;
  /** Admin kubeconfig (client cert in O=system:masters). */
  kubeconfigPath: string;
  processes: ManagedProcess[];
  /** Every loopback port the cluster's processes listen on. */
  ports: number[];
  /** Its etcd's client URL (data in `<dir>/etcd`). */
  etcdUrl: string;
  /** The apiserver's audit log (JSON lines), when started with `audit`. */
  auditLogPath?: string;
  /**
   * A member's pod log: what `kubectl logs` (and `logs -f`) of any container of any pod returns,
   * served by kwok as each Node's kubelet. appendPodLog (pod-logs.ts) writes to it. Absent in a
   * control cluster.
   */
  podLogPath?: string;
  /** A member's cloud: addresses of its LoadBalancer Services and Ingresses (absent in a control cluster). */
  loadBalancers?: LoadBalancers;
  /**
   * A control cluster's apiserver presents a client certificate to admission webhooks: the CA that
   * signed it (PEM file) and its common name, what a webhook checks its callers against.
   */
  webhookClient?: { caCert: string; name: string };
  /** A client-node KubeConfig for the admin user. */
  kubeConfig(): KubeConfig;
  /** Kills every process at once (SIGKILL: the cluster is thrown away) and removes dir. Idempotent. */
  stop(): Promise<void>;
}

const readyTimeoutMs = 90_000;

/** Starts one cluster; on failure stops what it started and throws with the failing log's tail. */
export async function startCluster(opts: ClusterOptions): Promise<Cluster> {
  return withStartSlot(() => startClusterNow(opts));
}

async function startClusterNow(opts: ClusterOptions): Promise<Cluster> {
  const binDir = opts.binDir ?? (await ensureBinaries());
  const { name, dir } = opts;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const processes: ManagedProcess[] = [];
  let loadBalancers: LoadBalancers | undefined;
  let loadBalancersLog: ReturnType<typeof pino.destination> | undefined;
  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      await loadBalancers?.stop();
      loadBalancersLog?.end();
      // Every process at once, with SIGKILL: the directory (etcd's data with it) goes right after,
      // so no process has anything to finish, and a SIGTERM only costs its grace period.
      await Promise.all(processes.map((p) => p.kill()));
      await rm(dir, { recursive: true, force: true });
      unregisterDir();
    })();
    return stopped;
  };
  const unregisterDir = onExit(() => {
    // processes are killed by their own exit hooks first (registered later, run earlier)
    rmSync(dir, { recursive: true, force: true });
  });
  try {
    // etcd needs no certificate: it starts while openssl makes them, from the seed (etcd-seed.ts).
    const [pki, etcd] = await allSettledOrThrow([
      makeClusterPki(dir),
      (seedWanted() ? etcdSeed(binDir) : Promise.resolve(undefined)).then((seed) => startEtcd({ binDir, dir, name, seed })).then((e) => {
        processes.push(e.process);
        return e;
      }),
    ] as const);
    const auditLogPath = opts.audit ? join(dir, "audit.log") : undefined;
    const metrics = opts.metrics === true && opts.role === "member";
    const metricsBinDir = metrics ? (opts.metricsBinDir ?? (await ensureMetricsBinaries())) : undefined;
    const aggregation: AggregationPki | undefined = metrics ? await makeAggregationPki(dir, pki) : undefined;
    const webhookClient = opts.role === "control" ? await makeWebhookClientPki(dir, pki) : undefined;
    const apiserver = await startKubeApiserver({ binDir, dir, name, etcdUrl: etcd.clientUrl, pki, auditLogPath, aggregation, webhookClient });
    processes.push(apiserver.process);
    const kubeconfigPath = join(dir, "admin.kubeconfig");
    await writeKubeconfig(kubeconfigPath, name, apiserver.server, await adminCredentials(pki));
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfigPath);
    const common = { binDir, dir, name, kubeconfig: kubeconfigPath };
    const ports = [...etcd.ports, apiserver.port];
    let podLogPath: string | undefined;
    if (opts.role === "control") {
      processes.push(startKubeControllerManager({ ...common, pki, controllers: CONTROL_CLUSTER_CONTROLLERS }));
    } else {
      processes.push(startKubeControllerManager({ ...common, pki, controllers: opts.allControllers ? ["*"] : MEMBER_CLUSTER_CONTROLLERS }));
      processes.push(startKubeScheduler(common));
      let kwokMetrics: KwokMetrics | undefined;
      if (metricsBinDir !== undefined) {
        const filesDir = join(metricsBinDir, "kwok-metrics");
        await installUsageCrds(kc, filesDir);
        await installFallbackUsage(kc);
        kwokMetrics = { filesDir };
      }
      // The Nodes are created once kwok serves: a kwok that loses the race for its port dies after
      // its controllers started, so it could have written that port into them as their kubelet
      // port, and the kwok started in its place leaves Ready Nodes as they are.
      const kwok = await startKwok({ ...common, tls: pki, metrics: kwokMetrics });
      processes.push(kwok.process);
      ports.push(kwok.port);
      podLogPath = kwok.podLogPath;
      await createFakeNodes(kc, name, opts.nodes ?? 2, { metrics });
      await waitUntilMemberReady(kc, name, processes);
      if (metricsBinDir !== undefined && aggregation !== undefined) {
        const ms = await startMetricsServer({ metricsBinDir, dir, name, kubeconfig: kubeconfigPath, kc, pki, aggregation });
        processes.push(ms.process);
        ports.push(ms.port);
      }
      // Its log goes beside the cluster's other logs: a test that stops the member's apiserver on
      // purpose (chaos, never-destroy) would otherwise fill the test output with watch retries.
      loadBalancersLog = pino.destination({ dest: join(dir, "load-balancers.log"), sync: true });
      const log = pino({ name: `${name}-load-balancers`, level: process.env.FLOTILLA_TEST_LOG_LEVEL ?? "info", base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime }, loadBalancersLog);
      loadBalancers = await startLoadBalancers({ kc, block: opts.loadBalancerBlock ?? loadBalancerBlock(name), log });
    }
    const cluster: Cluster = {
      name,
      role: opts.role,
      dir,
      server: apiserver.server,
      kubeconfigPath,
      auditLogPath,
      processes,
      loadBalancers,
      podLogPath,
      ...(webhookClient === undefined ? {} : { webhookClient: { caCert: pki.caCert, name: WEBHOOK_CLIENT_NAME } }),
      ports,
      etcdUrl: etcd.clientUrl,
      kubeConfig: () => {
        const k = new KubeConfig();
        k.loadFromFile(kubeconfigPath);
        return k;
      },
      stop,
    };
    return cluster;
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * A member is ready when every fake Node is Ready without the not-ready taint (kwok and the node
 * lifecycle controller work) and the default ServiceAccount exists (pods can be admitted).
 */
async function waitUntilMemberReady(kc: KubeConfig, name: string, processes: ManagedProcess[]): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  const ready = waitFor(
    async () => {
      const nodes = await core.listNode();
      const allReady = nodes.items.every(
        (n) =>
          n.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") &&
          !(n.spec?.taints ?? []).some((t) => t.key.startsWith("node.kubernetes.io/")),
      );
      if (!allReady || nodes.items.length === 0) return false;
      await core.readNamespacedServiceAccount({ name: "default", namespace: "default" });
      return true;
    },
    { what: `${name} nodes Ready and default ServiceAccount`, timeoutMs: readyTimeoutMs, intervalMs: 100 },
  );
  // If any component dies while we wait, fail with its log rather than a timeout.
  let guarded: Promise<boolean> = ready;
  for (const p of processes) guarded = p.guard(guarded);
  await guarded;
}

