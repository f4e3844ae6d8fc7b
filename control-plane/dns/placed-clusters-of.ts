// Where a record's Service or Ingress is placed, as the control plane sees it: the binding's
// clusters, each with its Cluster's zone, region and readiness and its aggregatedStatus entry's
// load balancer and ready endpoints. Pure: the DNS controller reads the caches and calls it.
import type { LoadBalancerStatus } from "../../shared/api/dns.ts";
import type { AggregatedStatusItem, Cluster, ResourceBinding } from "../../shared/api/types.ts";
import { clusterReady } from "../scheduling/placement.ts";
import type { PlacedCluster } from "./placed-cluster.ts";

/** At most this many load-balancer ingress points are read per cluster (agents' reports are bounded; this bounds the DNS answer too). */
export const MAX_INGRESS_POINTS = 16;

/**
 * The clusters a binding places its object on (targets, and clusters still holding a copy while
 * it is replaced elsewhere), sorted by name. A binding being deleted places nothing: its object
 * is leaving every member, so nothing should send traffic there. A Cluster the cache does not
 * hold (unjoined) counts as not ready: it keeps its entry, without a load balancer.
 */
export function placedClustersOf(binding: ResourceBinding | undefined, clusterNamed: (name: string) => Cluster | undefined): PlacedCluster[] {
  if (binding === undefined || binding.metadata.deletionTimestamp !== undefined) return [];
  const names = [...new Set([...binding.spec.clusters.map((c) => c.name), ...(binding.spec.gracefulEvictionTasks ?? []).map((t) => t.fromCluster)])].sort();
  const entries = new Map((binding.status?.aggregatedStatus ?? []).map((e) => [e.clusterName, e]));
  return names.map((name) => placedCluster(name, clusterNamed(name), entries.get(name)));
}

function placedCluster(name: string, cluster: Cluster | undefined, entry: AggregatedStatusItem | undefined): PlacedCluster {
  // An entry marked ClusterNotReady holds what the member said before it went quiet: not news.
  const ready = cluster !== undefined && clusterReady(cluster) && entry?.reason !== "ClusterNotReady";
  const placed: PlacedCluster = { name, ready };
  if (cluster?.spec.zone) placed.zone = cluster.spec.zone;
  if (cluster?.spec.region) placed.region = cluster.spec.region;
  const loadBalancer = loadBalancerOf(entry?.status);
  if (loadBalancer !== undefined) placed.loadBalancer = loadBalancer;
  if (entry?.readyEndpoints !== undefined) placed.readyEndpoints = entry.readyEndpoints;
  return placed;
}

/**
 * The member object's status.loadBalancer, kept to its ip and hostname strings: a Service's or
 * an Ingress's ingress points may carry ports and more, which records do not show.
 */
export function loadBalancerOf(status: Record<string, unknown> | undefined): LoadBalancerStatus | undefined {
  const lb = status?.loadBalancer;
  if (typeof lb !== "object" || lb === null) return undefined;
  const ingress = (lb as { ingress?: unknown }).ingress;
  if (!Array.isArray(ingress)) return {};
  const points: { ip?: string; hostname?: string }[] = [];
  for (const i of ingress.slice(0, MAX_INGRESS_POINTS) as unknown[]) {
    if (typeof i !== "object" || i === null) continue;
    const { ip, hostname } = i as { ip?: unknown; hostname?: unknown };
    const point: { ip?: string; hostname?: string } = {};
    if (typeof ip === "string" && ip !== "") point.ip = ip;
    if (typeof hostname === "string" && hostname !== "") point.hostname = hostname;
    if (point.ip !== undefined || point.hostname !== undefined) points.push(point);
  }
  return points.length === 0 ? {} : { ingress: points };
}
