// The member's metrics APIs, read for the workload summaries (issue 22): metrics.k8s.io's
// PodMetrics (no watch: polled), and custom.metrics.k8s.io / external.metrics.k8s.io when an
// adapter serves them. A read that fails is a problem stated in the summary, never an exception
// that stops the agent.
import type { LabelSelector } from "../../shared/api/types.ts";
import type { Discovery } from "../../shared/discovery.ts";
import type { WorkloadRef } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { isKubeStatus, type KubeRest } from "../../shared/kube-rest.ts";
import { scaledQuantity } from "../../shared/quantity.ts";
import type { PodSample } from "./metrics-summary.ts";

/** A value read, or why it was not. */
export type Read<T> = { ok: true; value: T } | { ok: false; problem: string };

/** What the poll loop reads; a fake stands in for it in tests. */
export interface MetricsSource {
  /** PodMetrics of the pods the selector matches, by pod name. */
  podMetrics(namespace: string, selector: string): Promise<Read<Map<string, PodSample>>>;
  /** A Pods metric of custom.metrics.k8s.io, in milli-units by pod name. */
  podsMetric(namespace: string, selector: string, metric: string, metricSelector: string): Promise<Read<Map<string, bigint>>>;
  /** An Object metric of custom.metrics.k8s.io: the described object's value in milli-units. */
  objectMetric(namespace: string, object: WorkloadRef, metric: string, metricSelector: string): Promise<Read<bigint>>;
  /** An External metric of external.metrics.k8s.io: its series' values summed, in milli-units. */
  externalMetric(namespace: string, metric: string, metricSelector: string): Promise<Read<bigint>>;
}

/** A label selector as the apiserver's labelSelector query parameter writes it. */
export function selectorString(s: LabelSelector | undefined): string {
  const parts = Object.entries(s?.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of s?.matchExpressions ?? []) {
    const values = (e.values ?? []).join(",");
    if (e.operator === "In") parts.push(`${e.key} in (${values})`);
    else if (e.operator === "NotIn") parts.push(`${e.key} notin (${values})`);
    else if (e.operator === "Exists") parts.push(e.key);
    else if (e.operator === "DoesNotExist") parts.push(`!${e.key}`);
    else parts.push(`${e.key} ${e.operator === "Gt" ? ">" : "<"} ${values}`);
  }
  return parts.join(",");
}

interface PodMetricsList {
  items?: { metadata: { name: string }; timestamp?: string; window?: string; containers?: { name: string; usage?: Record<string, string> }[] }[];
}
interface MetricValueList {
  items?: { describedObject?: { name?: string }; value: string }[];
}

/** "15s", "1m30s", "30.5s": Go's duration as metrics-server writes a window. */
function windowMs(w: string | undefined): number {
  let ms = 0;
  for (const [, n, unit] of (w ?? "").matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) ms += Number(n) * ({ ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as Record<string, number>)[unit ?? "s"]!;
  return ms;
}

const quoted = (s: string) => encodeURIComponent(s);

/** The real source: the member's apiserver, which proxies each metrics API to its adapter. */
export class KubeMetricsSource implements MetricsSource {
  private readonly rest: KubeRest;
  private readonly discovery: Discovery;
  /** group → the version served, or "" when not served. */
  private readonly versions = new Map<string, { version: string; at: number }>();

  constructor(rest: KubeRest, discovery: Discovery) {
    this.rest = rest;
    this.discovery = discovery;
  }

  async podMetrics(namespace: string, selector: string): Promise<Read<Map<string, PodSample>>> {
    return this.read("metrics.k8s.io", async (v) => {
      const list = await this.rest.get<PodMetricsList>(`/apis/metrics.k8s.io/${v}/namespaces/${namespace}/pods`, { labelSelector: selector || undefined });
      const out = new Map<string, PodSample>();
      for (const i of list.items ?? []) {
        const at = Date.parse(i.timestamp ?? "");
        out.set(i.metadata.name, { timestampMs: Number.isNaN(at) ? 0 : at, windowMs: windowMs(i.window), containers: (i.containers ?? []).map((c) => ({ name: c.name, usage: c.usage ?? {} })) });
      }
      return out;
    });
  }

  async podsMetric(namespace: string, selector: string, metric: string, metricSelector: string): Promise<Read<Map<string, bigint>>> {
    return this.read("custom.metrics.k8s.io", async (v) => {
      const list = await this.rest.get<MetricValueList>(`/apis/custom.metrics.k8s.io/${v}/namespaces/${namespace}/pods/*/${quoted(metric)}`, {
        labelSelector: selector || undefined,
        metricLabelSelector: metricSelector || undefined,
      });
      return new Map((list.items ?? []).map((i) => [i.describedObject?.name ?? "", scaledQuantity(i.value, 3)]));
    });
  }

  async objectMetric(namespace: string, object: WorkloadRef, metric: string, metricSelector: string): Promise<Read<bigint>> {
    const resource = await this.discovery.resourceFor(object.apiVersion, object.kind).catch(() => undefined);
    if (resource === undefined) return { ok: false, problem: `${object.apiVersion} ${object.kind} is not served here` };
    const ns = resource.namespaced ? `namespaces/${namespace}/` : "";
    const group = resource.apiVersion.includes("/") ? `.${resource.apiVersion.split("/")[0]}` : "";
    return this.read("custom.metrics.k8s.io", async (v) => {
      const list = await this.rest.get<MetricValueList>(`/apis/custom.metrics.k8s.io/${v}/${ns}${resource.plural}${group}/${quoted(object.name)}/${quoted(metric)}`, { metricLabelSelector: metricSelector || undefined });
      const item = list.items?.[0];
      if (item === undefined) throw Object.assign(new Error("no value"), { status: 404 });
      return scaledQuantity(item.value, 3);
    });
  }

  async externalMetric(namespace: string, metric: string, metricSelector: string): Promise<Read<bigint>> {
    return this.read("external.metrics.k8s.io", async (v) => {
      const list = await this.rest.get<MetricValueList>(`/apis/external.metrics.k8s.io/${v}/namespaces/${namespace}/${quoted(metric)}`, { labelSelector: metricSelector || undefined });
      return (list.items ?? []).reduce((sum, i) => sum + scaledQuantity(i.value, 3), 0n);
    });
  }

  /** Reads through the group's served version; an unserved group or a failed read is a problem. */
  private async read<T>(group: string, get: (version: string) => Promise<T>): Promise<Read<T>> {
    try {
      const version = await this.version(group);
      if (version === "") return { ok: false, problem: `${group} is not served` };
      return { ok: true, value: await get(version) };
    } catch (err) {
      if (isKubeStatus(err, 404, 503)) this.versions.delete(group); // the adapter may be gone: discover again
      const status = (err as { status?: number }).status;
      return { ok: false, problem: `${group}: ${status === undefined ? String(err) : `HTTP ${status}`}`.slice(0, 512) };
    }
  }

  private async version(group: string): Promise<string> {
    const known = this.versions.get(group);
    // A group not served is looked for again after a minute (an adapter being installed, or back).
    if (known !== undefined && Date.now() - known.at < (known.version === "" ? 60_000 : 3_600_000)) return known.version;
    let version = "";
    try {
      const g = await this.rest.get<{ preferredVersion?: { version: string } }>(`/apis/${group}`);
      version = g.preferredVersion?.version ?? "";
    } catch (err) {
      // 404 or 503 (an APIService whose adapter is down): not served, for now. Anything else is the read's problem.
      if (!isKubeStatus(err, 404, 503)) throw err;
    }
    this.versions.set(group, { version, at: Date.now() });
    return version;
  }
}
