// Real multi-cluster DNS serving for tests and `up`: ExternalDNS reads Flotilla's DNSEndpoints
// from the control cluster and writes SkyDNS records into its own etcd; CoreDNS answers from that
// etcd on a loopback port. Nothing listens beyond 127.0.0.1 and nothing dials out.
import { rmSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ApiextensionsV1Api, KubeConfig } from "@kubernetes/client-node";
import { binaryPath, ensureBinaries, ensureDnsBinaries } from "./binaries.ts";
import { onExit } from "./cleanup.ts";
import { resolveAt } from "./dns-client.ts";
import { startEtcd } from "./etcd.ts";
import { freePort } from "./free-port.ts";
import { ManagedProcess } from "./managed-process.ts";
import { retryOnPortClash } from "./port-retry.ts";
import { waitFor } from "./wait.ts";

/** The CRD ExternalDNS reads; it must be served before ExternalDNS starts (it checks at start). */
export const DNS_ENDPOINT_CRD = "dnsendpoints.multiclusterdns.flotilla.dev";
/** Where ExternalDNS's CoreDNS provider writes and CoreDNS's etcd plugin reads (both defaults). */
export const SKYDNS_PATH = "/skydns";

export interface DnsOptions {
  /** The DNS's own directory (Corefile, etcd data, logs); created, and removed by stop(). */
  dir: string;
  /** Admin kubeconfig of the control cluster, where the DNSEndpoints are. */
  controlKubeconfigPath: string;
  /** The cluster binaries (etcd); ensureBinaries() when absent. */
  binDir?: string;
  /** external-dns and coredns; ensureDnsBinaries() when absent. */
  dnsBinDir?: string;
  /**
   * ExternalDNS's --interval (default 500ms). Its loop looks once a second whether the interval
   * since the last sync's start has passed; with 1s it has not quite, so it syncs every 2 s. Any
   * interval under 1s syncs on every tick: once a second, the fastest it goes.
   */
  interval?: string;
  /** Zones CoreDNS serves from etcd (default ".": every name; unknown names are NXDOMAIN). */
  zones?: string[];
}

/** CoreDNS serving what ExternalDNS publishes. */
export interface DnsServer {
  /** "127.0.0.1:<port>", UDP and TCP: what a Resolver's setServers takes. */
  server: string;
  port: number;
  /** The etcd ExternalDNS writes into (SkyDNS keys under SKYDNS_PATH). */
  etcdUrl: string;
  processes: ManagedProcess[];
  /** Stops ExternalDNS, CoreDNS and etcd, and removes dir. Idempotent. */
  stop(): Promise<void>;
}

/**
 * The ExternalDNS arguments: DNSEndpoints of Flotilla's group as the only source, CoreDNS's etcd
 * as the provider. The noop registry with the sync policy makes etcd exactly the DNSEndpoints'
 * content: a name whose DNSEndpoint (or entry) is gone is deleted. That is safe only because this
 * etcd belongs to this ExternalDNS alone (a shared zone would need the txt registry's ownership).
 */
export function externalDnsArgs(opts: { kubeconfig: string; interval: string; metricsPort: number }): string[] {
  return [
    "--source=crd",
    "--crd-source-apiversion=multiclusterdns.flotilla.dev/v1alpha1",
    "--crd-source-kind=DNSEndpoint",
    "--provider=coredns",
    "--registry=noop",
    "--policy=sync",
    `--kubeconfig=${opts.kubeconfig}`,
    `--interval=${opts.interval}`,
    `--metrics-address=127.0.0.1:${opts.metricsPort}`,
    "--log-level=info",
  ];
}

/** The Corefile: the zones answered from etcd, on one loopback port, errors logged. */
export function corefile(opts: { port: number; etcdUrl: string; zones: string[] }): string {
  return [
    `${opts.zones.join(" ")}:${opts.port} {`,
    "  bind 127.0.0.1",
    "  errors",
    "  etcd {",
    `    path ${SKYDNS_PATH}`,
    `    endpoint ${opts.etcdUrl}`,
    "  }",
    "}",
    "",
  ].join("\n");
}

/**
 * Starts etcd, CoreDNS and ExternalDNS; resolves once CoreDNS answers and ExternalDNS is healthy.
 * Waits (up to a minute) for the DNSEndpoint CRD to be served in the control cluster, so it may
 * start alongside the control plane that installs it. On failure stops what it started.
 */
export async function startDns(opts: DnsOptions): Promise<DnsServer> {
  const [binDir, dnsBinDir] = await Promise.all([opts.binDir ?? ensureBinaries(), opts.dnsBinDir ?? ensureDnsBinaries()]);
  const { dir } = opts;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const processes: ManagedProcess[] = [];
  let stopped: Promise<void> | undefined;
  const unregisterDir = onExit(() => rmSync(dir, { recursive: true, force: true }));
  const stop = () => {
    stopped ??= (async () => {
      for (const p of [...processes].reverse()) await p.stop();
      await rm(dir, { recursive: true, force: true });
      unregisterDir();
    })();
    return stopped;
  };
  try {
    const etcd = await startEtcd({ binDir, dir, name: "dns" });
    processes.push(etcd.process);
    const zones = opts.zones ?? ["."];
    const coredns = await startCoreDns({
      dnsBinDir,
      dir,
      name: "coredns",
      corefile: (port) => corefile({ port, etcdUrl: etcd.clientUrl, zones }),
      answers: answersQueries,
    });
    processes.push(coredns.process);
    await waitForDnsEndpointCrd(opts.controlKubeconfigPath);
    processes.push(
      await startExternalDns({ dnsBinDir, dir, etcdUrl: etcd.clientUrl, kubeconfig: opts.controlKubeconfigPath, interval: opts.interval ?? "500ms" }),
    );
    return { server: `127.0.0.1:${coredns.port}`, port: coredns.port, etcdUrl: etcd.clientUrl, processes, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * Starts test/env's CoreDNS on a free loopback port with the Corefile `corefile(port)` gives (in
 * `<dir>/Corefile`, log in `<dir>/<name>.log`); resolves once `answers(port)`, within 30 s. A start
 * that lost its port to another process is tried again on a fresh one; on failure it is stopped.
 */
export function startCoreDns(opts: {
  dnsBinDir: string;
  dir: string;
  name: string;
  corefile: (port: number) => string;
  answers: (port: number) => Promise<boolean>;
}): Promise<{ process: ManagedProcess; port: number }> {
  return retryOnPortClash(async () => {
    const port = await freePort();
    const conf = join(opts.dir, "Corefile");
    await writeFile(conf, opts.corefile(port));
    const answers = () => opts.answers(port);
    const process = ManagedProcess.start({
      name: opts.name,
      command: binaryPath(opts.dnsBinDir, "coredns"),
      args: ["-conf", conf],
      logFile: join(opts.dir, `${opts.name}.log`),
      ready: answers,
    });
    try {
      await process.guard(waitFor(answers, { what: `${opts.name} answering`, timeoutMs: 30_000, intervalMs: 100 }));
    } catch (err) {
      await process.stop(0);
      throw err;
    }
    return { process, port };
  });
}

/** Whether a DNS server answers on 127.0.0.1:port (any answer, NXDOMAIN included). */
async function answersQueries(port: number): Promise<boolean> {
  try {
    await resolveAt(`127.0.0.1:${port}`, "flotilla-probe.invalid", "A");
    return true;
  } catch {
    return false;
  }
}

async function waitForDnsEndpointCrd(kubeconfigPath: string): Promise<void> {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const ext = kc.makeApiClient(ApiextensionsV1Api);
  await waitFor(
    async () => {
      const crd = await ext.readCustomResourceDefinition({ name: DNS_ENDPOINT_CRD });
      return crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True");
    },
    {
      what: `the ${DNS_ENDPOINT_CRD} CRD in the control cluster (control-plane/crds/dnsendpoints.yaml; the control plane installs it at start)`,
      timeoutMs: 60_000,
      intervalMs: 200,
    },
  );
}

function startExternalDns(opts: { dnsBinDir: string; dir: string; etcdUrl: string; kubeconfig: string; interval: string }) {
  return retryOnPortClash(async () => {
    const metricsPort = await freePort();
    const healthy = async () => {
      const res = await fetch(`http://127.0.0.1:${metricsPort}/healthz`, { signal: AbortSignal.timeout(2_000) });
      return res.ok;
    };
    const process = ManagedProcess.start({
      name: "external-dns",
      command: binaryPath(opts.dnsBinDir, "external-dns"),
      args: externalDnsArgs({ kubeconfig: opts.kubeconfig, interval: opts.interval, metricsPort }),
      env: { ...globalThis.process.env, ETCD_URLS: opts.etcdUrl },
      logFile: join(opts.dir, "external-dns.log"),
      ready: () => healthy().catch(() => false),
    });
    try {
      await process.guard(
        waitFor(() => healthy().catch(() => false), { what: "ExternalDNS /healthz", timeoutMs: 60_000, intervalMs: 100 }),
      );
    } catch (err) {
      await process.stop(0);
      throw err;
    }
    return process;
  });
}
