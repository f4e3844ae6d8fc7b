// Node.js's floor beside the agent (bench:agent-rss, issue 42): with the agent's Node flags, a bare
// `node` idling, and one that only holds a TLS gRPC channel open to the hub (node-floor-client.ts,
// bundled as the agent is). What the agent holds above the second is its own.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildBundle } from "../../scripts/bundle.ts";

/** The two floor processes, running. */
export interface NodeFloor {
  bare: number;
  grpc: number;
  stop(): Promise<void>;
}

/** Starts both with `nodeArgs` (and this process's NODE_OPTIONS); resolves once the gRPC client's channel is ready. */
export async function startNodeFloor(nodeArgs: readonly string[], hub: { address: string; serverName: string; caFile: string; certFile: string; keyFile: string }): Promise<NodeFloor> {
  const dir = await mkdtemp(join(tmpdir(), "flotilla-node-floor-"));
  const client = join(dir, "client.mjs");
  await buildBundle(fileURLToPath(new URL("./node-floor-client.ts", import.meta.url)), client, { production: true });
  // The agent's environment: NODE_OPTIONS (the bench's --node-options) and no compile cache.
  const env = process.env;
  const bare = spawn(process.execPath, [...nodeArgs, "-e", "setInterval(() => undefined, 1 << 30)"], { env, stdio: "ignore" });
  const grpc = spawn(process.execPath, [...nodeArgs, client, hub.address, hub.serverName, hub.caFile, hub.certFile, hub.keyFile], { env, stdio: ["ignore", "pipe", "inherit"] });
  const stop = async () => {
    for (const p of [bare, grpc]) p.kill();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await ready(grpc);
  } catch (err) {
    await stop();
    throw err;
  }
  return { bare: bare.pid ?? 0, grpc: grpc.pid ?? 0, stop };
}

function ready(p: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    p.stdout?.setEncoding("utf8").on("data", (s: string) => {
      if (s.includes("ready")) resolve();
    });
    p.on("exit", (code) => reject(new Error(`the floor's gRPC client exited (${code}) before its channel was ready`)));
  });
}
