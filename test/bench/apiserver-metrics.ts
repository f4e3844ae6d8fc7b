// Write counts of a kube-apiserver, from its own /metrics (apiserver_request_total): what a
// benchmark diffs to say how many writes a run cost a cluster, independently of the clients.
import type { KubeRest } from "../../shared/kube-rest.ts";

/** Verbs apiserver_request_total uses for writes (APPLY is a server-side-apply PATCH). */
const WRITE_VERBS = new Set(["POST", "PUT", "PATCH", "APPLY", "DELETE", "DELETECOLLECTION"]);

/** Write requests served so far, by "VERB resource[/subresource]", with " (CODE)" appended when not 2xx. */
export type WriteCounts = Map<string, number>;

/** Parses a Prometheus text line `name{a="x",b="y"} value` into its labels and value. */
function parseLine(line: string, name: string): { labels: Record<string, string>; value: number } | undefined {
  if (!line.startsWith(`${name}{`)) return undefined;
  const close = line.lastIndexOf("}");
  if (close < 0) return undefined;
  const labels: Record<string, string> = {};
  for (const m of line.slice(name.length + 1, close).matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[m[1] as string] = m[2] as string;
  return { labels, value: Number(line.slice(close + 1).trim().split(/\s+/)[0]) };
}

/** Reads the apiserver's write counters (the admin credentials may read /metrics). */
export async function apiserverWrites(rest: KubeRest): Promise<WriteCounts> {
  const text = await rest.request<string>("GET", "/metrics");
  if (typeof text !== "string") throw new Error("apiserver /metrics did not answer text");
  const out: WriteCounts = new Map();
  for (const line of text.split("\n")) {
    const p = parseLine(line, "apiserver_request_total");
    if (p === undefined || !WRITE_VERBS.has(p.labels.verb ?? "")) continue;
    const resource = p.labels.subresource ? `${p.labels.resource}/${p.labels.subresource}` : (p.labels.resource ?? "?");
    const code = p.labels.code ?? "";
    const key = `${p.labels.verb} ${resource}${code.startsWith("2") ? "" : ` (${code})`}`;
    out.set(key, (out.get(key) ?? 0) + p.value);
  }
  return out;
}

/** after − before, dropping zeroes. */
export function diffWrites(before: WriteCounts, after: WriteCounts): WriteCounts {
  const out: WriteCounts = new Map();
  for (const [k, v] of after) {
    const d = v - (before.get(k) ?? 0);
    if (d !== 0) out.set(k, d);
  }
  return out;
}

/** The sum of counts, optionally only of resources that pass keep. */
export function totalWrites(c: WriteCounts, keep: (key: string) => boolean = () => true): number {
  let n = 0;
  for (const [k, v] of c) if (keep(k)) n += v;
  return n;
}

/** Adds b into a. */
export function addWrites(a: WriteCounts, b: WriteCounts): WriteCounts {
  const out: WriteCounts = new Map(a);
  for (const [k, v] of b) out.set(k, (out.get(k) ?? 0) + v);
  return out;
}

/** "VERB resource [(CODE)] n, …", largest first. */
export function formatWrites(c: WriteCounts): string {
  return [...c].sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0])).map(([k, v]) => `${k} ${v}`).join(", ");
}

/** Each apiserver's write counters, by the name it is given. */
export async function writesOf(rests: Map<string, KubeRest>): Promise<Map<string, WriteCounts>> {
  return new Map(await Promise.all([...rests].map(async ([n, r]) => [n, await apiserverWrites(r)] as const)));
}

/** after − before per apiserver. */
export function writesDiff(before: Map<string, WriteCounts>, after: Map<string, WriteCounts>): Map<string, WriteCounts> {
  return new Map([...after].map(([n, a]) => [n, diffWrites(before.get(n) ?? new Map(), a)]));
}

/** Whether a write key counts Lease writes (leader election, node and cluster heartbeats). */
export const isLease = (key: string) => / leases( \(|$)/.test(key);

/**
 * Whether a control-cluster write key comes with time, not with templates: Leases (leader
 * election), Cluster status and the ClusterProfiles' status that follows it (heartbeats), and
 * refused requests (not 2xx).
 */
export const isBackgroundWrite = (key: string) => isLease(key) || key.includes(" clusters/status") || key.includes(" clusterprofiles/status") || / \(\d+\)$/.test(key);
