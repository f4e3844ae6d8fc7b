// A record's status.dns (DESIGN §12): one entry per cluster the Service or Ingress is placed on,
// carrying a load balancer only while that cluster can take traffic.
import type { ClusterDNS, ClusterIngressDNS, LoadBalancerStatus } from "../../shared/api/dns.ts";
import type { PlacedCluster } from "./placed-cluster.ts";

/**
 * ServiceDNSRecord status.dns, sorted by cluster. A cluster lists its load balancer only while it
 * is Ready and its Service has ready endpoints (or allowServiceWithoutEndpoints). Endpoints not
 * reported (undefined: an agent that does not report them yet) count as none, as Kubernetes
 * counts a Pod whose readiness is unknown as not ready: DNS never sends users to a cluster
 * nobody has seen serve. allowServiceWithoutEndpoints lists such a cluster anyway.
 */
export function serviceDnsStatus(clusters: PlacedCluster[], allowServiceWithoutEndpoints: boolean): ClusterDNS[] {
  return byName(clusters).map((c) => {
    const serving = c.ready && (allowServiceWithoutEndpoints || (c.readyEndpoints ?? 0) > 0);
    const loadBalancer = serving ? listedLoadBalancer(c.loadBalancer) : undefined;
    return {
      cluster: c.name,
      ...(c.zone ? { zone: c.zone } : {}),
      ...(c.region ? { region: c.region } : {}),
      ...(loadBalancer ? { loadBalancer } : {}),
    };
  });
}

/** IngressDNSRecord status.dns, sorted by cluster: a Ready cluster lists its Ingress's load balancer. */
export function ingressDnsStatus(clusters: PlacedCluster[]): ClusterIngressDNS[] {
  return byName(clusters).map((c) => {
    const loadBalancer = c.ready ? listedLoadBalancer(c.loadBalancer) : undefined;
    return { cluster: c.name, ...(loadBalancer ? { loadBalancer } : {}) };
  });
}

const byName = (clusters: PlacedCluster[]): PlacedCluster[] => [...clusters].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

/**
 * The load balancer as status lists it: only ip and hostname of each ingress (the fields the CRD
 * keeps, so the status the controller compares is the status the apiserver stores), entries with
 * neither dropped, undefined when nothing is left.
 */
function listedLoadBalancer(lb: LoadBalancerStatus | undefined): LoadBalancerStatus | undefined {
  const ingress = (lb?.ingress ?? []).flatMap((i) => (i.ip || i.hostname ? [{ ...(i.ip ? { ip: i.ip } : {}), ...(i.hostname ? { hostname: i.hostname } : {}) }] : []));
  return ingress.length > 0 ? { ingress } : undefined;
}
