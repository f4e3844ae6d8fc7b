// What a member's pods log. kwok serves every container's log from one file of the cluster
// (Cluster.podLogPath, kwok.ts), in the CRI format a kubelet reads from a container runtime:
// `<RFC 3339 time> <stdout|stderr> F <line>`. A line appended is read by a `kubectl logs -f` that
// is already following the file, and by every later `kubectl logs` of any pod of that member.
import { appendFile } from "node:fs/promises";
import type { Cluster } from "./cluster.ts";

export interface PodLogOptions {
  /** The stream the line is on (default stdout); `kubectl logs` shows both. */
  stream?: "stdout" | "stderr";
  /** Its time (default now): what `--timestamps` shows and `--since`/`--since-time` filter on. */
  time?: Date;
}

/**
 * The CRI log entries of `text`, one full ("F") entry per line of it. A line ending in "\n"
 * is one line: the kubelet adds the newline back to each full entry.
 */
export function criLogEntries(text: string, opts: PodLogOptions = {}): string {
  const time = (opts.time ?? new Date()).toISOString();
  const stream = opts.stream ?? "stdout";
  const lines = text.endsWith("\n") ? text.slice(0, -1).split("\n") : text.split("\n");
  return lines.map((line) => `${time} ${stream} F ${line}\n`).join("");
}

/**
 * Appends `text` (one line, or several separated by "\n") to the log of every pod of a member:
 * `kubectl logs <any pod>` returns it from now on, and a `kubectl logs -f` that is following sees it
 * arrive. The file is shared by all pods, so a test that wants to tell its lines apart puts a
 * marker of its own in them.
 */
export async function appendPodLog(cluster: Pick<Cluster, "name" | "podLogPath">, text: string, opts: PodLogOptions = {}): Promise<void> {
  if (cluster.podLogPath === undefined) throw new Error(`${cluster.name} has no pod log: only a member's pods log (kwok serves them)`);
  await appendFile(cluster.podLogPath, criLogEntries(text, opts));
}
