// Helpers for end-to-end tests: kubectl against the test clusters, and reads of what users see.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { ensureBinaries } from "../env/binaries.ts";
import type { Cluster } from "../env/cluster.ts";
import { goCommandEnv } from "../env/managed-process.ts";
import { waitFor } from "../env/wait.ts";
import { parseGetArgs } from "./get-args.ts";
import { ASK_KUBECTL, restGet } from "./rest-get.ts";

const run = promisify(execFile);

/** Runs the pinned kubectl against a cluster; stdin is `input`. Rejects with stderr on failure. */
export async function kubectl(cluster: Cluster, args: string[], input?: string): Promise<string> {
  const bin = join(await ensureBinaries(), "kubectl");
  return new Promise((resolve, reject) => {
    // Bounded, so a kubectl that never returns (a delete waiting on a finalizer) fails the test instead of stalling the run.
    const child = execFile(bin, ["--kubeconfig", cluster.kubeconfigPath, ...args], { encoding: "utf8", timeout: 180_000, killSignal: "SIGKILL", env: goCommandEnv() }, (err, stdout, stderr) => {
      if (err) reject(Object.assign(new Error(`kubectl ${args.join(" ")}: ${stderr.trim() || err.message}`), { stderr, code: (err as { code?: number }).code }));
      else resolve(stdout);
    });
    child.stdin?.end(input ?? "");
  });
}

/** What a command printed and how it ended. */
export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command and resolves with its exit code and output, never rejecting for a non-zero exit.
 * A command still running after timeoutMs is killed and reported as exit code 124 with a note on
 * stderr, so a hang fails the test with what the command printed instead of stalling the run.
 */
export function runCommand(file: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<CommandResult> {
  const timeoutMs = opts.timeoutMs ?? 90_000;
  return new Promise((resolve) => {
    execFile(file, args, { cwd: opts.cwd, env: opts.env, encoding: "utf8", timeout: timeoutMs, killSignal: "SIGKILL", maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err && (err as { killed?: boolean }).killed) return resolve({ code: 124, stdout, stderr: `${stderr}\n[killed: still running after ${timeoutMs} ms]` });
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** A Deployment template as JSON: one container, its pods labelled app=<name>. */
export function deploymentJson(name: string, namespace: string, replicas: number, image = "nginx"): string {
  return JSON.stringify({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image }] } } },
  });
}

/**
 * A PropagationPolicy, named like the Deployment it selects, that places it on the named clusters;
 * placement: more of its placement (replicaScheduling, spreadConstraints, …).
 */
export function placementPolicyJson(name: string, namespace: string, clusters: string[], placement: Record<string, unknown> = {}): string {
  return JSON.stringify({
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "PropagationPolicy",
    metadata: { name, namespace },
    spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name }], placement: { clusterAffinity: { clusterNames: clusters }, ...placement } },
  });
}

/** kubectl apply -f - with the given YAML. */
export function apply(cluster: Cluster, yaml: string): Promise<string> {
  return kubectl(cluster, ["apply", "-f", "-"], yaml);
}

/**
 * What `kubectl get ARGS -o json` prints, or undefined when it does not exist. Read in this process
 * (rest-get.ts) for the forms get-args.ts reads; anything else runs kubectl.
 */
export async function getJson<T = Record<string, unknown>>(cluster: Cluster, args: string[]): Promise<T | undefined> {
  const req = parseGetArgs(args);
  if (req !== undefined) {
    let got: Awaited<ReturnType<typeof restGet>>;
    try {
      got = await restGet(cluster.kubeconfigPath, req);
    } catch (err) {
      throw new Error(`get ${args.join(" ")}: ${(err as Error).message}`, { cause: err });
    }
    if (got !== ASK_KUBECTL) return got as T | undefined;
  }
  return kubectlGetJson(cluster, args);
}

/** getJson through a kubectl process. */
export async function kubectlGetJson<T = Record<string, unknown>>(cluster: Cluster, args: string[]): Promise<T | undefined> {
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

/** An agent's deletions by reason (flotilla_agent_deletes_total{reason}), leaving out reasons at 0. */
export function deletions(metrics: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(metrics).filter(([k, v]) => k.startsWith("flotilla_agent_deletes_total") && v > 0));
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The stderr of a kubectl run that must fail (an apiserver's or webhook's refusal); fails the test if it succeeded. */
export async function refusal(run: Promise<unknown>): Promise<string> {
  try {
    await run;
  } catch (err) {
    return String((err as { stderr?: string }).stderr ?? err);
  }
  throw new Error("the apiserver accepted it");
}

export { run };
