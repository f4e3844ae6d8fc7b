// The exports the MCS tests merge: the upstream conformance suite's `hello` Service (ports tcp/42
// and udp/42, ClientIP affinity for 10 s), exported by one cluster or several.
import type { ExportedEndpointSlice, MemberServiceExportSpec } from "../../shared/api/mcs.ts";

/** The conformance suite's hello Service's ports. */
export const HELLO_PORTS = [
  { name: "tcp", protocol: "TCP", port: 42 },
  { name: "udp", protocol: "UDP", port: 42 },
];

/** One slice of a cluster's hello endpoints. */
export function sliceOf(name: string, addresses: string[]): ExportedEndpointSlice {
  return {
    name,
    addressType: "IPv4",
    ports: [{ name: "tcp", protocol: "TCP", port: 8042 }, { name: "udp", protocol: "UDP", port: 8042 }],
    endpoints: addresses.map((a, i) => ({ addresses: [a], conditions: { ready: true, serving: true, terminating: false }, hostname: `hello-${i}`, zone: "z1" })),
  };
}

/** Cluster `cluster`'s export of mcs-test/hello, created `second` seconds past a fixed minute, with `over` replacing fields. */
export function exportOf(cluster: string, second: number, over: Partial<MemberServiceExportSpec> = {}): MemberServiceExportSpec {
  return {
    cluster,
    namespace: "mcs-test",
    name: "hello",
    exportCreationTimestamp: `2026-07-01T10:00:${String(second).padStart(2, "0")}Z`,
    exportUid: `uid-${cluster}`,
    type: "ClusterSetIP",
    ports: HELLO_PORTS,
    sessionAffinity: "ClientIP",
    sessionAffinityConfig: { clientIP: { timeoutSeconds: 10 } },
    internalTrafficPolicy: "Cluster",
    ipFamilies: ["IPv4"],
    endpointSlices: [sliceOf(`hello-${cluster}`, ["10.244.0.5"])],
    ...over,
  };
}
