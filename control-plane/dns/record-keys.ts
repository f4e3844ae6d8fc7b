// A record's key in the DNS controller's queue is the record's own work key, so it parses back to
// the record (its kind says Service or Ingress) and names the template the record is about: the
// one of the same name and namespace (DESIGN §12).
import { DNS_RESOURCES } from "../../shared/api/dns.ts";
import { parseWorkKey, type WorkRef, workKey } from "../../shared/work-key.ts";

export type RecordKind = "ServiceDNSRecord" | "IngressDNSRecord";

/** The template kind each record kind is about. */
const TEMPLATE_OF: Record<RecordKind, { apiVersion: string; kind: string }> = {
  ServiceDNSRecord: { apiVersion: "v1", kind: "Service" },
  IngressDNSRecord: { apiVersion: "networking.k8s.io/v1", kind: "Ingress" },
};

/** The queue key of a record. */
export function recordKey(kind: RecordKind, namespace: string, name: string): string {
  return workKey({ apiVersion: DNS_RESOURCES.serviceDNSRecord.apiVersion, kind, namespace, name });
}

/** The record a key names, or undefined for a key that names no record. */
export function parseRecordKey(key: string): { kind: RecordKind; namespace: string; name: string } | undefined {
  let ref: WorkRef;
  try {
    ref = parseWorkKey(key);
  } catch {
    return undefined;
  }
  if (ref.apiVersion !== DNS_RESOURCES.serviceDNSRecord.apiVersion || ref.namespace === undefined) return undefined;
  if (ref.kind !== "ServiceDNSRecord" && ref.kind !== "IngressDNSRecord") return undefined;
  return { kind: ref.kind, namespace: ref.namespace, name: ref.name };
}

/** The template a record is about: the Service or Ingress of its name and namespace. */
export function templateOfRecord(r: { kind: RecordKind; namespace: string; name: string }): WorkRef {
  return { ...TEMPLATE_OF[r.kind], namespace: r.namespace, name: r.name };
}

/** The key of the record a template would have, or undefined when no record kind is about the template's kind. */
export function recordKeyOfTemplate(t: WorkRef): string | undefined {
  if (t.namespace === undefined || t.namespace === "") return undefined;
  for (const [kind, of] of Object.entries(TEMPLATE_OF) as [RecordKind, { apiVersion: string; kind: string }][]) {
    if (of.apiVersion === t.apiVersion && of.kind === t.kind) return recordKey(kind, t.namespace, t.name);
  }
  return undefined;
}
