// The leader's DNS controller (DESIGN §12): each ServiceDNSRecord and IngressDNSRecord → its
// status (where its Service or Ingress is placed, with each cluster's load balancer) and the
// DNSEndpoint that ExternalDNS publishes. Keys are record keys (record-keys.ts). The decisions
// are pure (placed-clusters-of.ts, the record rules, dns-endpoint.ts, dns-conditions.ts); this
// file reads the caches, resolves load-balancer hostnames and writes only what changed.
import type { Logger } from "pino";
import { DNS_RESOURCES, type ClusterDNS, type ClusterIngressDNS, type DNSEndpoint, type Endpoint, type IngressDNSRecord, type ServiceDNSRecord } from "../../shared/api/dns.ts";
import type { Condition } from "../../shared/api/types.ts";
import { canonicalJson } from "../../shared/content-hash.ts";
import { Controller, type ReconcileResult } from "../../shared/controller.ts";
import { isKubeStatus, type KubeRest, objectPath } from "../../shared/kube-rest.ts";
import type { Caches } from "../caches/caches.ts";
import { recordConditions, type RecordProblem } from "./dns-conditions.ts";
import { desiredDnsEndpoint, dnsEndpointContent, foreignDnsEndpoint } from "./dns-endpoint.ts";
import { loadBalancerHostnames } from "./hostnames.ts";
import { ingressEndpoints } from "./ingress-endpoints.ts";
import type { PlacedCluster } from "./placed-cluster.ts";
import { placedClustersOf } from "./placed-clusters-of.ts";
import { parseRecordKey, type RecordKind, templateOfRecord } from "./record-keys.ts";
import type { HostnameResolver } from "./resolver.ts";
import { ingressDnsStatus, serviceDnsStatus } from "./service-dns-status.ts";
import { serviceEndpoints } from "./service-endpoints.ts";

/** The field manager of records' status and of DNSEndpoints. */
export const DNS_FIELD_MANAGER = "flotilla-dns-controller";

/** How soon a record is looked at again while a cache it reads has not listed yet. */
const UNSYNCED_RETRY_MS = 2000;

type DNSRecord = ServiceDNSRecord | IngressDNSRecord;
type RecordStatus = { domain?: string; dns: ClusterDNS[] | ClusterIngressDNS[]; conditions: Condition[] };

/** What one reconcile decided: the record's clusters, and its endpoints when it may publish them. */
interface Decision {
  dns: ClusterDNS[] | ClusterIngressDNS[];
  /** The zone (Domain.domain) the names go under; ServiceDNSRecords only. */
  zone?: string;
  /** Undefined: leave the DNSEndpoint as it is (see problem). */
  endpoints?: Endpoint[];
  problem?: RecordProblem;
  /** The record names load-balancer hostnames: look again once their answers expire. */
  resolvesHostnames: boolean;
}

export class DnsController {
  readonly controller: Controller;
  /** Control-cluster writes, for metrics and tests. */
  readonly writes = { dnsEndpoint: 0, recordStatus: 0 };
  private readonly caches: Caches;
  private readonly rest: KubeRest;
  private readonly log: Logger;
  private readonly resolver: HostnameResolver;
  private readonly now: () => string;
  /** What this controller last wrote, per key: skips a write the cache has not caught up with. */
  private readonly lastEndpoint = new Map<string, string>();
  private readonly lastStatus = new Map<string, { json: string; conditions: Condition[] }>();

  constructor(opts: { caches: Caches; rest: KubeRest; log: Logger; resolver: HostnameResolver; now?: () => string; workers?: number }) {
    this.caches = opts.caches;
    this.rest = opts.rest;
    this.log = opts.log.child({ component: "dns" });
    this.resolver = opts.resolver;
    this.now = opts.now ?? (() => new Date().toISOString().replace(/\.\d{3}Z$/, "Z"));
    this.controller = new Controller({ name: "dns", reconcile: (k) => this.reconcile(k), log: opts.log, workers: opts.workers ?? 2 });
  }

  /** The caches a reconcile reads. */
  private inputs(): { synced: boolean; resource: { plural: string } }[] {
    const c = this.caches;
    return [c.serviceDNSRecords, c.ingressDNSRecords, c.domains, c.dnsEndpoints, c.bindings, c.clusters];
  }

  private recordOf(kind: RecordKind, namespace: string, name: string): DNSRecord | undefined {
    return kind === "ServiceDNSRecord" ? this.caches.serviceDNSRecords.get(name, namespace) : this.caches.ingressDNSRecords.get(name, namespace);
  }

  private async reconcile(key: string): Promise<ReconcileResult> {
    const ref = parseRecordKey(key);
    if (ref === undefined) return undefined;
    // Absence counts only from a synced cache (DESIGN §11): an unlisted bindings cache would
    // read as "placed nowhere" and blank the names, an unlisted DNSEndpoint cache as "none yet".
    const unsynced = this.inputs().filter((i) => !i.synced);
    if (unsynced.length > 0) {
      this.log.debug({ record: key, unsynced: unsynced.map((i) => i.resource.plural) }, "caches not synced; looking again soon");
      return { requeueAfterMs: UNSYNCED_RETRY_MS };
    }
    const record = this.recordOf(ref.kind, ref.namespace, ref.name);
    // A record that is gone takes its DNSEndpoint with it through the owner reference (the
    // garbage collector's work, the only way one is ever deleted); nothing to do here.
    if (record === undefined || record.metadata.deletionTimestamp !== undefined) {
      this.lastEndpoint.delete(key);
      this.lastStatus.delete(key);
      return undefined;
    }
    // Every cluster's entry, also those a large binding's status leaves out (issue 25); until this
    // replica knows them all again (after a restart), the records stay as they are.
    const binding = this.caches.bindingOf(templateOfRecord(ref));
    if (this.caches.bindingEntries.incomplete(binding)) return { requeueAfterMs: UNSYNCED_RETRY_MS };
    const placed = placedClustersOf(this.caches.bindingEntries.complete(binding), (n) => this.caches.clusters.get(n));
    const decision = record.kind === "ServiceDNSRecord" ? await this.decideService(record, placed) : await this.decideIngress(record, placed);
    const problem = decision.endpoints === undefined ? decision.problem : await this.publish(key, record, decision.endpoints);
    const status: RecordStatus = {
      ...(decision.zone !== undefined ? { domain: decision.zone } : {}),
      dns: decision.dns,
      conditions: recordConditions({
        ...(problem ? { problem } : {}),
        endpointName: record.metadata.name ?? "",
        ...(record.metadata.generation !== undefined ? { generation: record.metadata.generation } : {}),
        // Our last write's, while the cache may not have it yet: its transition time holds.
        previous: this.lastStatus.get(key)?.conditions ?? record.status?.conditions,
        now: this.now(),
      }),
    };
    await this.writeStatus(key, record, status);
    return decision.resolvesHostnames ? { requeueAfterMs: this.resolver.ttlMs } : undefined;
  }

  private async decideService(record: ServiceDNSRecord, placed: PlacedCluster[]): Promise<Decision> {
    const dns = serviceDnsStatus(placed, record.spec.allowServiceWithoutEndpoints === true);
    const domainRef = record.spec.domainRef;
    const domain = this.caches.domains.get(domainRef);
    // No zone to put names under. What was published stays (DESIGN §11's "keep and report"): a
    // Domain deleted and made again, or applied after its records, must not blank the names
    // in between; the condition says so, and deleting the record removes them.
    if (domain === undefined) return { dns, problem: { reason: "DomainNotFound", domainRef }, resolvesHostnames: false };
    const hostnames = loadBalancerHostnames(dns);
    const answers = await this.resolver.resolveAll(hostnames);
    const endpoints = serviceEndpoints({
      service: record.metadata.name ?? "",
      namespace: record.metadata.namespace ?? "",
      domainName: domain.metadata.name ?? "",
      zone: domain.domain,
      spec: record.spec,
      dns,
      resolve: (h) => answers.get(h),
    });
    return { dns, zone: domain.domain, endpoints, resolvesHostnames: hostnames.length > 0 };
  }

  private async decideIngress(record: IngressDNSRecord, placed: PlacedCluster[]): Promise<Decision> {
    const dns = ingressDnsStatus(placed);
    const hostnames = loadBalancerHostnames(dns);
    const answers = await this.resolver.resolveAll(hostnames);
    const endpoints = ingressEndpoints({
      hosts: record.spec.hosts ?? [],
      ...(record.spec.recordTTL !== undefined ? { recordTTL: record.spec.recordTTL } : {}),
      dns,
      resolve: (h) => answers.get(h),
    });
    return { dns, endpoints, resolvesHostnames: hostnames.length > 0 };
  }

  /** Applies the record's DNSEndpoint when its content changes; the problem that kept it from being written, if any. */
  private async publish(key: string, record: DNSRecord, endpoints: Endpoint[]): Promise<RecordProblem | undefined> {
    const { name, namespace } = record.metadata;
    const existing = this.caches.dnsEndpoints.get(name ?? "", namespace);
    const foreign = foreignDnsEndpoint(existing, record);
    if (foreign !== undefined) return { reason: "DNSEndpointConflict", message: foreign };
    const desired = desiredDnsEndpoint(record, endpoints);
    const content = dnsEndpointContent(desired);
    if ((existing !== undefined && dnsEndpointContent(existing) === content) || this.lastEndpoint.get(key) === content) return undefined;
    this.writes.dnsEndpoint++;
    try {
      await this.rest.apply<DNSEndpoint>(objectPath(DNS_RESOURCES.dnsEndpoint, namespace, name ?? ""), desired, DNS_FIELD_MANAGER);
    } catch (err) {
      // Refused content (a name the DNSEndpoint's schema does not take) is the user's to fix:
      // said on the record, not retried until something changes. Anything else is retried.
      if (!isKubeStatus(err, 400, 422)) throw err;
      this.lastEndpoint.delete(key);
      this.log.warn({ record: name, namespace, err: err.message }, "DNSEndpoint refused");
      return { reason: "DNSEndpointRejected", message: err.message };
    }
    this.lastEndpoint.set(key, content);
    this.log.info({ record: name, namespace, kind: record.kind, endpoints: endpoints.length }, "DNSEndpoint written");
    return undefined;
  }

  private async writeStatus(key: string, record: DNSRecord, status: RecordStatus): Promise<void> {
    const mine = canonicalJson(status);
    // Skip when the record already says so, or when we just wrote exactly this (the cache lags).
    if (mine === canonicalJson(record.status ?? {}) || this.lastStatus.get(key)?.json === mine) return;
    this.writes.recordStatus++;
    const resource = record.kind === "ServiceDNSRecord" ? DNS_RESOURCES.serviceDNSRecord : DNS_RESOURCES.ingressDNSRecord;
    const { name, namespace } = record.metadata;
    const body = { apiVersion: record.apiVersion, kind: record.kind, metadata: { name, namespace }, status };
    await this.rest.apply(objectPath(resource, namespace, name ?? "", "status"), body, DNS_FIELD_MANAGER).catch((err: unknown) => {
      if (!isKubeStatus(err, 404)) throw err; // a record deleted meanwhile needs no status
    });
    this.lastStatus.set(key, { json: mine, conditions: status.conditions });
  }
}
