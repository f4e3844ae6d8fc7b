// The fleet's load balancer addresses for a Service or an Ingress: every member's ingress points
// once, their ports merged, sorted as Karmada's DedupeAndSort*LoadBalancerIngress sorts them. Pure.
import { compareStrings, type Json, rec, records, str } from "./object.ts";

/** Whether a status' load balancer has at least one address (an ip or a hostname). */
export function hasAddress(status: Json): boolean {
  return records(rec(status.loadBalancer).ingress).some((i) => str(i.ip) !== "" || str(i.hostname) !== "");
}

/**
 * Every member's load balancer ingress points, one per hostname, ip (and ipMode, for a Service),
 * each with the union of its ports; hostnames first (sorted), then ip, then ipMode (none last).
 */
export function mergeIngress(statuses: readonly Json[], withIpMode: boolean): Json[] {
  const byKey = new Map<string, { entry: Json; ports: Map<string, Json> }>();
  for (const s of statuses) {
    for (const ingress of records(rec(s.loadBalancer).ingress)) {
      const ipMode = withIpMode && typeof ingress.ipMode === "string" ? ingress.ipMode : undefined;
      const key = JSON.stringify([str(ingress.hostname), str(ingress.ip), ipMode ?? null]);
      const slot = byKey.get(key) ?? { entry: pointOf(ingress, ipMode), ports: new Map<string, Json>() };
      for (const port of records(ingress.ports)) slot.ports.set(JSON.stringify([port.port, port.protocol, port.error ?? null]), { ...port });
      byKey.set(key, slot);
    }
  }
  const out = [...byKey.values()].map(({ entry, ports }) => {
    const list = [...ports.values()].sort(comparePorts);
    return list.length > 0 ? { ...entry, ports: list } : entry;
  });
  return out.sort(compareIngress);
}

function pointOf(ingress: Json, ipMode: string | undefined): Json {
  const out: Json = {};
  if (str(ingress.ip) !== "") out.ip = ingress.ip;
  if (str(ingress.hostname) !== "") out.hostname = ingress.hostname;
  if (ipMode !== undefined) out.ipMode = ipMode;
  return out;
}

function comparePorts(a: Json, b: Json): number {
  if (a.port !== b.port) return Number(a.port ?? 0) - Number(b.port ?? 0);
  if (a.protocol !== b.protocol) return compareStrings(str(a.protocol), str(b.protocol));
  if (a.error === undefined) return -1;
  if (b.error === undefined) return 1;
  return compareStrings(str(a.error), str(b.error));
}

function compareIngress(a: Json, b: Json): number {
  const ha = str(a.hostname);
  const hb = str(b.hostname);
  if (ha !== hb) {
    if (hb === "") return -1;
    if (ha === "") return 1;
    return compareStrings(ha, hb);
  }
  if (str(a.ip) !== str(b.ip)) return compareStrings(str(a.ip), str(b.ip));
  if (b.ipMode === undefined) return a.ipMode === undefined ? 0 : -1;
  if (a.ipMode === undefined) return 1;
  return compareStrings(str(a.ipMode), str(b.ipMode));
}
