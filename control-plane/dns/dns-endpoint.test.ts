import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DNS_API_VERSION, type DNSEndpoint, type Endpoint } from "../../shared/api/dns.ts";
import type { KubeObject } from "../../shared/api/types.ts";
import { desiredDnsEndpoint, dnsEndpointContent, foreignDnsEndpoint } from "./dns-endpoint.ts";

const record = (kind: string, uid: string): KubeObject => ({ apiVersion: DNS_API_VERSION, kind, metadata: { name: "web", namespace: "demo", uid } });
const A: Endpoint = { dnsName: "web.demo.example.svc.example.com", targets: ["10.0.0.1"], recordType: "A", recordTTL: 180 };

describe("desiredDnsEndpoint", () => {
  it("has the record's name and namespace and is controlled by the record (the garbage collector removes it with the record)", () => {
    const e = desiredDnsEndpoint(record("ServiceDNSRecord", "u1"), [A]);
    assert.equal(e.apiVersion, DNS_API_VERSION);
    assert.equal(e.kind, "DNSEndpoint");
    assert.deepEqual([e.metadata.name, e.metadata.namespace], ["web", "demo"]);
    assert.deepEqual(e.metadata.ownerReferences, [{ apiVersion: DNS_API_VERSION, kind: "ServiceDNSRecord", name: "web", uid: "u1", controller: true, blockOwnerDeletion: true }]);
    assert.deepEqual(e.spec.endpoints, [A]);
  });
});

describe("dnsEndpointContent", () => {
  const base = desiredDnsEndpoint(record("ServiceDNSRecord", "u1"), [A]);
  const cases: { name: string; other: DNSEndpoint; same: boolean }[] = [
    { name: "the same endpoints and owner, with what the apiserver adds", other: { ...base, metadata: { ...base.metadata, resourceVersion: "7", generation: 3 }, status: { observedGeneration: 3 } }, same: true },
    { name: "another target", other: { ...base, spec: { endpoints: [{ ...A, targets: ["10.0.0.2"] }] } }, same: false },
    { name: "no endpoints", other: { ...base, spec: {} }, same: false },
    { name: "the record made again (another uid)", other: desiredDnsEndpoint(record("ServiceDNSRecord", "u2"), [A]), same: false },
  ];
  for (const c of cases) {
    it(`${c.name}: ${c.same ? "no write" : "a write"}`, () => {
      assert.equal(dnsEndpointContent(c.other) === dnsEndpointContent(base), c.same);
    });
  }
});

describe("foreignDnsEndpoint", () => {
  const svc = record("ServiceDNSRecord", "u1");
  const cases: { name: string; existing: DNSEndpoint | undefined; foreign: RegExp | undefined }[] = [
    { name: "none yet", existing: undefined, foreign: undefined },
    { name: "the record's own", existing: desiredDnsEndpoint(svc, [A]), foreign: undefined },
    { name: "an earlier record of the same kind and name (made again)", existing: desiredDnsEndpoint(record("ServiceDNSRecord", "old"), []), foreign: undefined },
    { name: "an IngressDNSRecord's of the same name", existing: desiredDnsEndpoint(record("IngressDNSRecord", "u9"), []), foreign: /belongs to IngressDNSRecord web/ },
    { name: "one made by hand", existing: { apiVersion: DNS_API_VERSION, kind: "DNSEndpoint", metadata: { name: "web", namespace: "demo" }, spec: { endpoints: [A] } }, foreign: /no record controls it/ },
  ];
  for (const c of cases) {
    it(`${c.name}: ${c.foreign ? "left alone" : "written"}`, () => {
      const why = foreignDnsEndpoint(c.existing, svc);
      if (c.foreign === undefined) assert.equal(why, undefined);
      else assert.match(why ?? "", c.foreign);
    });
  }
});
