import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ClusterDNS, Endpoint, ServiceDNSRecordSpec } from "../../shared/api/dns.ts";
import { serviceEndpoints } from "./service-endpoints.ts";

// Service web in namespace demo, Domain object "fed" with zone example.com.
const G = "web.demo.fed.svc.example.com";
const name = (...scope: string[]) => ["web.demo.fed.svc", ...scope, "example.com"].join(".");
const a = (dnsName: string, targets: string[], recordTTL = 180): Endpoint => ({ dnsName, recordType: "A", targets, recordTTL });
const cname = (dnsName: string, target: string, recordTTL = 180): Endpoint => ({ dnsName, recordType: "CNAME", targets: [target], recordTTL });
const at = (cluster: string, zone: string | undefined, region: string | undefined, ...ingress: { ip?: string; hostname?: string }[]): ClusterDNS => ({
  cluster,
  ...(zone ? { zone } : {}),
  ...(region ? { region } : {}),
  ...(ingress.length > 0 ? { loadBalancer: { ingress } } : {}),
});
const resolveTable: Record<string, string[]> = { "lb1.elb.example": ["10.9.0.2", "10.9.0.1"], "empty.elb.example": [] };
const resolve = (h: string) => resolveTable[h];

interface Case { name: string; dns: ClusterDNS[]; spec?: Partial<ServiceDNSRecordSpec>; want: Endpoint[] }
const cases: Case[] = [
  { name: "no clusters: no records", dns: [], want: [] },
  {
    name: "one cluster: A at every level",
    dns: [at("member1", "eu-1", "eu", { ip: "10.1.0.1" })],
    want: [a(name("eu-1", "eu"), ["10.1.0.1"]), a(name("eu"), ["10.1.0.1"]), a(G, ["10.1.0.1"])],
  },
  {
    name: "two clusters in different regions: each region and zone its own, global both",
    dns: [at("member1", "eu-1", "eu", { ip: "10.1.0.1" }), at("member2", "us-1", "us", { ip: "10.2.0.1" })],
    want: [
      a(name("eu-1", "eu"), ["10.1.0.1"]),
      a(name("eu"), ["10.1.0.1"]),
      a(name("us-1", "us"), ["10.2.0.1"]),
      a(name("us"), ["10.2.0.1"]),
      a(G, ["10.1.0.1", "10.2.0.1"]),
    ],
  },
  {
    name: "one cluster without an address: its zone and region names become CNAMEs up",
    dns: [at("member1", "eu-1", "eu", { ip: "10.1.0.1" }), at("member2", "us-1", "us")],
    want: [
      a(name("eu-1", "eu"), ["10.1.0.1"]),
      a(name("eu"), ["10.1.0.1"]),
      cname(name("us-1", "us"), name("us")),
      cname(name("us"), G),
      a(G, ["10.1.0.1"]),
    ],
  },
  {
    name: "no addresses at all: CNAMEs only, no global record",
    dns: [at("member1", "eu-1", "eu"), at("member2", "us-1", "us")],
    want: [cname(name("eu-1", "eu"), name("eu")), cname(name("eu"), G), cname(name("us-1", "us"), name("us")), cname(name("us"), G)],
  },
  {
    name: "same region, two zones: the region has both, each zone its own",
    dns: [at("m1", "eu-1", "eu", { ip: "10.1.0.1" }), at("m2", "eu-2", "eu", { ip: "10.1.0.2" })],
    want: [a(name("eu-1", "eu"), ["10.1.0.1"]), a(name("eu-2", "eu"), ["10.1.0.2"]), a(name("eu"), ["10.1.0.1", "10.1.0.2"]), a(G, ["10.1.0.1", "10.1.0.2"])],
  },
  {
    name: "same region, one zone without an address: that zone points to the region",
    dns: [at("m1", "eu-1", "eu", { ip: "10.1.0.1" }), at("m2", "eu-2", "eu")],
    want: [a(name("eu-1", "eu"), ["10.1.0.1"]), cname(name("eu-2", "eu"), name("eu")), a(name("eu"), ["10.1.0.1"]), a(G, ["10.1.0.1"])],
  },
  {
    name: "two clusters in one zone merge into one record per name, duplicates once",
    dns: [at("m1", "eu-1", "eu", { ip: "10.1.0.2" }, { ip: "10.1.0.1" }), at("m2", "eu-1", "eu", { ip: "10.1.0.1" })],
    want: [a(name("eu-1", "eu"), ["10.1.0.1", "10.1.0.2"]), a(name("eu"), ["10.1.0.1", "10.1.0.2"]), a(G, ["10.1.0.1", "10.1.0.2"])],
  },
  {
    name: "the same zone name in two regions is two zones",
    dns: [at("m1", "a", "eu", { ip: "10.1.0.1" }), at("m2", "a", "us")],
    want: [a(name("a", "eu"), ["10.1.0.1"]), a(name("eu"), ["10.1.0.1"]), cname(name("a", "us"), name("us")), cname(name("us"), G), a(G, ["10.1.0.1"])],
  },
  {
    name: "a hostname in the load-balancer status is resolved to its addresses",
    dns: [at("member1", "eu-1", "eu", { hostname: "lb1.elb.example" }, { ip: "10.9.0.1" })],
    want: [a(name("eu-1", "eu"), ["10.9.0.1", "10.9.0.2"]), a(name("eu"), ["10.9.0.1", "10.9.0.2"]), a(G, ["10.9.0.1", "10.9.0.2"])],
  },
  {
    name: "a hostname that does not resolve (yet) counts as no address",
    dns: [at("member1", "eu-1", "eu", { hostname: "unknown.elb.example" }), at("member2", "us-1", "us", { hostname: "empty.elb.example" })],
    want: [cname(name("eu-1", "eu"), name("eu")), cname(name("eu"), G), cname(name("us-1", "us"), name("us")), cname(name("us"), G)],
  },
  {
    name: "no region: only the global name; a zone without a region names nothing",
    dns: [at("m1", undefined, undefined, { ip: "10.1.0.1" }), at("m2", "eu-1", undefined, { ip: "10.1.0.2" })],
    want: [a(G, ["10.1.0.1", "10.1.0.2"])],
  },
  {
    name: "a region but no zone: region and global",
    dns: [at("m1", undefined, "eu", { ip: "10.1.0.1" })],
    want: [a(name("eu"), ["10.1.0.1"]), a(G, ["10.1.0.1"])],
  },
  {
    name: "region and zone are lowercased; one that is no DNS label names nothing but counts above",
    dns: [at("m1", "EU-1", "EU", { ip: "10.1.0.1" }), at("m2", "z", "us_east", { ip: "10.2.0.1" })],
    want: [a(name("eu-1", "eu"), ["10.1.0.1"]), a(name("eu"), ["10.1.0.1"]), a(G, ["10.1.0.1", "10.2.0.1"])],
  },
  {
    name: "recordTTL applies to every record",
    dns: [at("member1", "eu-1", "eu", { ip: "10.1.0.1" }), at("member2", "us-1", "us")],
    spec: { recordTTL: 30 },
    want: [a(name("eu-1", "eu"), ["10.1.0.1"], 30), a(name("eu"), ["10.1.0.1"], 30), cname(name("us-1", "us"), name("us"), 30), cname(name("us"), G, 30), a(G, ["10.1.0.1"], 30)],
  },
  {
    name: "dnsPrefix adds a CNAME from <prefix>.<zone> to the global name",
    dns: [at("member1", "eu-1", "eu", { ip: "10.1.0.1" })],
    spec: { dnsPrefix: "www" },
    want: [a(name("eu-1", "eu"), ["10.1.0.1"]), a(name("eu"), ["10.1.0.1"]), a(G, ["10.1.0.1"]), cname("www.example.com", G)],
  },
  {
    name: "dnsPrefix with no address anywhere still points up",
    dns: [],
    spec: { dnsPrefix: "shop.eu" },
    want: [cname("shop.eu.example.com", G)],
  },
  {
    name: "a dnsPrefix naming a scope's own name does not displace it",
    dns: [at("member1", "eu-1", "eu", { ip: "10.1.0.1" })],
    spec: { dnsPrefix: "web.demo.fed.svc.eu" },
    want: [a(name("eu-1", "eu"), ["10.1.0.1"]), a(name("eu"), ["10.1.0.1"]), a(G, ["10.1.0.1"])],
  },
  {
    name: "externalName replaces the Service's name in every name",
    dns: [at("member1", "eu-1", "eu", { ip: "10.1.0.1" })],
    spec: { externalName: "shop", dnsPrefix: "www" },
    want: [
      a("shop.demo.fed.svc.eu-1.eu.example.com", ["10.1.0.1"]),
      a("shop.demo.fed.svc.eu.example.com", ["10.1.0.1"]),
      a("shop.demo.fed.svc.example.com", ["10.1.0.1"]),
      cname("www.example.com", "shop.demo.fed.svc.example.com"),
    ],
  },
];

describe("serviceEndpoints", () => {
  for (const c of cases) {
    it(c.name, () => {
      const got = serviceEndpoints({ service: "web", namespace: "demo", domainName: "fed", zone: "example.com", spec: { domainRef: "fed", ...c.spec }, dns: c.dns, resolve });
      assert.deepEqual(got, [...c.want].sort((x, y) => (x.dnsName < y.dnsName ? -1 : 1)));
    });
  }

  it("is sorted by dnsName with no name twice", () => {
    const dns = [at("m3", "us-1", "us", { ip: "10.2.0.1" }), at("m1", "eu-1", "eu"), at("m2", "eu-1", "eu", { ip: "10.1.0.1" })];
    const names = serviceEndpoints({ service: "web", namespace: "demo", domainName: "fed", zone: "example.com", spec: { domainRef: "fed", dnsPrefix: "www" }, dns, resolve }).map((e) => e.dnsName);
    assert.deepEqual(names, [...names].sort());
    assert.equal(new Set(names).size, names.length);
  });

  it("every CNAME points one level up, never to itself", () => {
    const dns = [at("m1", "eu-1", "eu"), at("m2", "us-1", "us", { ip: "10.2.0.1" })];
    for (const e of serviceEndpoints({ service: "web", namespace: "demo", domainName: "fed", zone: "example.com", spec: { domainRef: "fed" }, dns, resolve })) {
      if (e.recordType !== "CNAME") continue;
      assert.equal(e.targets.length, 1);
      assert.ok(e.dnsName.endsWith(`.${e.targets[0]!.slice("web.demo.fed.svc.".length)}`), `${e.dnsName} → ${e.targets[0]}`);
    }
  });
});
