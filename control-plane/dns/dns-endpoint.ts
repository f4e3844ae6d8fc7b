// The DNSEndpoint a record publishes its names through (DESIGN §12): same name and namespace as
// the record, controlled by it, so the control cluster's garbage collector removes it with the
// record and for no other reason. Pure: what to apply, and whether what is there already says it.
import { DNS_API_VERSION, type DNSEndpoint, type Endpoint } from "../../shared/api/dns.ts";
import type { KubeObject } from "../../shared/api/types.ts";
import { canonicalJson } from "../../shared/content-hash.ts";
import { controllerReference } from "../scheduling/binding-spec.ts";

/** The DNSEndpoint a record's endpoints make. */
export function desiredDnsEndpoint(record: KubeObject, endpoints: Endpoint[]): DNSEndpoint {
  const owner = controllerReference(record);
  return {
    apiVersion: DNS_API_VERSION,
    kind: "DNSEndpoint",
    metadata: { name: record.metadata.name, namespace: record.metadata.namespace, ownerReferences: [owner] },
    spec: { endpoints },
  };
}

/** What a DNSEndpoint write changes: its endpoints and its controlling owner. Equal strings, no write. */
export function dnsEndpointContent(e: DNSEndpoint): string {
  const owner = e.metadata.ownerReferences?.find((o) => o.controller === true);
  return canonicalJson({ endpoints: e.spec?.endpoints ?? [], owner: owner && { kind: owner.kind, uid: owner.uid } });
}

/**
 * Why the record may not write the DNSEndpoint there is, or undefined when it may: one that
 * another kind of record controls (a ServiceDNSRecord and an IngressDNSRecord of the same name
 * would both want it), or that nothing controls (someone made it by hand), is not taken over.
 * One its own kind controls under another uid was the record's before it was made again.
 */
export function foreignDnsEndpoint(existing: DNSEndpoint | undefined, record: KubeObject): string | undefined {
  if (existing === undefined) return undefined;
  const owner = existing.metadata.ownerReferences?.find((o) => o.controller === true);
  if (owner === undefined) return `DNSEndpoint ${existing.metadata.name} exists and no record controls it; delete it or rename the record`;
  if (owner.apiVersion.split("/")[0] !== record.apiVersion.split("/")[0] || owner.kind !== record.kind) {
    return `DNSEndpoint ${existing.metadata.name} belongs to ${owner.kind} ${owner.name}; records of different kinds need different names`;
  }
  return undefined;
}
