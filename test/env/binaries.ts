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
export type BinaryName = (typeof BINARY_NAMES)[number];

const buildScript = fileURLToPath(new URL("./build-binaries.sh", import.meta.url));

let pending: Promise<string> | undefined;

/**
 * Returns the directory holding the pinned cluster binaries, building them first when the cache
 * lacks them. Build progress goes to this process's stderr. Safe to call from parallel processes:
 * the script builds under a lock, and a warm cache does no work.
 */
export function ensureBinaries(): Promise<string> {
  pending ??= runBuildScript().catch((err: unknown) => {
    pending = undefined;
    throw err;
  });
  return pending;
}

function runBuildScript(): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", [buildScript], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const dir = out.trim().split("\n").pop() ?? "";
      if (code === 0 && dir !== "") resolve(dir);
      else reject(new Error(`test/env: building the cluster binaries failed (exit ${code}); see the lines above`));
    });
  });
}

/** Absolute path of one binary in a directory from ensureBinaries. */
export function binaryPath(binDir: string, name: BinaryName): string {
  return join(binDir, name);
}
