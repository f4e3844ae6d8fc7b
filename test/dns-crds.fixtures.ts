// The multiclusterdns.flotilla.dev CRDs' test cases (test/crds.test.ts runs them against a real
// apiserver): objects they accept, objects they refuse with the field and the reason, and KubeFed's
// own manifests (docs/servicedns-with-externaldns.md) with only their apiVersion changed.
import type { KubernetesObject } from "@kubernetes/client-node";
import { DNS_API_VERSION } from "../shared/api/dns.ts";

export const DNS_NS = "default";

type Obj = Record<string, unknown>;
export type DnsFixture = KubernetesObject & Obj;

export const domain = (name: string, fields: Obj): DnsFixture => ({ apiVersion: DNS_API_VERSION, kind: "Domain", metadata: { name }, ...fields });
export const serviceRecord = (name: string, spec: Obj | undefined): DnsFixture => ({
  apiVersion: DNS_API_VERSION,
  kind: "ServiceDNSRecord",
  metadata: { name, namespace: DNS_NS },
  ...(spec === undefined ? {} : { spec }),
});
export const ingressRecord = (name: string, spec: Obj): DnsFixture => ({ apiVersion: DNS_API_VERSION, kind: "IngressDNSRecord", metadata: { name, namespace: DNS_NS }, spec });

/** Objects the CRDs accept; each must come back with every field it was sent. */
export const validDns: DnsFixture[] = [
  domain("fed", { domain: "example.com", nameServer: "ns1.example.com" }),
  domain("one-label", { domain: "internal" }),
  serviceRecord("web", { domainRef: "fed" }),
  serviceRecord("web-full", { domainRef: "fed", recordTTL: 300, dnsPrefix: "shop.eu", externalName: "shop", allowServiceWithoutEndpoints: true }),
  serviceRecord("web-ttl-max", { domainRef: "fed", recordTTL: 2147483647 }),
  ingressRecord("shop", { hosts: ["shop.example.com", "*.shop.example.com", "api-1.eu.example.com"], recordTTL: 1 }),
  ingressRecord("no-hosts", {}),
];

export interface DnsBadCase {
  what: string;
  obj: DnsFixture;
  /** Every pattern must match the apiserver's message. */
  message: RegExp[];
}

export const badDns: DnsBadCase[] = [
  { what: "a ServiceDNSRecord without spec", obj: serviceRecord("no-spec", undefined), message: [/spec: Required value/] },
  { what: "a ServiceDNSRecord without domainRef", obj: serviceRecord("no-domainref", { recordTTL: 60 }), message: [/spec\.domainRef: Required value/] },
  { what: "an empty domainRef", obj: serviceRecord("empty-domainref", { domainRef: "" }), message: [/spec\.domainRef/, /at least 1 chars/] },
  { what: "recordTTL 0", obj: serviceRecord("ttl-zero", { domainRef: "fed", recordTTL: 0 }), message: [/spec\.recordTTL/, /greater than or equal to 1/] },
  { what: "a negative recordTTL", obj: serviceRecord("ttl-negative", { domainRef: "fed", recordTTL: -5 }), message: [/spec\.recordTTL/, /greater than or equal to 1/] },
  { what: "a recordTTL above 2^31-1", obj: serviceRecord("ttl-big", { domainRef: "fed", recordTTL: 2147483648 }), message: [/spec\.recordTTL/, /less than or equal to 2147483647/] },
  { what: "a recordTTL that is not an integer", obj: serviceRecord("ttl-text", { domainRef: "fed", recordTTL: "5m" }), message: [/spec\.recordTTL/, /integer/] },
  { what: "a dnsPrefix with an underscore", obj: serviceRecord("prefix", { domainRef: "fed", dnsPrefix: "my_shop" }), message: [/spec\.dnsPrefix/, /dnsPrefix must be the start of a DNS name/] },
  { what: "a dnsPrefix ending in a dot", obj: serviceRecord("prefix-dot", { domainRef: "fed", dnsPrefix: "www." }), message: [/spec\.dnsPrefix/, /dnsPrefix must be/] },
  { what: "an externalName with a dot", obj: serviceRecord("external", { domainRef: "fed", externalName: "shop.eu" }), message: [/spec\.externalName/, /externalName must be a DNS label/] },
  { what: "an upper-case externalName", obj: serviceRecord("external-upper", { domainRef: "fed", externalName: "Shop" }), message: [/spec\.externalName/, /DNS label/] },
  { what: "a ServiceDNSRecord named like no Service (a dot)", obj: serviceRecord("web.eu", { domainRef: "fed" }), message: [/metadata\.name/, /named after its Service/] },
  { what: "an invalid host (underscore)", obj: ingressRecord("bad-host", { hosts: ["shop.example.com", "my_shop.example.com"] }), message: [/spec\.hosts\[1\]/, /a host must be a DNS name/] },
  { what: "a host with a label over 63 characters", obj: ingressRecord("long-label", { hosts: [`${"a".repeat(64)}.example.com`] }), message: [/spec\.hosts\[0\]/, /a host must be a DNS name/] },
  { what: "a host with a wildcard in the middle", obj: ingressRecord("mid-wildcard", { hosts: ["shop.*.example.com"] }), message: [/spec\.hosts\[0\]/, /a host must be a DNS name/] },
  { what: "an IP address as host", obj: ingressRecord("ip-host", { hosts: ["10.0.0.1"] }), message: [/spec\.hosts\[0\]/, /not an IP address/] },
  { what: "a host listed twice", obj: ingressRecord("dup-host", { hosts: ["shop.example.com", "shop.example.com"] }), message: [/spec\.hosts\[1\]: Duplicate value/] },
  { what: "an Ingress recordTTL 0", obj: ingressRecord("ingress-ttl", { hosts: ["shop.example.com"], recordTTL: 0 }), message: [/spec\.recordTTL/, /greater than or equal to 1/] },
  { what: "a Domain without domain", obj: domain("no-domain", { nameServer: "ns1.example.com" }), message: [/domain: Required value/] },
  { what: "a Domain with a trailing dot", obj: domain("trailing-dot", { domain: "example.com." }), message: [/domain must be a DNS name/] },
  { what: "an upper-case Domain", obj: domain("upper", { domain: "Example.com" }), message: [/domain must be a DNS name/] },
];

/** KubeFed's guide's Domain and ServiceDNSRecord, with only apiVersion changed (and the zone filled in). */
export const kubefedServiceManifest = `apiVersion: ${DNS_API_VERSION}
kind: Domain
metadata:
  # Corresponds to <federation> in the resource records.
  name: test-domain
  # The namespace running federation-controller-manager.
  namespace: kube-federation-system
# The domain/subdomain that is setup in your external-dns provider.
domain: your.domain.name
---
apiVersion: ${DNS_API_VERSION}
kind: ServiceDNSRecord
metadata:
  # The name of the sample service.
  name: test-service
  # The namespace of the sample deployment/service.
  namespace: test-namespace
spec:
  # The name of the corresponding \`Domain\`.
  domainRef: test-domain
  recordTTL: 300
`;

/** KubeFed's IngressDNSRecord sample, with only apiVersion changed. */
export const kubefedIngressManifest = `apiVersion: ${DNS_API_VERSION}
kind: IngressDNSRecord
metadata:
  name: test-ingress
  namespace: test-namespace
spec:
  hosts:
  - ingress.example.com
  recordTTL: 300
`;

/** A full ServiceDNSRecord status, as the control plane writes it. */
export const serviceRecordStatus = {
  domain: "example.com",
  dns: [
    { cluster: "member1", zone: "eu-1", region: "eu", loadBalancer: { ingress: [{ ip: "10.1.0.1" }, { hostname: "lb.elb.example" }] } },
    { cluster: "member2", zone: "us-1", region: "us" },
  ],
  conditions: [{ type: "Ready", status: "True", reason: "RecordsWritten", message: "", lastTransitionTime: "2026-01-02T03:04:05Z", observedGeneration: 1 }],
};
