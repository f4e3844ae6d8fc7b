// The workload summaries on the agent stream (issue 22): the summary to and from the proto's
// WorkloadMetrics (milli-units as decimal strings, exact), the MetricsWanted list with its hash,
// and the key of a workload. Both sides use it; the hub checks bounds before summaryFromWire.
import type { LabelSelector as KubeLabelSelector, LabelSelectorOperator } from "./api/types.ts";
import { contentHash } from "./content-hash.ts";
import type { LabelSelector, MetricsWanted, WantedWorkload, WorkloadMetrics, WorkloadRef } from "./gen/flotilla/v1alpha1/agent.ts";
import type { WorkloadMetricsSummary } from "./autoscaling/workload-metrics.ts";

/** "apps/v1/Deployment/shop/web": one workload of a cluster. */
export function workloadKey(ref: WorkloadRef | undefined): string {
  return ref === undefined ? "" : `${ref.apiVersion}/${ref.kind}/${ref.namespace}/${ref.name}`;
}

/** The list as sent: workloads in key order, hashed; an empty list has hash "" (nothing held). */
export function metricsWanted(workloads: WantedWorkload[]): MetricsWanted {
  const sorted = [...workloads].sort((a, b) => (workloadKey(a.workload) < workloadKey(b.workload) ? -1 : 1));
  return { contentHash: sorted.length === 0 ? "" : contentHash(sorted), workloads: sorted };
}

/** A proto selector as Kubernetes writes it (undefined: none). */
export function kubeSelector(s: LabelSelector | undefined): KubeLabelSelector | undefined {
  if (s === undefined) return undefined;
  return {
    ...(Object.keys(s.matchLabels).length > 0 ? { matchLabels: s.matchLabels } : {}),
    ...(s.matchExpressions.length > 0 ? { matchExpressions: s.matchExpressions.map((e) => ({ key: e.key, operator: e.operator as LabelSelectorOperator, values: e.values })) } : {}),
  };
}

/** A Kubernetes selector on the wire. */
export function wireSelector(s: KubeLabelSelector | undefined): LabelSelector | undefined {
  if (s === undefined) return undefined;
  return { matchLabels: s.matchLabels ?? {}, matchExpressions: (s.matchExpressions ?? []).map((e) => ({ key: e.key, operator: e.operator, values: e.values ?? [] })) };
}

/** What an agent sends besides the summary. */
export interface SummaryContext {
  workload: WorkloadRef;
  wantedHash: string;
  windowStartMs: number;
  windowEndMs: number;
  problems: string[];
}

const entries = <T>(r: Record<string, T> | undefined): [string, T][] => Object.entries(r ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));

/** The summary on the wire, keys in order. */
export function summaryToWire(s: WorkloadMetricsSummary, ctx: SummaryContext): WorkloadMetrics {
  return {
    ...ctx,
    pods: s.pods,
    readyPods: s.readyPods,
    resources: entries(s.resources).map(([key, r]) => ({
      key,
      readyPods: r.readyPods,
      readyUsage: String(r.readyUsage),
      readyRequests: String(r.readyRequests),
      unreadyPods: r.unreadyPods,
      unreadyRequests: String(r.unreadyRequests),
      missingPods: r.missingPods,
      missingRequests: String(r.missingRequests),
      podsWithoutRequest: r.podsWithoutRequest,
    })),
    podsMetrics: entries(s.podsMetrics).map(([key, p]) => ({ key, readyPods: p.readyPods, readyValue: String(p.readyValue), unreadyPods: p.unreadyPods, missingPods: p.missingPods })),
    objectMetrics: entries(s.objectMetrics).map(([key, v]) => ({ key, value: String(v) })),
    externalMetrics: entries(s.externalMetrics).map(([key, v]) => ({ key, value: String(v) })),
  };
}

/** The summary a WorkloadMetrics carries; its quantities must be integers (the hub's bounds check them first). */
export function summaryFromWire(m: WorkloadMetrics): WorkloadMetricsSummary {
  const s: WorkloadMetricsSummary = { pods: m.pods, readyPods: m.readyPods };
  if (m.resources.length > 0) {
    s.resources = Object.fromEntries(
      m.resources.map((r) => [
        r.key,
        {
          readyPods: r.readyPods,
          readyUsage: BigInt(r.readyUsage),
          readyRequests: BigInt(r.readyRequests),
          unreadyPods: r.unreadyPods,
          unreadyRequests: BigInt(r.unreadyRequests),
          missingPods: r.missingPods,
          missingRequests: BigInt(r.missingRequests),
          podsWithoutRequest: r.podsWithoutRequest,
        },
      ]),
    );
  }
  if (m.podsMetrics.length > 0) s.podsMetrics = Object.fromEntries(m.podsMetrics.map((p) => [p.key, { readyPods: p.readyPods, readyValue: BigInt(p.readyValue), unreadyPods: p.unreadyPods, missingPods: p.missingPods }]));
  if (m.objectMetrics.length > 0) s.objectMetrics = Object.fromEntries(m.objectMetrics.map((v) => [v.key, BigInt(v.value)]));
  if (m.externalMetrics.length > 0) s.externalMetrics = Object.fromEntries(m.externalMetrics.map((v) => [v.key, BigInt(v.value)]));
  return s;
}

/** A summary the hub took from an agent, as the control plane reads it. */
export interface WorkloadMetricsReport extends Omit<SummaryContext, "workload"> {
  workload: WorkloadRef;
  /** workloadKey(workload). */
  key: string;
  summary: WorkloadMetricsSummary;
}

/** The report of a WorkloadMetrics within bounds. */
export function reportOf(m: WorkloadMetrics): WorkloadMetricsReport {
  const workload = m.workload ?? { apiVersion: "", kind: "", namespace: "", name: "" };
  return { workload, key: workloadKey(workload), wantedHash: m.wantedHash, windowStartMs: m.windowStartMs, windowEndMs: m.windowEndMs, problems: m.problems, summary: summaryFromWire(m) };
}
