// The workload summaries' poll loop (issue 22): every interval (default 15 s, the HPA
// controller's own period; metrics.k8s.io has no watch), for each workload of the hub's
// MetricsWanted, read its pods' samples and its custom metrics, summarise them with the pods of
// the pod cache (metrics-summary.ts), and offer the summary to the hub when it changed, or every
// 30 s when it did not (the control plane's summaries age out after 60 s). The list
// is kept in memory only: after a restart the Hello states no hash and the hub sends it again.
import type { Logger } from "pino";
import { canonicalJson } from "../../shared/content-hash.ts";
import { kubeSelector, summaryToWire, workloadKey } from "../../shared/workload-metrics-wire.ts";
import type { MetricsWanted, WantedWorkload, WorkloadMetrics } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { matchesLabelSelector } from "../../shared/label-selector.ts";
import { type Clock, realClock } from "../../shared/clock.ts";
import { type MetricsSource, selectorString } from "./metrics-source.ts";
import { type PodSample, type SummaryPod, summarize } from "./metrics-summary.ts";

/** Problems one summary names at most (the hub's bound). */
const MAX_PROBLEMS = 8;

/**
 * An unchanged summary is offered again once this long has passed since it was last offered: the
 * control plane counts a summary older than 60 s as missing (no scale-down on it), so a member
 * under a steady load must still say so.
 */
export const METRICS_REFRESH_MS = 30_000;

export class WorkloadMetricsPoller {
  private readonly source: MetricsSource;
  private readonly pods: (namespace: string) => SummaryPod[];
  private readonly intervalMs: number;
  private readonly readiness: { cpuInitializationPeriodMs?: number; initialReadinessDelayMs?: number };
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly changed: (key: string) => void;
  private list: MetricsWanted = { contentHash: "", workloads: [] };
  /** The newest summary per workload key, and what it said (to tell a change). */
  private readonly latestByKey = new Map<string, { message: WorkloadMetrics; said: string; offeredAt: number }>();
  private cancel: (() => void) | undefined;
  private polling: Promise<void> | undefined;
  private stopped = true;
  /** Polls done, for tests and metrics. */
  polls = 0;

  constructor(opts: {
    source: MetricsSource;
    /** The cached pods of a namespace. */
    pods: (namespace: string) => SummaryPod[];
    intervalMs: number;
    /** kube-controller-manager's CPU readiness timing (metrics-summary.ts; default its defaults). */
    readiness?: { cpuInitializationPeriodMs?: number; initialReadinessDelayMs?: number };
    log: Logger;
    /** A workload's summary changed (or it is gone from the list: latest() is then undefined). */
    changed: (key: string) => void;
    clock?: Clock;
  }) {
    this.source = opts.source;
    this.pods = opts.pods;
    this.intervalMs = opts.intervalMs;
    this.readiness = opts.readiness ?? {};
    this.log = opts.log;
    this.changed = opts.changed;
    this.clock = opts.clock ?? realClock;
  }

  /** The hash of the list held ("" for none), for the Hello. */
  get hash(): string {
    return this.list.contentHash;
  }

  /** The hub's new list: summaries of workloads no longer listed are forgotten; the others are polled now. */
  want(list: MetricsWanted): void {
    this.list = list;
    const keys = new Set(list.workloads.map((w) => workloadKey(w.workload)));
    for (const key of [...this.latestByKey.keys()]) if (!keys.has(key)) this.latestByKey.delete(key);
    this.log.info({ workloads: list.workloads.length, hash: list.contentHash }, "workloads to summarise");
    if (!this.stopped) void this.poll();
  }

  /** The newest summary of a listed workload. */
  latest(key: string): WorkloadMetrics | undefined {
    return this.latestByKey.get(key)?.message;
  }

  /** The workloads with a summary (all of them are sent again after a resync). */
  keys(): string[] {
    return [...this.latestByKey.keys()];
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const tick = () => {
      this.cancel = this.clock.after(this.intervalMs, () => void this.poll().finally(() => !this.stopped && tick()));
    };
    void this.poll();
    tick();
  }

  stop(): void {
    this.stopped = true;
    this.cancel?.();
  }

  /** One pass over the list (one at a time: a pass still running is joined, not doubled). */
  poll(): Promise<void> {
    this.polling ??= this.pass().finally(() => (this.polling = undefined));
    return this.polling;
  }

  private async pass(): Promise<void> {
    const list = this.list;
    for (const w of list.workloads) {
      if (this.list !== list) return; // a newer list polls itself
      try {
        this.offer(await this.summaryOf(w, list.contentHash));
      } catch (err) {
        // A bug of ours on one workload must not stop the others, nor the agent.
        this.log.warn({ workload: workloadKey(w.workload), err: String(err) }, "summarising a workload failed");
      }
    }
    this.polls++;
  }

  private offer(m: WorkloadMetrics): void {
    const key = workloadKey(m.workload);
    if (!this.list.workloads.some((w) => workloadKey(w.workload) === key)) return;
    // What changes every poll (the samples' window) is no change by itself.
    const said = canonicalJson({ ...m, windowStartMs: 0, windowEndMs: 0 });
    const before = this.latestByKey.get(key);
    const now = this.clock.now();
    const due = before === undefined || before.said !== said || now - before.offeredAt >= METRICS_REFRESH_MS;
    this.latestByKey.set(key, { message: m, said, offeredAt: due ? now : before.offeredAt });
    if (due) this.changed(key);
  }

  private async summaryOf(w: WantedWorkload, wantedHash: string): Promise<WorkloadMetrics> {
    const ref = w.workload ?? { apiVersion: "", kind: "", namespace: "", name: "" };
    const ns = ref.namespace;
    const podSelector = kubeSelector(w.podSelector) ?? {};
    const selector = selectorString(podSelector);
    // An empty selector selects every pod of the namespace (as a scale subresource's would).
    const pods = this.pods(ns).filter((p) => matchesLabelSelector(podSelector, p.metadata.labels));
    const problems: string[] = [];
    const problem = (what: string, why: string) => problems.push(`${what}: ${why}`);
    let podMetrics: Map<string, PodSample> | undefined;
    if (w.metrics.some((m) => m.type === "Resource" || m.type === "ContainerResource")) {
      const read = await this.source.podMetrics(ns, selector);
      if (read.ok) podMetrics = read.value;
      else problem("resource metrics", `${read.problem}; every pod counts as missing`);
    }
    const podsValues = new Map<string, Map<string, bigint>>();
    const values = new Map<string, bigint>();
    for (const m of w.metrics) {
      const metricSelector = selectorString(kubeSelector(m.metricSelector));
      if (m.type === "Pods") {
        const read = await this.source.podsMetric(ns, selector, m.metricName, metricSelector);
        if (read.ok) podsValues.set(m.key, read.value);
        else problem(`Pods metric ${m.metricName}`, `${read.problem}; every pod counts as missing`);
      } else if (m.type === "Object" || m.type === "External") {
        const read = m.type === "Object" ? await this.source.objectMetric(ns, m.describedObject ?? ref, m.metricName, metricSelector) : await this.source.externalMetric(ns, m.metricName, metricSelector);
        if (read.ok) values.set(m.key, read.value);
        else problem(`${m.type} metric ${m.metricName}`, `${read.problem}; left out`);
      } else if (m.type !== "Resource" && m.type !== "ContainerResource") {
        problem(`metric ${m.key}`, `unknown type ${JSON.stringify(m.type)}; left out`);
      }
    }
    const out = summarize({ pods, metrics: w.metrics, podMetrics, podsValues, values, now: this.clock.now(), ...this.readiness });
    return summaryToWire(out.summary, { workload: ref, wantedHash, windowStartMs: out.windowStartMs, windowEndMs: out.windowEndMs, problems: problems.slice(0, MAX_PROBLEMS) });
  }
}
