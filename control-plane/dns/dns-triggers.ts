// What makes the DNS controller look at a record again, each bounded by what it touches: the
// record itself; its Domain (through an index of records by domainRef); its Service's or
// Ingress's binding (placement and the agents' status); a Cluster whose zone, region or
// readiness changed (the bindings that involve it); the record's DNSEndpoint (healed if edited
// or deleted by hand).
import type { DNSEndpoint, Domain, ServiceDNSRecord } from "../../shared/api/dns.ts";
import type { KubeObject, ResourceBinding } from "../../shared/api/types.ts";
import { parseWorkKey } from "../../shared/work-key.ts";
import type { Caches } from "../caches/caches.ts";
import { clusterReady } from "../scheduling/placement.ts";
import { parseRecordKey, recordKey, type RecordKind, recordKeyOfTemplate } from "./record-keys.ts";
import { DomainRefIndex } from "./record-index.ts";

export interface DnsQueue {
  /** Look now: the user changed something. */
  now(key: string): void;
  /** Look within the coalescing window: status-driven changes, which come in bursts. */
  later(key: string): void;
}

const keyOf = (kind: RecordKind, o: KubeObject) => recordKey(kind, o.metadata.namespace ?? "", o.metadata.name ?? "");

/** Registers the handlers on the caches; returns every record's key (for taking the lead). */
export function watchDnsInputs(caches: Caches, queue: DnsQueue): { allRecords(): string[] } {
  const byDomain = new DomainRefIndex();
  // Our status writes come back as updates; only a spec change (a new generation) is news.
  const generations = new Map<string, number | undefined>();
  const recordHandlers = (kind: RecordKind, onSet?: (key: string, o: KubeObject) => void) => ({
    add: (o: KubeObject) => {
      const key = keyOf(kind, o);
      generations.set(key, o.metadata.generation);
      onSet?.(key, o);
      queue.now(key);
    },
    update: (o: KubeObject) => {
      const key = keyOf(kind, o);
      if (generations.get(key) === o.metadata.generation && o.metadata.generation !== undefined && o.metadata.deletionTimestamp === undefined) return;
      generations.set(key, o.metadata.generation);
      onSet?.(key, o);
      queue.now(key);
    },
    delete: (o: KubeObject) => {
      const key = keyOf(kind, o);
      generations.delete(key);
      byDomain.delete(key);
      queue.now(key); // forgets what it wrote
    },
  });
  caches.serviceDNSRecords.on(recordHandlers("ServiceDNSRecord", (key, o) => byDomain.set(key, (o as ServiceDNSRecord).spec.domainRef)));
  caches.ingressDNSRecords.on(recordHandlers("IngressDNSRecord"));

  const domainChanged = (d: Domain) => {
    for (const key of byDomain.naming(d.metadata.name ?? "")) queue.now(key);
  };
  caches.domains.on({ add: domainChanged, update: domainChanged, delete: domainChanged });

  // Only a record that exists is looked at: most bindings have none.
  const ifRecord = (key: string | undefined, enqueue: (key: string) => void) => {
    const ref = key === undefined ? undefined : parseRecordKey(key);
    if (key === undefined || ref === undefined) return;
    const informer = ref.kind === "ServiceDNSRecord" ? caches.serviceDNSRecords : caches.ingressDNSRecords;
    if (informer.get(ref.name, ref.namespace) !== undefined) enqueue(key);
  };
  const bindingChanged = (b: ResourceBinding) => {
    const r = b.spec.resource;
    ifRecord(recordKeyOfTemplate({ apiVersion: r.apiVersion, kind: r.kind, namespace: r.namespace, name: r.name }), queue.later);
  };
  caches.bindings.on({ add: bindingChanged, update: bindingChanged, delete: bindingChanged });

  caches.onClusterShapeChange(
    (c) => JSON.stringify([c.spec.zone ?? "", c.spec.region ?? "", clusterReady(c)]),
    (cluster) => {
      for (const templateKey of caches.bindingIndex.involving(cluster)) ifRecord(recordKeyOfTemplate(parseWorkKey(templateKey)), queue.later);
    },
  );

  const endpointChanged = (e: DNSEndpoint) => {
    const owner = e.metadata.ownerReferences?.find((o) => o.controller === true);
    if (owner?.kind === "ServiceDNSRecord" || owner?.kind === "IngressDNSRecord") ifRecord(keyOf(owner.kind, e), queue.later);
  };
  caches.dnsEndpoints.on({ add: endpointChanged, update: endpointChanged, delete: endpointChanged });

  return {
    allRecords: () => [...caches.serviceDNSRecords.list().map((o) => keyOf("ServiceDNSRecord", o)), ...caches.ingressDNSRecords.list().map((o) => keyOf("IngressDNSRecord", o))],
  };
}
