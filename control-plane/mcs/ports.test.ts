import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ServicePort } from "../../shared/api/mcs.ts";
import { derivedPortNames, mergePorts } from "./ports.ts";

describe("mergePorts: the union, by name then by protocol and number, the earlier export's where they clash", () => {
  const cases: { name: string; exports: ServicePort[][]; want: ServicePort[] }[] = [
    { name: "one export: its ports, protocol filled in", exports: [[{ name: "http", port: 80 }]], want: [{ name: "http", protocol: "TCP", port: 80 }] },
    {
      name: "a port only the later export has is added after the oldest's",
      exports: [[{ name: "http", port: 80 }], [{ name: "http", port: 80 }, { name: "grpc", port: 9090 }]],
      want: [{ name: "http", protocol: "TCP", port: 80 }, { name: "grpc", protocol: "TCP", port: 9090 }],
    },
    { name: "same name, another number: the earlier stays", exports: [[{ name: "http", port: 80 }], [{ name: "http", port: 8080 }]], want: [{ name: "http", protocol: "TCP", port: 80 }] },
    { name: "same name, another protocol: the earlier stays", exports: [[{ name: "dns", protocol: "UDP", port: 53 }], [{ name: "dns", protocol: "TCP", port: 53 }]], want: [{ name: "dns", protocol: "UDP", port: 53 }] },
    { name: "same protocol and number, another name: the earlier stays", exports: [[{ name: "http", port: 80 }], [{ name: "web", port: 80 }]], want: [{ name: "http", protocol: "TCP", port: 80 }] },
    { name: "same number, another protocol and name: both (no pair repeats)", exports: [[{ name: "tcp", port: 42 }], [{ name: "udp", protocol: "UDP", port: 42 }]], want: [{ name: "tcp", protocol: "TCP", port: 42 }, { name: "udp", protocol: "UDP", port: 42 }] },
    { name: "the empty name counts as a name", exports: [[{ port: 80 }], [{ name: "", port: 81 }]], want: [{ protocol: "TCP", port: 80 }] },
    {
      name: "an appProtocol is kept, the earlier one's where they differ",
      exports: [[{ name: "http", port: 80, appProtocol: "http" }], [{ name: "http", port: 80, appProtocol: "kubernetes.io/h2c" }]],
      want: [{ name: "http", protocol: "TCP", appProtocol: "http", port: 80 }],
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(mergePorts(c.exports), c.want));
});

describe("derivedPortNames: every port of a Service with several has a name", () => {
  const cases: { name: string; ports: ServicePort[]; want: string[] }[] = [
    { name: "one unnamed port stays unnamed", ports: [{ protocol: "TCP", port: 80 }], want: [""] },
    { name: "named ports keep their names", ports: [{ name: "a", protocol: "TCP", port: 80 }, { name: "b", protocol: "UDP", port: 80 }], want: ["a", "b"] },
    { name: "an unnamed port among several: <protocol>-<port>, lowercased", ports: [{ protocol: "SCTP", port: 142 }, { name: "tcp", protocol: "TCP", port: 42 }], want: ["sctp-142", "tcp"] },
    { name: "the made-up name taken by another port: a suffix", ports: [{ protocol: "TCP", port: 80 }, { name: "tcp-80", protocol: "TCP", port: 81 }], want: ["tcp-80-1", "tcp-80"] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(derivedPortNames(c.ports), c.want));
});
