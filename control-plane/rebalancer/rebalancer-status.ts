// A WorkloadRebalancer's bookkeeping, as Karmada's controller keeps it (v1.19): which workloads
// status lists, when the rebalancer finished, and when ttlSecondsAfterFinished deletes it. Pure.
import type { ObservedWorkload, WorkloadRebalancer, WorkloadRebalancerStatus, WorkloadReference } from "../../shared/api/rebalancer.ts";
import { canonicalJson } from "../../shared/content-hash.ts";

/** A workload as one string: apiVersion, kind, namespace, name (Karmada's sort key); empty namespace = none. */
export function workloadKey(w: WorkloadReference): string {
  return `${w.apiVersion} ${w.kind} ${w.namespace ?? ""} ${w.name}`;
}

/** The reference as status writes it: an empty namespace left out. */
function normalized(w: WorkloadReference): WorkloadReference {
  return { apiVersion: w.apiVersion, kind: w.kind, name: w.name, ...(w.namespace ? { namespace: w.namespace } : {}) };
}

/**
 * The workloads status should list, from spec and the last status (Karmada's rules): one listed in
 * both keeps its result; one added to spec is listed without a result (to be done); one removed
 * from spec stays only if it was Successful (the reschedule happened; a Failed or pending one is
 * forgotten). An entry listed twice counts once. Sorted by apiVersion, kind, namespace, name.
 */
export function observedWorkloads(spec: readonly WorkloadReference[], status: readonly ObservedWorkload[] | undefined): ObservedWorkload[] {
  const wanted = new Map(spec.map((w) => [workloadKey(w), normalized(w)]));
  const out = new Map<string, ObservedWorkload>();
  for (const item of status ?? []) {
    const key = workloadKey(item.workload);
    if (out.has(key)) continue;
    if (wanted.has(key) || item.result === "Successful") out.set(key, item);
  }
  for (const [key, workload] of wanted) if (!out.has(key)) out.set(key, { workload });
  return [...out.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, item]) => item);
}

/** Whether every workload listed has a result. */
export function finished(items: readonly ObservedWorkload[]): boolean {
  return items.every((i) => i.result !== undefined);
}

/**
 * The status to write after a pass over the workloads. finishTime is set when the pass finished
 * every workload and the status changed (or had none): so a rebalancer whose spec gains a workload
 * finishes again, later; while a workload waits for a retry it has none (it is not finished), and
 * an unchanged finished status keeps its time.
 */
export function nextStatus(r: WorkloadRebalancer, items: ObservedWorkload[], now: Date): WorkloadRebalancerStatus {
  const body: WorkloadRebalancerStatus = { observedWorkloads: items, ...(r.metadata.generation === undefined ? {} : { observedGeneration: r.metadata.generation }) };
  if (!finished(items)) return body;
  const before = r.status ?? {};
  const same = canonicalJson({ ...before, finishTime: undefined }) === canonicalJson(body);
  const finishTime = same && before.finishTime !== undefined ? before.finishTime : rfc3339(now);
  return { ...body, finishTime };
}

/**
 * What ttlSecondsAfterFinished asks now: nothing (no TTL, or not finished), wait this many ms, or
 * delete the WorkloadRebalancer (its own object only: nothing in any member depends on it).
 */
export function ttlAction(r: WorkloadRebalancer, status: WorkloadRebalancerStatus, now: number): { waitMs: number } | "delete" | undefined {
  const ttl = r.spec.ttlSecondsAfterFinished;
  if (ttl === undefined || status.finishTime === undefined) return undefined;
  const finish = Date.parse(status.finishTime);
  if (Number.isNaN(finish)) return undefined;
  const left = finish + ttl * 1000 - now;
  return left > 0 ? { waitMs: left } : "delete";
}

/** Seconds precision, as metav1.Time writes it. */
function rfc3339(d: Date): string {
  return `${d.toISOString().slice(0, 19)}Z`;
}
