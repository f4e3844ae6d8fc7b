// The DNS part (DESIGN §12): the leader's controller that turns ServiceDNSRecords and
// IngressDNSRecords into their status and the DNSEndpoints ExternalDNS publishes.
import { counterOf } from "../../shared/metrics.ts";
import type { ControlPlaneContext, Part } from "../context.ts";
import { DnsController } from "./dns-controller.ts";
import { watchDnsInputs } from "./dns-triggers.ts";
import { HostnameResolver } from "./resolver.ts";

/** Status-driven changes within this window make one look at a record (agents' reports come in bursts). */
const COALESCE_MS = 250;

export function startDns(ctx: ControlPlaneContext): Part {
  const resolver = new HostnameResolver();
  const dns = new DnsController({ caches: ctx.caches, rest: ctx.rest, log: ctx.log, resolver });
  const queue = dns.controller.queue;
  const inputs = watchDnsInputs(ctx.caches, { now: (k) => queue.add(k), later: (k) => queue.addAfter(k, COALESCE_MS) });

  counterOf("flotilla_dns_endpoint_writes_total", "DNSEndpoint writes (server-side applies) by the DNS controller.", () => dns.writes.dnsEndpoint);
  counterOf("flotilla_dns_record_status_writes_total", "ServiceDNSRecord and IngressDNSRecord status writes.", () => dns.writes.recordStatus);
  counterOf("flotilla_dns_hostname_lookups_total", "Load-balancer hostname lookups (not answered from the cache).", () => resolver.lookups);
  return {
    leaderControllers: [dns.controller],
    startedLeading: () => {
      for (const k of inputs.allRecords()) queue.add(k);
    },
  };
}
