import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { exportRecord, parseExport, RECORD_BOUNDS, recordName } from "./export-record.ts";

const good = {
  exportCreationTimestamp: "2026-11-30T10:00:00Z",
  exportUid: "u1",
  type: "ClusterSetIP",
  ports: [{ name: "tcp", protocol: "TCP", port: 42 }],
  sessionAffinity: "ClientIP",
  sessionAffinityConfig: { clientIP: { timeoutSeconds: 10 } },
  exportedLabels: { a: "1" },
  endpointSlices: [{ name: "web-abc", addressType: "IPv4", ports: [{ name: "tcp", protocol: "TCP", port: 8080 }], endpoints: [{ addresses: ["10.244.0.5"], conditions: { ready: true } }] }],
};
const parse = (o: unknown) => parseExport("member1", "shop", "web", JSON.stringify(o));

describe("parseExport: an agent's report, checked field by field", () => {
  it("a well-formed report: the cluster is the stream's, never the report's", () => {
    const r = parse({ ...good, cluster: "member9" });
    assert.ok(r.ok);
    assert.equal(r.value.cluster, "member1");
    assert.equal(r.value.namespace, "shop");
    assert.deepEqual(r.value.ports, [{ name: "tcp", protocol: "TCP", port: 42 }]);
    assert.deepEqual(r.value.sessionAffinityConfig, { clientIP: { timeoutSeconds: 10 } });
    assert.equal(r.value.endpointSlices[0]?.endpoints[0]?.addresses[0], "10.244.0.5");
  });
  const refused: [string, unknown, RegExp][] = [
    ["not JSON", undefined, /not JSON/],
    ["a type that is not the KEP's", { ...good, type: "ExternalName" }, /type/],
    ["a port out of range", { ...good, ports: [{ port: 70000 }] }, /ports\[0\]\.port/],
    ["a protocol that is not TCP, UDP or SCTP", { ...good, ports: [{ port: 1, protocol: "HTTP" }] }, /protocol/],
    ["a creation time that is not a time", { ...good, exportCreationTimestamp: "yesterday" }, /time/],
    ["more slices than the bound", { ...good, endpointSlices: Array.from({ length: RECORD_BOUNDS.slices + 1 }, () => good.endpointSlices[0]) }, /endpointSlices/],
    ["an endpoint without addresses", { ...good, endpointSlices: [{ ...good.endpointSlices[0], endpoints: [{ addresses: [] }] }] }, /addresses is empty/],
    ["an address type that is not IPv4, IPv6 or FQDN", { ...good, endpointSlices: [{ ...good.endpointSlices[0], addressType: "IPv5" }] }, /addressType/],
    ["a label value that is not a string", { ...good, exportedLabels: { a: 1 } }, /exportedLabels/],
    ["a session timeout beyond a day", { ...good, sessionAffinityConfig: { clientIP: { timeoutSeconds: 86401 } } }, /timeoutSeconds/],
    ["an array where an object goes", [good], /not an object/],
  ];
  for (const [what, input, why] of refused) {
    it(`refuses ${what}`, () => {
      const r = input === undefined ? parseExport("m", "n", "s", "{") : parse(input);
      assert.equal(r.ok, false);
      if (!r.ok) assert.match(r.reason, why);
    });
  }
  it("keeps only exported labels and annotations Kubernetes takes, and never Flotilla's own keys", () => {
    const r = parse({
      ...good,
      exportedLabels: { a: "1", "example.com/b": "2", "flotilla.dev/managed": "false", "x.flotilla.dev/y": "z", "bad key": "v", c: "not a value!" },
      exportedAnnotations: { "flotilla.dev/adopt": "karmada", note: "free text, any characters!", "mcs.flotilla.dev/x": "1" },
    });
    assert.ok(r.ok);
    assert.deepEqual(r.value.exportedLabels, { a: "1", "example.com/b": "2" });
    assert.deepEqual(r.value.exportedAnnotations, { note: "free text, any characters!" });
  });
  it("drops fields it does not know (the record holds only the schema's)", () => {
    const r = parse({ ...good, extra: "x", ports: [{ port: 1, targetPort: 9 }] });
    assert.ok(r.ok);
    assert.equal("extra" in r.value, false);
    assert.deepEqual(r.value.ports, [{ port: 1 }]);
  });
});

describe("exportRecord: one cluster-scoped record per (cluster, namespace, name)", () => {
  it("is named cluster.namespace.name and labelled with its cluster", () => {
    const r = parse(good);
    assert.ok(r.ok);
    const rec = exportRecord(r.value);
    assert.equal(rec.metadata.name, recordName("member1", "shop", "web"));
    assert.equal(rec.metadata.name, "member1.shop.web");
    assert.deepEqual(rec.metadata.labels, { "flotilla.dev/cluster": "member1" });
    assert.equal(rec.kind, "MemberServiceExport");
  });
});
