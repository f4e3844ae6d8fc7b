// Multi-cluster DNS (DESIGN §12): KubeFed's multiclusterdns kinds under Flotilla's group, with
// KubeFed's field names, so a KubeFed manifest ports by changing its apiVersion.
import type { ResourceInfo } from "../kube-rest.ts";
import type { Condition, KubeObject } from "./types.ts";

export const DNS_GROUP = "multiclusterdns.flotilla.dev";
export const DNS_API_VERSION = `${DNS_GROUP}/v1alpha1`;
/** A record's TTL when spec.recordTTL is absent, in seconds (KubeFed's default). */
export const DEFAULT_RECORD_TTL = 180;

const r = (kind: string, plural: string, namespaced: boolean): ResourceInfo => ({ apiVersion: DNS_API_VERSION, kind, plural, namespaced });

/** The REST resources of the DNS CRDs. */
export const DNS_RESOURCES = {
  domain: r("Domain", "domains", false),
  serviceDNSRecord: r("ServiceDNSRecord", "servicednsrecords", true),
  ingressDNSRecord: r("IngressDNSRecord", "ingressdnsrecords", true),
  dnsEndpoint: r("DNSEndpoint", "dnsendpoints", true),
} as const;

/** A DNS zone the records live under. Cluster-scoped; its fields are top-level, as in KubeFed. */
export interface Domain extends KubeObject {
  kind: "Domain";
  /** The zone, e.g. example.com. */
  domain: string;
  /** The zone's authoritative name server (informational). */
  nameServer?: string;
}

/** corev1.LoadBalancerStatus: what a member's Service or Ingress reports. */
export interface LoadBalancerStatus {
  ingress?: { ip?: string; hostname?: string }[];
}

export interface ServiceDNSRecordSpec {
  /** The name of the Domain the names go under. */
  domainRef: string;
  /** Seconds; DEFAULT_RECORD_TTL when absent. */
  recordTTL?: number;
  /** Adds the CNAME <dnsPrefix>.<zone> → the global name. */
  dnsPrefix?: string;
  /** Replaces the Service's name in every record name. */
  externalName?: string;
  /** List a cluster's load balancer even when its Service has no ready endpoints. */
  allowServiceWithoutEndpoints?: boolean;
}

/** One cluster where the Service of the record's name is placed. */
export interface ClusterDNS {
  cluster: string;
  zone?: string;
  region?: string;
  /** Empty when the cluster is not ready, or its Service has no ready endpoints (unless allowed). */
  loadBalancer?: LoadBalancerStatus;
}

export interface ServiceDNSRecord extends KubeObject {
  kind: "ServiceDNSRecord";
  spec: ServiceDNSRecordSpec;
  status?: { domain?: string; dns?: ClusterDNS[]; conditions?: Condition[] };
}

export interface IngressDNSRecordSpec {
  hosts?: string[];
  recordTTL?: number;
}

export interface ClusterIngressDNS {
  cluster: string;
  loadBalancer?: LoadBalancerStatus;
}

export interface IngressDNSRecord extends KubeObject {
  kind: "IngressDNSRecord";
  spec: IngressDNSRecordSpec;
  status?: { dns?: ClusterIngressDNS[]; conditions?: Condition[] };
}

/** One DNS record, in the shape ExternalDNS's CRD source reads. */
export interface Endpoint {
  dnsName: string;
  /** Sorted, without duplicates. */
  targets: string[];
  recordType: "A" | "CNAME";
  recordTTL?: number;
  labels?: Record<string, string>;
  providerSpecific?: { name: string; value: string }[];
}

export interface DNSEndpoint extends KubeObject {
  kind: "DNSEndpoint";
  spec: { endpoints?: Endpoint[] };
  status?: { observedGeneration?: number };
}
