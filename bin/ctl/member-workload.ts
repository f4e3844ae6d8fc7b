// What `logs` and `events` read of a workload in a member: the pods it selects (a Pod is its own),
// the containers to read, and the log request for each. Pure.

/** A Kubernetes label selector (metav1.LabelSelector). */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/** What the workload's object says of its pods. */
export type PodsOf = { pod: string } | { selector: string } | { error: string };

/**
 * The pods of a workload: a Pod itself; the pods its spec.selector selects (Deployment,
 * StatefulSet, DaemonSet, ReplicaSet, Job, a CRD's with a LabelSelector; or a plain map, as a
 * ReplicationController's or a Service's).
 */
export function podsOf(obj: { kind?: string; metadata?: { name?: string }; spec?: { selector?: unknown } }): PodsOf {
  if (obj.kind === "Pod") return { pod: obj.metadata?.name ?? "" };
  const sel = obj.spec?.selector;
  if (sel === undefined || sel === null || typeof sel !== "object") return { error: `${obj.kind ?? "the object"} ${obj.metadata?.name ?? ""} has no spec.selector: name a Pod or a workload that selects pods` };
  const s = sel as LabelSelector & Record<string, unknown>;
  const labelSelector = "matchLabels" in s || "matchExpressions" in s ? selectorString(s) : selectorString({ matchLabels: s as Record<string, string> });
  if (labelSelector === "") return { error: `${obj.kind ?? "the object"} ${obj.metadata?.name ?? ""} selects every pod (an empty selector): name a pod` };
  return { selector: labelSelector };
}

/** A LabelSelector as the labelSelector query kubectl sends: `app=web,tier in (a,b),!canary`. */
export function selectorString(s: LabelSelector): string {
  const labels = Object.entries(s.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  const expressions = (s.matchExpressions ?? []).map((e) => {
    const values = [...(e.values ?? [])].sort().join(",");
    switch (e.operator) {
      case "In":
        return `${e.key} in (${values})`;
      case "NotIn":
        return `${e.key} notin (${values})`;
      case "Exists":
        return e.key;
      default:
        return `!${e.key}`;
    }
  });
  return [...labels, ...expressions].join(",");
}

/** The containers of a pod to read: the one -c names (it must be one of the pod's), else every one of spec.containers. */
export function containersToRead(pod: { spec?: { containers?: { name: string }[]; initContainers?: { name: string }[]; ephemeralContainers?: { name: string }[] } }, container: string | undefined): string[] | { error: string } {
  const main = (pod.spec?.containers ?? []).map((c) => c.name);
  if (container === undefined || container === "") return main;
  const all = [...main, ...(pod.spec?.initContainers ?? []).map((c) => c.name), ...(pod.spec?.ephemeralContainers ?? []).map((c) => c.name)];
  return all.includes(container) ? [container] : { error: `no container ${container} (it has ${all.join(", ") || "none"})` };
}

/** How much of a log to read, as kubectl's flags say it. */
export interface LogOptions {
  follow: boolean;
  /** Lines from the end; below 0: all. */
  tail: number;
  /** Only lines newer than this many milliseconds; 0: all. */
  sinceMs: number;
  timestamps: boolean;
}

/** The pod's log subresource path with kubectl's query. */
export function logPath(namespace: string, pod: string, container: string, o: LogOptions): string {
  const query = new URLSearchParams({ container });
  if (o.follow) query.set("follow", "true");
  if (o.tail >= 0) query.set("tailLines", String(o.tail));
  if (o.sinceMs > 0) query.set("sinceSeconds", String(Math.ceil(o.sinceMs / 1000)));
  if (o.timestamps) query.set("timestamps", "true");
  return `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/log?${query.toString()}`;
}

/** Cuts a stream into whole lines, each with the prefix: feed it chunks, then end it for a last line without a newline. */
export class LinePrefixer {
  private readonly prefix: string;
  private carry = "";

  constructor(prefix: string) {
    this.prefix = prefix;
  }

  /** The whole lines the chunk completes, prefixed, each ending in a newline; "" when none. */
  push(chunk: string): string {
    const text = this.carry + chunk;
    const last = text.lastIndexOf("\n");
    if (last < 0) {
      this.carry = text;
      return "";
    }
    this.carry = text.slice(last + 1);
    return text
      .slice(0, last)
      .split("\n")
      .map((line) => `${this.prefix}${line}\n`)
      .join("");
  }

  /** The last line if it had no newline, prefixed and ended; "" otherwise. */
  end(): string {
    const rest = this.carry;
    this.carry = "";
    return rest === "" ? "" : `${this.prefix}${rest}\n`;
  }
}
