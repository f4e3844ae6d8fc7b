// One workload's pods summarised for autoscaling (issue 22): pure, the time is an input. The pods
// are grouped as kube-controller-manager's HPA groups them (semantics only; the rules are spelled
// out in shared/autoscaling/workload-metrics.ts): pods being deleted and Failed pods are left out;
// Pending pods are unready; a pod without a sample is missing; for cpu only, a pod whose sample
// must not count yet is unready (no Ready condition or start time; within the CPU initialization
// period: not Ready, or a sample taken before one metrics window after its last readiness change;
// past it: not Ready and never Ready since the initial readiness delay).
import type { WorkloadMetricsSummary } from "../../shared/autoscaling/workload-metrics.ts";
import type { WantedMetric } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { scaledQuantity } from "../../shared/quantity.ts";

/** kube-controller-manager's defaults (--horizontal-pod-autoscaler-cpu-initialization-period, …-initial-readiness-delay). */
export const CPU_INITIALIZATION_PERIOD_MS = 5 * 60_000;
export const INITIAL_READINESS_DELAY_MS = 30_000;

interface Container {
  name: string;
  restartPolicy?: string;
  resources?: { requests?: Record<string, string> };
}

/** What the summary reads of a Pod (the agent's pod cache keeps only this). */
export interface SummaryPod {
  metadata: { name?: string; deletionTimestamp?: string; labels?: Record<string, string> };
  spec?: { containers?: Container[]; initContainers?: Container[]; resources?: { requests?: Record<string, string> } };
  status?: { phase?: string; startTime?: string; conditions?: { type: string; status: string; reason?: string; lastTransitionTime?: string }[] };
}

/** One PodMetrics of metrics.k8s.io: when its window ended, how long it was, each container's usage. */
export interface PodSample {
  timestampMs: number;
  windowMs: number;
  containers: { name: string; usage: Record<string, string> }[];
}

export interface SummaryInput {
  /** The workload's pods (its selector's), as cached. */
  pods: SummaryPod[];
  metrics: WantedMetric[];
  /** PodMetrics by pod name; undefined when metrics.k8s.io could not be read (every pod is then missing). */
  podMetrics: ReadonlyMap<string, PodSample> | undefined;
  /** Per Pods metric key, the value (milli-units) by pod name; a key absent: it could not be read. */
  podsValues: ReadonlyMap<string, ReadonlyMap<string, bigint>>;
  /** Per Object / External metric key, the value (milli-units); a key absent: left out of the summary. */
  values: ReadonlyMap<string, bigint>;
  now: number;
  cpuInitializationPeriodMs?: number;
  initialReadinessDelayMs?: number;
}

export interface SummaryOutput {
  summary: WorkloadMetricsSummary;
  /** The samples counted: the earliest one's start, the latest one's end (0 when none). */
  windowStartMs: number;
  windowEndMs: number;
}

const time = (t: string | undefined): number | undefined => {
  const ms = t === undefined ? NaN : Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
};

const milli = (q: string | undefined): bigint | undefined => {
  if (q === undefined) return undefined;
  try {
    return scaledQuantity(q, 3);
  } catch {
    return undefined;
  }
};

/** Kubernetes leaves these out of every metric. */
export function counted(p: SummaryPod): boolean {
  return p.metadata.deletionTimestamp === undefined && p.status?.phase !== "Failed";
}

const readyCondition = (p: SummaryPod) => p.status?.conditions?.find((c) => c.type === "Ready");

/**
 * The pod's request of a resource in milli-units, as the HPA counts it: the pod-level request when
 * set and no container is named, else its containers' (or the named one's) and its restartable
 * init containers'; `lacking` when one of them requests none.
 */
export function podRequest(p: SummaryPod, resource: string, container?: string): { milli: bigint; lacking: boolean } {
  const podLevel = container === undefined ? milli(p.spec?.resources?.requests?.[resource]) : undefined;
  if (podLevel !== undefined) return { milli: podLevel, lacking: false };
  const all = [...(p.spec?.containers ?? []), ...(p.spec?.initContainers ?? []).filter((c) => c.restartPolicy === "Always")];
  let sum = 0n;
  let lacking = false;
  for (const c of all) {
    if (container !== undefined && c.name !== container) continue;
    const r = milli(c.resources?.requests?.[resource]);
    if (r === undefined) lacking = true;
    else sum += r;
  }
  return { milli: sum, lacking };
}

/** The pod's usage of a resource (all containers, or the named one), or undefined when the sample lacks it. */
export function sampleUsage(s: PodSample, resource: string, container?: string): bigint | undefined {
  const containers = container === undefined ? s.containers : s.containers.filter((c) => c.name === container);
  if (containers.length === 0) return undefined;
  let sum = 0n;
  for (const c of containers) {
    const u = milli(c.usage[resource]);
    if (u === undefined) return undefined;
    sum += u;
  }
  return sum;
}

/** Whether a cpu sample of a Running pod must not count yet (kube-controller-manager's rule). */
export function cpuUnready(p: SummaryPod, s: PodSample, now: number, periodMs: number, delayMs: number): boolean {
  const ready = readyCondition(p);
  const start = time(p.status?.startTime);
  if (ready === undefined || start === undefined) return true;
  const transition = time(ready.lastTransitionTime) ?? 0;
  if (start + periodMs > now) return ready.status === "False" || s.timestampMs < transition + s.windowMs;
  return ready.status === "False" && start + delayMs > transition;
}

/** The summary of one workload's pods for its wanted metrics. */
export function summarize(input: SummaryInput): SummaryOutput {
  const pods = input.pods.filter(counted);
  const summary: WorkloadMetricsSummary = {
    pods: pods.length,
    readyPods: pods.filter((p) => p.status?.phase === "Running" && readyCondition(p)?.status === "True").length,
  };
  let windowStartMs = Infinity;
  let windowEndMs = 0;
  const period = input.cpuInitializationPeriodMs ?? CPU_INITIALIZATION_PERIOD_MS;
  const delay = input.initialReadinessDelayMs ?? INITIAL_READINESS_DELAY_MS;
  for (const m of input.metrics) {
    if (m.type === "Resource" || m.type === "ContainerResource") {
      const container = m.type === "ContainerResource" ? m.container : undefined;
      const sums = { readyPods: 0, readyUsage: 0n, readyRequests: 0n, unreadyPods: 0, unreadyRequests: 0n, missingPods: 0, missingRequests: 0n, podsWithoutRequest: 0 };
      for (const p of pods) {
        const request = podRequest(p, m.resource, container);
        if (request.lacking) sums.podsWithoutRequest++;
        const sample = input.podMetrics?.get(p.metadata.name ?? "");
        const usage = sample === undefined ? undefined : sampleUsage(sample, m.resource, container);
        if (p.status?.phase === "Pending" || (sample !== undefined && usage !== undefined && m.resource === "cpu" && cpuUnready(p, sample, input.now, period, delay))) {
          sums.unreadyPods++;
          sums.unreadyRequests += request.milli;
        } else if (sample === undefined || usage === undefined) {
          sums.missingPods++;
          sums.missingRequests += request.milli;
        } else {
          sums.readyPods++;
          sums.readyUsage += usage;
          sums.readyRequests += request.milli;
          windowStartMs = Math.min(windowStartMs, sample.timestampMs - sample.windowMs);
          windowEndMs = Math.max(windowEndMs, sample.timestampMs);
        }
      }
      (summary.resources ??= {})[m.key] = sums;
    } else if (m.type === "Pods") {
      const values = input.podsValues.get(m.key);
      const sums = { readyPods: 0, readyValue: 0n, unreadyPods: 0, missingPods: 0 };
      for (const p of pods) {
        const v = values?.get(p.metadata.name ?? "");
        if (p.status?.phase === "Pending") sums.unreadyPods++;
        else if (v === undefined) sums.missingPods++;
        else {
          sums.readyPods++;
          sums.readyValue += v;
        }
      }
      (summary.podsMetrics ??= {})[m.key] = sums;
    } else {
      const v = input.values.get(m.key);
      if (v === undefined) continue;
      if (m.type === "Object") (summary.objectMetrics ??= {})[m.key] = v;
      else if (m.type === "External") (summary.externalMetrics ??= {})[m.key] = v;
    }
  }
  return { summary, windowStartMs: windowEndMs === 0 ? 0 : windowStartMs, windowEndMs };
}
