// What the kernel took of a listening socket's backlog, read with ss, and the cap it applies
// (net.core.somaxconn): tests of listeners that must not reset a storm of connections.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

/** The accept queue's length of the loopback socket listening on port: ss prints it as Send-Q. */
export function listenBacklog(port: number): number {
  const line = execFileSync("ss", ["-ltnH", `sport = :${port}`], { encoding: "utf8" }).trim();
  const backlog = Number(line.split(/\s+/)[2]);
  if (!Number.isInteger(backlog)) throw new Error(`no listening socket on port ${port} (ss: ${line})`);
  return backlog;
}

/** The kernel's cap on any listening socket's backlog. */
export function somaxconn(): number {
  return Number(readFileSync("/proc/sys/net/core/somaxconn", "utf8"));
}
