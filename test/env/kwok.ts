import { mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import type { KubeConfig } from "@kubernetes/client-node";
import { CoreV1Api } from "@kubernetes/client-node";
import { binaryPath } from "./binaries.ts";
import { ManagedProcess } from "./managed-process.ts";

/** The annotation that marks the fake Nodes this kwok manages. */
export const KWOK_NODE_ANNOTATION = "kwok.x-k8s.io/node";

/** Capacity of each fake Node. */
export const FAKE_NODE_CAPACITY = { cpu: "16", memory: "64Gi", pods: "110" };

/**
 * Starts kwok with the stages kwokctl uses (nodes become Ready and keep a lease, pods become
 * Running). It serves nothing: no server address, no node port.
 */
export async function startKwok(opts: {
  binDir: string;
  dir: string;
  name: string;
  kubeconfig: string;
}): Promise<ManagedProcess> {
  const stagesDir = join(opts.binDir, "kwok-stages");
  const stages = (await readdir(stagesDir)).filter((f) => f.endsWith(".yaml")).sort();
  const home = join(opts.dir, "kwok-home");
  await mkdir(home, { recursive: true });
  return ManagedProcess.start({
    name: `${opts.name}-kwok`,
    command: binaryPath(opts.binDir, "kwok"),
    args: [
      `--kubeconfig=${opts.kubeconfig}`,
      `--config=${stages.map((s) => join(stagesDir, s)).join(",")}`,
      "--manage-all-nodes=false",
      `--manage-nodes-with-annotation-selector=${KWOK_NODE_ANNOTATION}=fake`,
      "--node-ip=127.0.0.1",
      "--cidr=10.244.0.0/16",
      "--node-lease-duration-seconds=40",
    ],
    env: { ...process.env, HOME: home },
    logFile: join(opts.dir, "kwok.log"),
  });
}

/** Creates `count` fake Nodes named `<cluster>-node-<i>` for kwok to run. */
export async function createFakeNodes(kc: KubeConfig, cluster: string, count: number): Promise<string[]> {
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
            annotations: { [KWOK_NODE_ANNOTATION]: "fake", "node.alpha.kubernetes.io/ttl": "0" },
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
