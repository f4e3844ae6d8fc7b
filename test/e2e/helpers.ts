// Helpers for end-to-end tests: kubectl against the test clusters, and reads of what users see.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { ensureBinaries } from "../env/binaries.ts";
import type { Cluster } from "../env/cluster.ts";
import { waitFor } from "../env/wait.ts";

const run = promisify(execFile);

/** Runs the pinned kubectl against a cluster; stdin is `input`. Rejects with stderr on failure. */
export async function kubectl(cluster: Cluster, args: string[], input?: string): Promise<string> {
  const bin = join(await ensureBinaries(), "kubectl");
  return new Promise((resolve, reject) => {
    const child = execFile(bin, ["--kubeconfig", cluster.kubeconfigPath, ...args], { encoding: "utf8" }, (err, stdout, stderr) => {
      if (err) reject(Object.assign(new Error(`kubectl ${args.join(" ")}: ${stderr.trim() || err.message}`), { stderr, code: (err as { code?: number }).code }));
      else resolve(stdout);
    });
    child.stdin?.end(input ?? "");
  });
}

/** kubectl apply -f - with the given YAML. */
export function apply(cluster: Cluster, yaml: string): Promise<string> {
  return kubectl(cluster, ["apply", "-f", "-"], yaml);
}

/** kubectl get … -o json, or undefined when it does not exist. */
export async function getJson<T = Record<string, unknown>>(cluster: Cluster, args: string[]): Promise<T | undefined> {
  try {
    return JSON.parse(await kubectl(cluster, ["get", ...args, "-o", "json"])) as T;
  } catch (err) {
    if (/NotFound|not found/.test(String((err as { stderr?: string }).stderr ?? err))) return undefined;
    throw err;
  }
}

/** Waits until get(...) returns an object for which check holds; returns it. */
export function eventually<T>(what: string, get: () => Promise<T | undefined>, check: (v: T) => boolean, timeoutMs = 60_000): Promise<T> {
  return waitFor(
    async () => {
      const v = await get();
      return v !== undefined && check(v) ? v : undefined;
    },
    { what, timeoutMs, intervalMs: 250 },
  );
}

export interface AggregatedItem {
  clusterName: string;
  applied?: boolean;
  reason?: string;
  message?: string;
  health?: string;
}

export interface BindingJson {
  metadata: { name: string; finalizers?: string[] };
  spec: { clusters: { name: string; replicas?: number }[] };
  status?: { aggregatedStatus?: AggregatedItem[]; conditions?: { type: string; status: string; reason: string; message: string }[] };
}

/** The status word of one cluster in a binding ("" when as desired). */
export function clusterItem(b: BindingJson, cluster: string): AggregatedItem | undefined {
  return b.status?.aggregatedStatus?.find((i) => i.clusterName === cluster);
}

export function condition(b: BindingJson, type: string) {
  return b.status?.conditions?.find((c) => c.type === type);
}

export { run };
