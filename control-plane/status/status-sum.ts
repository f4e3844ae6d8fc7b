// The fleet sum the hub writes to a template's .status (DESIGN §6). The caller passes only the
// member statuses of clusters that are current targets, so a lost cluster is never counted twice.

const REPLICA_FIELDS = ["replicas", "readyReplicas", "availableReplicas", "updatedReplicas"];
const DAEMONSET_FIELDS = [
  "currentNumberScheduled",
  "desiredNumberScheduled",
  "numberAvailable",
  "numberMisscheduled",
  "numberReady",
  "updatedNumberScheduled",
];
const JOB_FIELDS = ["active", "succeeded", "failed"];

const COUNT_FIELDS: Record<string, string[]> = {
  Deployment: REPLICA_FIELDS,
  StatefulSet: REPLICA_FIELDS,
  ReplicaSet: REPLICA_FIELDS,
  DaemonSet: DAEMONSET_FIELDS,
  Job: JOB_FIELDS,
};

/** Kinds whose template .status sumWorkloadStatus fills. */
export const summableKinds: ReadonlySet<string> = new Set([...Object.keys(COUNT_FIELDS), "Service"]);

/** The template .status for kind summed over member statuses, or undefined when the kind has none to write. */
export function sumWorkloadStatus(
  kind: string,
  statuses: Record<string, unknown>[],
): Record<string, unknown> | undefined {
  if (kind === "Service") return { loadBalancer: unionIngress(statuses) };
  const fields = COUNT_FIELDS[kind];
  if (!fields) return undefined;
  const sum: Record<string, unknown> = {};
  for (const field of fields) sum[field] = statuses.reduce((total, s) => total + count(s[field]), 0);
  return sum;
}

/** Union of every member's load balancer ingress, one entry per ip/hostname, sorted for a stable write. */
function unionIngress(statuses: Record<string, unknown>[]): Record<string, unknown> {
  const byKey = new Map<string, Record<string, unknown>>();
  for (const s of statuses) {
    const ingress = asRecord(s.loadBalancer).ingress;
    if (!Array.isArray(ingress)) continue;
    for (const entry of ingress) {
      const e = asRecord(entry);
      const key = ingressKey(e);
      if (key === "|") continue;
      if (!byKey.has(key)) byKey.set(key, e);
    }
  }
  if (byKey.size === 0) return {}; // what Kubernetes itself writes when there is none
  // Keys are "ip|hostname": entries with an ip sort first, then those with only a hostname.
  const keys = [...byKey.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { ingress: keys.map((k) => byKey.get(k)) };
}

function ingressKey(e: Record<string, unknown>): string {
  const ip = typeof e.ip === "string" ? e.ip : "";
  const hostname = typeof e.hostname === "string" ? e.hostname : "";
  return `${ip}|${hostname}`;
}

/**
 * Whether every field of want equals the same field in have (have may hold more: the apiserver
 * adds fields of its own, such as null times on conditions). Lists match item by item.
 */
export function statusHolds(want: unknown, have: unknown): boolean {
  if (typeof want !== "object" || want === null) return (want ?? 0) === (have ?? 0);
  if (typeof have !== "object" || have === null) return false;
  if (Array.isArray(want)) return Array.isArray(have) && have.length === want.length && want.every((w, i) => statusHolds(w, have[i]));
  return Object.entries(want).every(([k, v]) => statusHolds(v, (have as Record<string, unknown>)[k]));
}

function count(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) ? v : 0;
}

function asRecord(v: unknown): Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
