// The pods of a workload the member's scheduler cannot place (issue 22): a Divided workload's
// replicas that stay Unschedulable are moved by the control plane, so the agent reports, per
// applied workload, how many of its pods are Unschedulable and since when. Pure: the pods are the
// agent's pod cache, read through the workload's selector.
import type { KubeObject, LabelSelector } from "../../shared/api/types.ts";
import { matchesLabelSelector } from "../../shared/label-selector.ts";
import type { SummaryPod } from "../metrics/metrics-summary.ts";
import type { ManifestOutcome } from "./work-status.ts";

/** The kinds whose pods are read: their pods are theirs by `spec.selector` (Karmada's descheduler reads Deployments). */
export const POD_WORKLOAD_KINDS: readonly { apiVersion: string; kind: string }[] = [
  { apiVersion: "apps/v1", kind: "Deployment" },
  { apiVersion: "apps/v1", kind: "StatefulSet" },
  { apiVersion: "apps/v1", kind: "ReplicaSet" },
];
const WORKLOAD_KINDS = new Set(POD_WORKLOAD_KINDS.map((k) => `${k.apiVersion}|${k.kind}`));

export interface Unschedulable {
  replicas: number;
  /** RFC 3339: when the last of them became Unschedulable. */
  since: string;
}

/** Whether the agent reads this kind's pods for unschedulable replicas. */
export function readsPodsOf(apiVersion: string, kind: string): boolean {
  return WORKLOAD_KINDS.has(`${apiVersion}|${kind}`);
}

/** When a pod became Unschedulable (its PodScheduled=False condition, reason Unschedulable), or undefined when it is not. */
export function unschedulableSince(pod: SummaryPod): string | undefined {
  if (pod.metadata.deletionTimestamp !== undefined || (pod.status?.phase ?? "Pending") !== "Pending") return undefined;
  const c = pod.status?.conditions?.find((x) => x.type === "PodScheduled");
  if (c === undefined || c.status !== "False" || c.reason !== "Unschedulable") return undefined;
  const at = c.lastTransitionTime;
  return at !== undefined && !Number.isNaN(Date.parse(at)) ? at : undefined;
}

/**
 * The workload's Unschedulable pods (those its selector picks in its namespace's cached pods), or
 * undefined when none is, or the workload is not a kind the agent reads. `since` is the latest
 * of their times, so every one of them has been Unschedulable at least that long: a move never
 * takes a pod that only just became so.
 */
export function unschedulableOf(workload: KubeObject, pods: readonly SummaryPod[]): Unschedulable | undefined {
  const selector = podSelector(workload);
  if (selector === undefined) return undefined;
  let replicas = 0;
  let latest = "";
  let latestMs = -Infinity;
  for (const p of pods) {
    const since = unschedulableSince(p);
    if (since === undefined || !matchesLabelSelector(selector, p.metadata.labels)) continue;
    replicas++;
    const ms = Date.parse(since);
    if (ms > latestMs) {
      latestMs = ms;
      latest = since;
    }
  }
  return replicas === 0 ? undefined : { replicas, since: latest };
}

/** Whether a workload's selector picks a pod with these labels (to find the Works a pod's change concerns). */
export function selectsPod(workload: KubeObject, labels: Record<string, string> | undefined): boolean {
  const selector = podSelector(workload);
  return selector !== undefined && matchesLabelSelector(selector, labels);
}

// The workload's pod selector; none for a kind not read, and none for a missing or empty selector
// (it would pick every pod of the namespace).
function podSelector(workload: KubeObject): LabelSelector | undefined {
  if (!readsPodsOf(workload.apiVersion, workload.kind)) return undefined;
  const selector = (workload.spec as { selector?: LabelSelector | null } | undefined)?.selector;
  if (selector === undefined || selector === null || typeof selector !== "object" || (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0)) return undefined;
  return selector;
}

/** The agent's pod cache, as the Work reports read it. */
export interface PodSource {
  /** Whether the cache holds a successful list (before that, nothing is reported: unknown is not 0). */
  readonly podsSynced: boolean;
  podsIn(namespace: string): SummaryPod[];
}

/** Each applied workload's outcome with its Unschedulable pods, when it has any and the pod cache is synced. */
export function withUnschedulable(pods: PodSource | undefined, outcomes: ManifestOutcome[]): ManifestOutcome[] {
  if (pods === undefined || !pods.podsSynced) return outcomes;
  return outcomes.map((o) => {
    if (!o.applied || o.live === undefined || !readsPodsOf(o.live.apiVersion, o.live.kind)) return o;
    const u = unschedulableOf(o.live, pods.podsIn(o.live.metadata.namespace ?? ""));
    return u === undefined ? o : { ...o, unschedulable: u };
  });
}
