// A load balancer's addresses: the IPs it names, and the hostnames it names, which the
// controller resolves (outside these pure rules) and hands back through `resolve`.
import { isIPv4 } from "node:net";
import type { LoadBalancerStatus } from "../../shared/api/dns.ts";

/** Addresses of a load-balancer hostname; undefined or [] when it does not resolve. */
export type Resolve = (hostname: string) => string[] | undefined;

/** The load-balancer hostnames (not IPs) the entries name, sorted, without duplicates: what the controller must resolve. */
export function loadBalancerHostnames(entries: { loadBalancer?: LoadBalancerStatus }[]): string[] {
  return sortedUnique(entries.flatMap((e) => (e.loadBalancer?.ingress ?? []).flatMap((i) => (i.hostname ? [i.hostname] : []))));
}

/**
 * The IPv4 addresses the load balancers give: their IPs and their resolved hostnames. Only IPv4,
 * because the records are A records; an IPv6 address would need an AAAA record.
 */
export function loadBalancerAddresses(lbs: (LoadBalancerStatus | undefined)[], resolve: Resolve): string[] {
  const addresses = lbs.flatMap((lb) =>
    (lb?.ingress ?? []).flatMap((i) => [...(i.ip ? [i.ip] : []), ...(i.hostname ? (resolve(i.hostname) ?? []) : [])]),
  );
  return sortedUnique(addresses.filter((a) => isIPv4(a)));
}

/** Sorted by code unit (the same order everywhere, whatever the locale), without duplicates. */
export function sortedUnique(values: Iterable<string>): string[] {
  return [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
