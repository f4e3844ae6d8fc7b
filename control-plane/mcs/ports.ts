// The import's ports (KEP-1645 "Service Port", pure): the union of the exports' ports, "merged
// first based on port name then by the protocol and port number pair". The result has no two
// ports of one name (the empty name counts as one) and no two of one protocol and number; where a
// later export's port clashes with one already taken (same name, another protocol, number or
// appProtocol; or the same protocol and number under another name) the earlier one stays: the
// exports come oldest first, so the oldest's win.
import type { ServicePort } from "../../shared/api/mcs.ts";

/** A Service port's protocol when it names none (as the apiserver defaults it). */
export const DEFAULT_PROTOCOL = "TCP";

/** The port with its protocol filled in and an empty name or appProtocol left out. */
export function normalPort(p: ServicePort): ServicePort {
  return {
    ...(p.name === undefined || p.name === "" ? {} : { name: p.name }),
    protocol: p.protocol === undefined || p.protocol === "" ? DEFAULT_PROTOCOL : p.protocol,
    ...(p.appProtocol === undefined || p.appProtocol === "" ? {} : { appProtocol: p.appProtocol }),
    port: p.port,
  };
}

/** A port as one comparable string: two ports are the same port when these are equal. */
export function portId(p: ServicePort): string {
  const n = normalPort(p);
  return JSON.stringify([n.name ?? "", n.protocol, n.port, n.appProtocol ?? ""]);
}

/** The union of the exports' ports (each list one export's, oldest first), normalized. */
export function mergePorts(exportsPorts: readonly (readonly ServicePort[])[]): ServicePort[] {
  const byName = new Map<string, ServicePort>();
  const byPair = new Set<string>();
  const out: ServicePort[] = [];
  for (const ports of exportsPorts) {
    for (const raw of ports) {
      const p = normalPort(raw);
      const name = p.name ?? "";
      const pair = `${p.protocol}/${p.port}`;
      // Taken by name: the same port again, or a clash the earlier one wins.
      if (byName.has(name)) continue;
      // Taken by protocol and number under another name: a clash the earlier one wins.
      if (byPair.has(pair)) continue;
      byName.set(name, p);
      byPair.add(pair);
      out.push(p);
    }
  }
  return out;
}

/**
 * The name each merged port gets in the derived Service, in order. A Service with several ports
 * must name each; the merged set may hold one unnamed port among named ones (clusters that export
 * one unnamed port beside clusters with named ports), which is called `<protocol>-<port>`
 * lowercased (`-1`, `-2`… appended if that name is taken). The import keeps it unnamed.
 */
export function derivedPortNames(ports: readonly ServicePort[]): string[] {
  const names = ports.map((p) => p.name ?? "");
  if (ports.length < 2) return names;
  const taken = new Set(names.filter((n) => n !== ""));
  return ports.map((p, i) => {
    const name = names[i] ?? "";
    if (name !== "") return name;
    const base = `${p.protocol ?? DEFAULT_PROTOCOL}-${p.port}`.toLowerCase();
    let candidate = base;
    for (let n = 1; taken.has(candidate); n++) candidate = `${base}-${n}`;
    taken.add(candidate);
    return candidate;
  });
}
