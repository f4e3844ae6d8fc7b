// A hub proxy spread over several processes listening on one port (SO_REUSEPORT: the kernel
// spreads new connections over them). A process holds two descriptors per forwarded connection,
// so one process cannot forward more connections than half its open-files limit: bench:fleet's
// 10,000 agents with --replicas 3 need 20,000 where this machine's limit is 20,000.
import { type ChildProcess, fork } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { onExit } from "./cleanup.ts";
import { freePort } from "./free-port.ts";
import type { HubProxy } from "./hub-proxy.ts";

const childFile = fileURLToPath(new URL("./hub-proxy-process.ts", import.meta.url));
const startTimeoutMs = 10_000;

/** Starts `processes` forwarders on one free loopback port; close() stops them all. */
export async function startHubProxyProcesses(backends: number[], processes: number): Promise<HubProxy> {
  const port = await freePort();
  const children: ChildProcess[] = [];
  // Killed with this process even when it exits without close() (the children also exit when their IPC channel goes).
  const unregister = onExit(() => {
    for (const c of children) c.kill("SIGKILL");
  });
  const close = async () => {
    unregister();
    await Promise.all(
      children.map(async (c) => {
        if (c.exitCode !== null || c.signalCode !== null) return;
        const exited = once(c, "exit");
        if (c.connected) c.disconnect();
        const timer = setTimeout(() => c.kill("SIGKILL"), 5_000);
        await exited;
        clearTimeout(timer);
      }),
    );
  };
  try {
    for (let i = 0; i < processes; i++) {
      const child = fork(childFile, [String(port), ...backends.map(String)], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
      children.push(child);
      // A fork that fails, or a send on a channel that just closed, is the child's exit's business, not a crash here.
      child.on("error", () => undefined);
      const listening = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`hub proxy process ${i + 1}: not listening after ${startTimeoutMs} ms`)), startTimeoutMs);
        child.once("message", () => {
          clearTimeout(timer);
          resolve();
        });
        child.once("exit", (code) => {
          clearTimeout(timer);
          reject(new Error(`hub proxy process ${i + 1} exited (${code})`));
        });
      });
      await listening;
    }
  } catch (err) {
    await close();
    throw err;
  }
  return {
    port,
    add: (backend) => {
      for (const c of children) if (c.connected) c.send({ add: backend }, () => undefined);
    },
    close,
    pids: children.flatMap((c) => (c.pid === undefined ? [] : [c.pid])),
  };
}
