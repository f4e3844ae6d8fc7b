// What each member's agent is asked to summarise (issue 22), pure: for every FederatedHPA whose
// target a binding places, the target workload (as the member holds it), its pods' selector and
// the metrics of the FederatedHPA's spec, keyed as the replica calculator reads them.
import type { FederatedHPA, MetricSpec } from "../../shared/api/autoscaling.ts";
import type { KubeObject, LabelSelector as KubeLabelSelector } from "../../shared/api/types.ts";
import { externalMetricKey, objectMetricKey, podsMetricKey, resourceKey } from "../../shared/autoscaling/workload-metrics.ts";
import type { MetricsWanted, WantedMetric, WantedWorkload } from "../../shared/gen/flotilla/v1alpha1/agent.ts";
import { metricsWanted, wireSelector } from "../../shared/workload-metrics-wire.ts";
import { DEFAULT_METRICS } from "../autoscaling/federated-hpa-api.ts";

/** One FederatedHPA with its target template and the clusters its binding places the target on. */
export interface AutoscaledTarget {
  fhpa: FederatedHPA;
  template: KubeObject;
  clusters: readonly string[];
}

/** The list for every cluster that runs an autoscaled target (a cluster absent wants none). */
export function wantedByCluster(targets: readonly AutoscaledTarget[]): Map<string, MetricsWanted> {
  const byCluster = new Map<string, Map<string, WantedWorkload>>();
  for (const t of targets) {
    const workload = { apiVersion: t.template.apiVersion, kind: t.template.kind, namespace: t.template.metadata.namespace ?? "", name: t.template.metadata.name ?? "" };
    const id = `${workload.apiVersion}/${workload.kind}/${workload.namespace}/${workload.name}`;
    const metrics = wantedMetrics(t.fhpa.spec.metrics !== undefined && t.fhpa.spec.metrics.length > 0 ? t.fhpa.spec.metrics : DEFAULT_METRICS);
    const selector = podSelectorOf(t.template);
    for (const cluster of t.clusters) {
      let m = byCluster.get(cluster);
      if (m === undefined) byCluster.set(cluster, (m = new Map()));
      // Two FederatedHPAs on one workload (a mistake Kubernetes also allows): their metrics are joined.
      const had = m.get(id);
      const joined = had === undefined ? metrics : [...had.metrics, ...metrics.filter((x) => !had.metrics.some((y) => y.key === x.key))];
      m.set(id, { workload, podSelector: selector, metrics: joined });
    }
  }
  return new Map([...byCluster].map(([cluster, m]) => [cluster, metricsWanted([...m.values()])]));
}

function wantedMetrics(specs: readonly MetricSpec[]): WantedMetric[] {
  const none = { resource: "", container: "", metricName: "", metricSelector: undefined, describedObject: undefined };
  const out: WantedMetric[] = [];
  for (const s of specs) {
    if (s.type === "Resource" && s.resource) out.push({ ...none, key: resourceKey(s.resource.name), type: s.type, resource: s.resource.name });
    else if (s.type === "ContainerResource" && s.containerResource) out.push({ ...none, key: resourceKey(s.containerResource.name, s.containerResource.container), type: s.type, resource: s.containerResource.name, container: s.containerResource.container });
    else if (s.type === "Pods" && s.pods) out.push({ ...none, key: podsMetricKey(s.pods.metric), type: s.type, metricName: s.pods.metric.name, metricSelector: wireSelector(s.pods.metric.selector as KubeLabelSelector | undefined) });
    else if (s.type === "External" && s.external) out.push({ ...none, key: externalMetricKey(s.external.metric), type: s.type, metricName: s.external.metric.name, metricSelector: wireSelector(s.external.metric.selector as KubeLabelSelector | undefined) });
    else if (s.type === "Object" && s.object) {
      const o = s.object.describedObject;
      out.push({ ...none, key: objectMetricKey(o, s.object.metric), type: s.type, metricName: s.object.metric.name, metricSelector: wireSelector(s.object.metric.selector as KubeLabelSelector | undefined), describedObject: { apiVersion: o.apiVersion ?? "", kind: o.kind, namespace: "", name: o.name } });
    }
  }
  return out;
}

/** The pods of a workload: its spec.selector (Deployment, StatefulSet, ReplicaSet, Job, most CRDs with a scale subresource). */
function podSelectorOf(template: KubeObject): ReturnType<typeof wireSelector> {
  const selector = (template.spec as { selector?: unknown } | undefined)?.selector;
  return typeof selector === "object" && selector !== null ? wireSelector(selector as KubeLabelSelector) : undefined;
}
