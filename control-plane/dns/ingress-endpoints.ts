// An IngressDNSRecord's DNS records (DESIGN §12): each host answers with the load-balancer
// addresses of every cluster its Ingress is placed on; a host with no address gets no record.
import { DEFAULT_RECORD_TTL, type ClusterIngressDNS, type Endpoint } from "../../shared/api/dns.ts";
import { loadBalancerAddresses, sortedUnique, type Resolve } from "./hostnames.ts";

export interface IngressEndpointsInput {
  hosts: string[];
  recordTTL?: number;
  dns: ClusterIngressDNS[];
  /** Addresses of a load-balancer hostname; undefined or [] when it does not resolve. */
  resolve: Resolve;
}

/** One A record per host (hosts named twice merge), sorted by dnsName. */
export function ingressEndpoints(input: IngressEndpointsInput): Endpoint[] {
  const targets = loadBalancerAddresses(input.dns.map((c) => c.loadBalancer), input.resolve);
  if (targets.length === 0) return [];
  const recordTTL = input.recordTTL ?? DEFAULT_RECORD_TTL;
  return sortedUnique(input.hosts.map((h) => h.toLowerCase())).map((dnsName) => ({ dnsName, recordType: "A", targets: [...targets], recordTTL }));
}
