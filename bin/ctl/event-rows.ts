// `flotillactl events <kind>/<name>`: which of a member's Events are about a workload (the
// workload, the pods it selects and their owners), and how they read merged across members:
// kubectl get events' columns with CLUSTER first, oldest first. Pure.
import { age } from "./format.ts";
import type { MemberObject } from "./member-targets.ts";

/** A core/v1 Event: the fields read here. */
export interface KubeEvent {
  metadata?: { uid?: string; resourceVersion?: string; creationTimestamp?: string; namespace?: string };
  involvedObject?: { kind?: string; name?: string; uid?: string; apiVersion?: string; namespace?: string };
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  firstTimestamp?: string | null;
  lastTimestamp?: string | null;
  eventTime?: string | null;
  series?: { count?: number; lastObservedTime?: string } | null;
}

/** The uids the workload's events may name: the workload's, its pods' and the pods' owners' (a Deployment's ReplicaSets). */
export function relatedUids(workload: MemberObject, pods: readonly MemberObject[]): Set<string> {
  const uids = new Set<string>();
  const add = (uid: string | undefined) => uid !== undefined && uid !== "" && uids.add(uid);
  add(workload.metadata?.uid);
  for (const pod of pods) {
    add(pod.metadata?.uid);
    for (const owner of pod.metadata?.ownerReferences ?? []) add(owner.uid);
  }
  return uids;
}

/** Whether an object is the workload's: one of the related uids, or owned by one. */
export function ownedBy(obj: MemberObject, related: ReadonlySet<string>): boolean {
  return related.has(obj.metadata?.uid ?? "") || (obj.metadata?.ownerReferences ?? []).some((o) => related.has(o.uid));
}

/** When an event last happened, in ms since the epoch (lastTimestamp, the series', eventTime, else its creation); 0 when unknown. */
export function lastSeen(e: KubeEvent): number {
  for (const t of [e.lastTimestamp, e.series?.lastObservedTime, e.eventTime, e.metadata?.creationTimestamp]) {
    const at = Date.parse(t ?? "");
    if (!Number.isNaN(at)) return at;
  }
  return 0;
}

export const EVENT_HEADERS = ["cluster", "last seen", "type", "reason", "object", "message"];

/** One event's row: when (with `(xN over T)` for a repeated one), type, reason, kind/name, message. */
export function eventRow(cluster: string, e: KubeEvent, now: number): string[] {
  const last = lastSeen(e);
  const when = last === 0 ? "-" : age(new Date(last).toISOString(), now);
  const count = e.series?.count ?? e.count ?? 1;
  const first = Date.parse(e.firstTimestamp ?? e.eventTime ?? "");
  const repeated = count > 1 ? ` (x${count} over ${Number.isNaN(first) ? "?" : age(new Date(first).toISOString(), now)})` : "";
  const object = `${(e.involvedObject?.kind ?? "").toLowerCase()}/${e.involvedObject?.name ?? ""}`;
  return [cluster, `${when}${repeated}`, e.type ?? "", e.reason ?? "", object, (e.message ?? "").replace(/\s*\n\s*/g, " ").trim()];
}

/** Every member's events about the workload as rows, oldest first (kubectl's order), ties by cluster. */
export function eventRows(parts: readonly { cluster: string; events: readonly KubeEvent[] }[], now: number): string[][] {
  return parts
    .flatMap(({ cluster, events }) => events.map((event) => ({ cluster, event, at: lastSeen(event) })))
    .sort((a, b) => a.at - b.at || a.cluster.localeCompare(b.cluster))
    .map(({ cluster, event }) => eventRow(cluster, event, now));
}
