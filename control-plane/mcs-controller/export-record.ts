// An agent's ServiceExportReport → the MemberServiceExport record the control cluster keeps
// (issue 40): pure. The agent is a peer the hub does not trust (DESIGN §7): its JSON is checked
// field by field, the cluster comes from its certificate, never from the report, and anything
// malformed is refused whole (the record already kept stays as it was).
import type { EndpointPort, ExportedEndpoint, ExportedEndpointSlice, ImportType, MemberServiceExport, MemberServiceExportSpec, ServicePort } from "../../shared/api/mcs.ts";
import { API_VERSION } from "../../shared/api/types.ts";

/** The record's name: `<cluster>.<namespace>.<name>` (each a DNS label, so the name is unique and at most 191 characters). */
export function recordName(cluster: string, namespace: string, name: string): string {
  return `${cluster}.${namespace}.${name}`;
}

/** Label on each record: its cluster (the resync of one cluster lists only its records). */
export const RECORD_CLUSTER_LABEL = "flotilla.dev/cluster";

export const RECORD_BOUNDS = { ports: 100, slices: 100, endpoints: 1000, addresses: 100, mapEntries: 64, text: 253, value: 4096 } as const;

type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const PROTOCOLS = new Set(["TCP", "UDP", "SCTP"]);
const TYPES = new Set<ImportType>(["ClusterSetIP", "Headless"]);
const ADDRESS_TYPES = new Set(["IPv4", "IPv6", "FQDN"]);

class Refused extends Error {}

function str(v: unknown, at: string, max: number = RECORD_BOUNDS.text): string {
  if (typeof v !== "string" || v.length > max) throw new Refused(`${at} is not a string of at most ${max} characters`);
  return v;
}
function optStr(v: unknown, at: string, max: number = RECORD_BOUNDS.text): string | undefined {
  return v === undefined ? undefined : str(v, at, max);
}
function port(v: unknown, at: string, min: number): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > 65535) throw new Refused(`${at} is not a port number`);
  return v;
}
function list<T>(v: unknown, at: string, max: number, each: (x: unknown, at: string) => T): T[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.length > max) throw new Refused(`${at} is not a list of at most ${max}`);
  return v.map((x, i) => each(x, `${at}[${i}]`));
}
function stringMap(v: unknown, at: string): Record<string, string> | undefined {
  if (v === undefined) return undefined;
  if (!isObject(v) || Object.keys(v).length > RECORD_BOUNDS.mapEntries) throw new Refused(`${at} is not a map of at most ${RECORD_BOUNDS.mapEntries} entries`);
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [str(k, `${at} key`), str(x, `${at}[${k}]`, RECORD_BOUNDS.value)]));
}
const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** A label or annotation key Kubernetes takes ([prefix/]name), and not one of Flotilla's own (which steer the agent). */
export function exportableKey(key: string): boolean {
  const slash = key.lastIndexOf("/");
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (name.length > 63 || !LABEL_NAME.test(name)) return false;
  if (prefix === undefined) return true;
  if (prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix)) return false;
  return prefix !== "flotilla.dev" && !prefix.endsWith(".flotilla.dev");
}

/** A label value Kubernetes takes. */
function labelValue(v: string): boolean {
  return v === "" || (v.length <= 63 && LABEL_NAME.test(v));
}

/**
 * The exported labels or annotations a ServiceImport may carry: those Kubernetes takes, never
 * Flotilla's own keys (an annotation such as flotilla.dev/adopt would steer every member's agent).
 */
function exportable(m: Record<string, string> | undefined, labels: boolean): Record<string, string> | undefined {
  if (m === undefined) return undefined;
  return Object.fromEntries(Object.entries(m).filter(([k, v]) => exportableKey(k) && (!labels || labelValue(v))));
}

function protocol(v: unknown, at: string): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "string" || !PROTOCOLS.has(v)) throw new Refused(`${at} is not TCP, UDP or SCTP`);
  return v;
}
function object(v: unknown, at: string): Record<string, unknown> {
  if (!isObject(v)) throw new Refused(`${at} is not an object`);
  return v;
}
/** Only the fields that are set: the record's JSON stays canonical. */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

function servicePort(v: unknown, at: string): ServicePort {
  const o = object(v, at);
  return defined({ name: optStr(o.name, `${at}.name`, 63), protocol: protocol(o.protocol, `${at}.protocol`), appProtocol: optStr(o.appProtocol, `${at}.appProtocol`), port: port(o.port, `${at}.port`, 1) });
}
function endpointPort(v: unknown, at: string): EndpointPort {
  const o = object(v, at);
  return defined({ name: optStr(o.name, `${at}.name`, 63), protocol: protocol(o.protocol, `${at}.protocol`), appProtocol: optStr(o.appProtocol, `${at}.appProtocol`), port: o.port === undefined ? undefined : port(o.port, `${at}.port`, 0) });
}
function bool(v: unknown, at: string): boolean | undefined {
  if (v !== undefined && typeof v !== "boolean") throw new Refused(`${at} is not a boolean`);
  return v;
}
function endpoint(v: unknown, at: string): ExportedEndpoint {
  const o = object(v, at);
  const c = o.conditions === undefined ? undefined : object(o.conditions, `${at}.conditions`);
  const addresses = list(o.addresses, `${at}.addresses`, RECORD_BOUNDS.addresses, (x, a) => str(x, a));
  if (addresses.length === 0) throw new Refused(`${at}.addresses is empty`);
  return defined({
    addresses,
    conditions: c === undefined ? undefined : defined({ ready: bool(c.ready, `${at}.conditions.ready`), serving: bool(c.serving, `${at}.conditions.serving`), terminating: bool(c.terminating, `${at}.conditions.terminating`) }),
    hostname: optStr(o.hostname, `${at}.hostname`, 63),
    zone: optStr(o.zone, `${at}.zone`),
  });
}
function slice(v: unknown, at: string): ExportedEndpointSlice {
  const o = object(v, at);
  const addressType = str(o.addressType, `${at}.addressType`);
  if (!ADDRESS_TYPES.has(addressType)) throw new Refused(`${at}.addressType is not IPv4, IPv6 or FQDN`);
  return {
    name: str(o.name, `${at}.name`),
    addressType,
    ports: list(o.ports, `${at}.ports`, RECORD_BOUNDS.ports, endpointPort),
    endpoints: list(o.endpoints, `${at}.endpoints`, RECORD_BOUNDS.endpoints, endpoint),
  };
}

/** The spec of the record for a report's JSON, the cluster being the stream's: pure. */
export function parseExport(cluster: string, namespace: string, name: string, json: Buffer | string): Parsed<MemberServiceExportSpec> {
  let raw: unknown;
  try {
    raw = JSON.parse(json.toString());
  } catch {
    return { ok: false, reason: "the export is not JSON" };
  }
  try {
    const o = object(raw, "export");
    const type = str(o.type, "type");
    if (!TYPES.has(type as ImportType)) throw new Refused("type is not ClusterSetIP or Headless");
    const created = str(o.exportCreationTimestamp, "exportCreationTimestamp", 64);
    if (Number.isNaN(Date.parse(created))) throw new Refused("exportCreationTimestamp is not a time");
    const affinity = o.sessionAffinityConfig === undefined ? undefined : object(o.sessionAffinityConfig, "sessionAffinityConfig");
    const clientIP = affinity?.clientIP === undefined ? undefined : object(affinity.clientIP, "sessionAffinityConfig.clientIP");
    const timeout = clientIP?.timeoutSeconds;
    if (timeout !== undefined && (typeof timeout !== "number" || !Number.isInteger(timeout) || timeout < 0 || timeout > 86400)) throw new Refused("sessionAffinityConfig.clientIP.timeoutSeconds is not 0–86400");
    const spec: MemberServiceExportSpec = defined({
      cluster,
      namespace,
      name,
      exportCreationTimestamp: created,
      exportUid: str(o.exportUid, "exportUid", 64),
      type: type as ImportType,
      ports: list(o.ports, "ports", RECORD_BOUNDS.ports, servicePort),
      sessionAffinity: optStr(o.sessionAffinity, "sessionAffinity", 32),
      sessionAffinityConfig: clientIP === undefined ? undefined : { clientIP: defined({ timeoutSeconds: timeout as number | undefined }) },
      internalTrafficPolicy: optStr(o.internalTrafficPolicy, "internalTrafficPolicy", 32),
      trafficDistribution: optStr(o.trafficDistribution, "trafficDistribution", 64),
      ipFamilies: o.ipFamilies === undefined ? undefined : list(o.ipFamilies, "ipFamilies", 2, (x, a) => str(x, a, 8)),
      exportedLabels: exportable(stringMap(o.exportedLabels, "exportedLabels"), true),
      exportedAnnotations: exportable(stringMap(o.exportedAnnotations, "exportedAnnotations"), false),
      endpointSlices: list(o.endpointSlices, "endpointSlices", RECORD_BOUNDS.slices, slice),
    });
    return { ok: true, value: spec };
  } catch (err) {
    if (err instanceof Refused) return { ok: false, reason: err.message };
    throw err;
  }
}

/** The record to server-side apply for a spec. */
export function exportRecord(spec: MemberServiceExportSpec): MemberServiceExport {
  return {
    apiVersion: API_VERSION,
    kind: "MemberServiceExport",
    metadata: { name: recordName(spec.cluster, spec.namespace, spec.name), labels: { [RECORD_CLUSTER_LABEL]: spec.cluster } },
    spec,
  };
}
