import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ClusterIngressDNS, Endpoint } from "../../shared/api/dns.ts";
import { ingressEndpoints } from "./ingress-endpoints.ts";

const at = (cluster: string, ...ingress: { ip?: string; hostname?: string }[]): ClusterIngressDNS => ({ cluster, ...(ingress.length > 0 ? { loadBalancer: { ingress } } : {}) });
const a = (dnsName: string, targets: string[], recordTTL = 180): Endpoint => ({ dnsName, recordType: "A", targets, recordTTL });
const resolve = (h: string) => (h === "lb.elb.example" ? ["10.9.0.1"] : undefined);

describe("ingressEndpoints", () => {
  const cases: { name: string; hosts: string[]; recordTTL?: number; dns: ClusterIngressDNS[]; want: Endpoint[] }[] = [
    { name: "no clusters: no records", hosts: ["shop.example.com"], dns: [], want: [] },
    { name: "no hosts: no records", hosts: [], dns: [at("m1", { ip: "10.1.0.1" })], want: [] },
    {
      name: "two hosts, two clusters: each host answers with every cluster's addresses",
      hosts: ["shop.example.com", "api.example.com"],
      dns: [at("m2", { ip: "10.2.0.1" }), at("m1", { ip: "10.1.0.1" })],
      want: [a("api.example.com", ["10.1.0.1", "10.2.0.1"]), a("shop.example.com", ["10.1.0.1", "10.2.0.1"])],
    },
    { name: "no address anywhere: no record for any host", hosts: ["shop.example.com"], dns: [at("m1"), at("m2", { hostname: "gone.elb.example" })], want: [] },
    {
      name: "a cluster without an address contributes nothing; hostnames resolve",
      hosts: ["shop.example.com"],
      dns: [at("m1"), at("m2", { hostname: "lb.elb.example" }, { ip: "10.9.0.1" })],
      want: [a("shop.example.com", ["10.9.0.1"])],
    },
    { name: "recordTTL", hosts: ["shop.example.com"], recordTTL: 60, dns: [at("m1", { ip: "10.1.0.1" })], want: [a("shop.example.com", ["10.1.0.1"], 60)] },
    {
      name: "a host named twice (in any case) is one record",
      hosts: ["shop.example.com", "Shop.Example.com"],
      dns: [at("m1", { ip: "10.1.0.1" })],
      want: [a("shop.example.com", ["10.1.0.1"])],
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(ingressEndpoints({ hosts: c.hosts, dns: c.dns, resolve, ...(c.recordTTL === undefined ? {} : { recordTTL: c.recordTTL }) }), c.want));
  }
});
