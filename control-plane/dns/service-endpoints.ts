// A ServiceDNSRecord's DNS records (DESIGN §12), from its status.dns: for Service s in namespace
// n under Domain object d with zone z, the names
//   s.n.d.svc.z (global), s.n.d.svc.<region>.z, s.n.d.svc.<zone>.<region>.z,
// each an A record of the addresses in its scope or, when the scope has none, a CNAME one level
// up (zone → region → global), so a resolver in a zone that lost its load balancers follows the
// chain to the nearest scope that has some. The global name with no address has no record.
import { DEFAULT_RECORD_TTL, type ClusterDNS, type Endpoint, type ServiceDNSRecordSpec } from "../../shared/api/dns.ts";
import { loadBalancerAddresses, type Resolve } from "./hostnames.ts";

export interface ServiceEndpointsInput {
  service: string;
  namespace: string;
  /** The Domain object's name. */
  domainName: string;
  /** Domain.domain: the zone the names go under. */
  zone: string;
  spec: ServiceDNSRecordSpec;
  dns: ClusterDNS[];
  /** Addresses of a load-balancer hostname; undefined or [] when it does not resolve. */
  resolve: Resolve;
}

/** The records, sorted by dnsName, one per name. */
export function serviceEndpoints(input: ServiceEndpointsInput): Endpoint[] {
  const { spec, dns, resolve } = input;
  const ttl = spec.recordTTL ?? DEFAULT_RECORD_TTL;
  const base = `${spec.externalName || input.service}.${input.namespace}.${input.domainName}.svc`;
  const global = `${base}.${input.zone}`;
  const records = new Map<string, Endpoint>();
  const add = (dnsName: string, addresses: string[], up: string | undefined): void => {
    if (addresses.length > 0) records.set(dnsName, { dnsName, recordType: "A", targets: addresses, recordTTL: ttl });
    else if (up !== undefined) records.set(dnsName, { dnsName, recordType: "CNAME", targets: [up], recordTTL: ttl });
  };

  add(global, loadBalancerAddresses(dns.map((c) => c.loadBalancer), resolve), undefined);
  for (const [region, inRegion] of groupBy(dns, (c) => scopeLabels(c).region)) {
    add(`${base}.${region}.${input.zone}`, loadBalancerAddresses(inRegion.map((c) => c.loadBalancer), resolve), global);
  }
  for (const [zoneAndRegion, inZone] of groupBy(dns, (c) => scopeLabels(c).zoneAndRegion)) {
    const region = zoneAndRegion.slice(zoneAndRegion.indexOf(".") + 1);
    add(`${base}.${zoneAndRegion}.${input.zone}`, loadBalancerAddresses(inZone.map((c) => c.loadBalancer), resolve), `${base}.${region}.${input.zone}`);
  }
  // The prefix never displaces a scope's record: a name holds one CNAME or A records, not both.
  const prefixed = spec.dnsPrefix ? `${spec.dnsPrefix}.${input.zone}` : undefined;
  if (prefixed !== undefined && !records.has(prefixed)) add(prefixed, [], global);

  return [...records.values()].sort((a, b) => (a.dnsName < b.dnsName ? -1 : a.dnsName > b.dnsName ? 1 : 0));
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/**
 * The labels a cluster's region and zone give its names (lowercased, as DNS compares names). A
 * region or zone that is not a DNS label gets no name of its own, and a zone names nothing
 * without a region (its name holds both); the cluster's addresses still count in the scopes above.
 */
function scopeLabels(c: ClusterDNS): { region?: string; zoneAndRegion?: string } {
  const region = c.region?.toLowerCase();
  if (region === undefined || !DNS_LABEL.test(region)) return {};
  const zone = c.zone?.toLowerCase();
  return { region, ...(zone !== undefined && DNS_LABEL.test(zone) ? { zoneAndRegion: `${zone}.${region}` } : {}) };
}

function groupBy<T>(items: T[], key: (item: T) => string | undefined): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    if (k !== undefined) groups.set(k, [...(groups.get(k) ?? []), item]);
  }
  return groups;
}
