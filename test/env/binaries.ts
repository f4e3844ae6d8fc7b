import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The binaries test/env builds (or finds through FLOTILLA_BIN_DIR). */
export const BINARY_NAMES = [
  "kube-apiserver",
  "kube-controller-manager",
  "kube-scheduler",
  "kubectl",
  "kwok",
  "helm",
  "etcd",
] as const;
/** The DNS binaries (`build-binaries.sh dns`, or FLOTILLA_DNS_BIN_DIR): only DNS tests need them. */
export const DNS_BINARY_NAMES = ["external-dns", "coredns"] as const;
/**
 * The metrics binaries (`build-binaries.sh metrics`, or FLOTILLA_METRICS_BIN_DIR), beside
 * `kwok-metrics/` (kwok's resource-usage CRDs and its /metrics/resource Metric): only fleets
 * started with `metrics` need them.
 */
export const METRICS_BINARY_NAMES = ["metrics-server"] as const;
/**
 * Karmada v1.18.0's control plane and agent (`build-binaries.sh karmada`, or
 * FLOTILLA_KARMADA_BIN_DIR), beside `karmada-crds/` (its CRDs and webhook configurations, from the
 * module): only tests that run Karmada (karmada.ts) need them.
 */
export const KARMADA_BINARY_NAMES = [
  "karmada-aggregated-apiserver",
  "karmada-controller-manager",
  "karmada-scheduler",
  "karmada-webhook",
  "karmada-agent",
] as const;
export type BinaryName =
  | (typeof BINARY_NAMES)[number]
  | (typeof DNS_BINARY_NAMES)[number]
  | (typeof METRICS_BINARY_NAMES)[number]
  | (typeof KARMADA_BINARY_NAMES)[number];

const buildScript = fileURLToPath(new URL("./build-binaries.sh", import.meta.url));

type BinaryGroup = "cluster" | "dns" | "metrics" | "karmada";
const pending = new Map<BinaryGroup, Promise<string>>();

/**
 * Returns the directory holding the pinned cluster binaries, building them first when the cache
 * lacks them. Build progress goes to this process's stderr. Safe to call from parallel processes:
 * the script builds under a lock, and a warm cache does no work.
 */
export function ensureBinaries(): Promise<string> {
  return ensureGroup("cluster");
}

/** The same for external-dns and coredns, which have their own cache entry and lock. */
export function ensureDnsBinaries(): Promise<string> {
  return ensureGroup("dns");
}

/** The same for metrics-server and kwok's metrics files, in their own cache entry and lock. */
export function ensureMetricsBinaries(): Promise<string> {
  return ensureGroup("metrics");
}

/**
 * The same for Karmada's binaries and its CRDs, in their own cache entry and lock. The test run's
 * global setup builds them before any file runs, so a cold build (minutes) counts against no test
 * file's time budget.
 */
export function ensureKarmadaBinaries(): Promise<string> {
  return ensureGroup("karmada");
}

function ensureGroup(group: BinaryGroup): Promise<string> {
  let p = pending.get(group);
  if (p === undefined) {
    p = runBuildScript(group).catch((err: unknown) => {
      pending.delete(group);
      throw err;
    });
    pending.set(group, p);
  }
  return p;
}

function runBuildScript(group: BinaryGroup): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", [buildScript, group], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const dir = out.trim().split("\n").pop() ?? "";
      if (code === 0 && dir !== "") resolve(dir);
      else reject(new Error(`test/env: building the ${group} binaries failed (exit ${code}); see the lines above`));
    });
  });
}

/** Absolute path of one binary in a directory from ensureBinaries. */
export function binaryPath(binDir: string, name: BinaryName): string {
  return join(binDir, name);
}
