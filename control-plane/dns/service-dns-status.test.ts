import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ClusterDNS, ClusterIngressDNS } from "../../shared/api/dns.ts";
import type { PlacedCluster } from "./placed-cluster.ts";
import { ingressDnsStatus, serviceDnsStatus } from "./service-dns-status.ts";

const lb = (ip: string) => ({ ingress: [{ ip }] });
const placed = (name: string, more: Partial<PlacedCluster> = {}): PlacedCluster => ({
  name, zone: `${name}-z`, region: `${name}-r`, ready: true, loadBalancer: lb(`10.0.0.${name.length}`), readyEndpoints: 1, ...more,
});
const entry = (name: string, withLb: boolean, more: Partial<ClusterDNS> = {}): ClusterDNS => ({
  cluster: name, zone: `${name}-z`, region: `${name}-r`, ...(withLb ? { loadBalancer: lb(`10.0.0.${name.length}`) } : {}), ...more,
});

describe("serviceDnsStatus", () => {
  const cases: { name: string; clusters: PlacedCluster[]; allow?: boolean; want: ClusterDNS[] }[] = [
    { name: "no clusters: empty", clusters: [], want: [] },
    { name: "a ready cluster with endpoints lists its load balancer", clusters: [placed("a")], want: [entry("a", true)] },
    { name: "sorted by cluster", clusters: [placed("bb"), placed("a"), placed("ccc")], want: [entry("a", true), entry("bb", true), entry("ccc", true)] },
    { name: "NotReady keeps its entry without a load balancer", clusters: [placed("a", { ready: false })], want: [entry("a", false)] },
    { name: "NotReady even with allowServiceWithoutEndpoints", clusters: [placed("a", { ready: false })], allow: true, want: [entry("a", false)] },
    { name: "no ready endpoints: no load balancer", clusters: [placed("a", { readyEndpoints: 0 })], want: [entry("a", false)] },
    { name: "no ready endpoints, allowServiceWithoutEndpoints: listed", clusters: [placed("a", { readyEndpoints: 0 })], allow: true, want: [entry("a", true)] },
    { name: "endpoints not reported count as none", clusters: [placed("a", { readyEndpoints: undefined })], want: [entry("a", false)] },
    { name: "endpoints not reported, allowServiceWithoutEndpoints: listed", clusters: [placed("a", { readyEndpoints: undefined })], allow: true, want: [entry("a", true)] },
    { name: "no load balancer reported yet: entry without one", clusters: [placed("a", { loadBalancer: undefined })], want: [entry("a", false)] },
    { name: "a load balancer with no ingress is not listed", clusters: [placed("a", { loadBalancer: { ingress: [] } })], want: [entry("a", false)] },
    {
      name: "no zone or region: the entry has none",
      clusters: [placed("a", { zone: undefined, region: undefined })],
      want: [{ cluster: "a", loadBalancer: lb("10.0.0.1") }],
    },
    {
      name: "only ip and hostname are kept; empty ingress entries dropped",
      clusters: [placed("a", { loadBalancer: { ingress: [{ ip: "10.0.0.9", ports: [{ port: 80 }], ipMode: "VIP" } as never, {}, { hostname: "lb.example.net" }] } })],
      want: [entry("a", false, { loadBalancer: { ingress: [{ ip: "10.0.0.9" }, { hostname: "lb.example.net" }] } })],
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(serviceDnsStatus(c.clusters, c.allow ?? false), c.want));

  it("does not change its input", () => {
    const clusters = [placed("b"), placed("a")];
    const before = structuredClone(clusters);
    serviceDnsStatus(clusters, false);
    assert.deepEqual(clusters, before);
  });
});

describe("ingressDnsStatus", () => {
  const cases: { name: string; clusters: PlacedCluster[]; want: ClusterIngressDNS[] }[] = [
    { name: "no clusters: empty", clusters: [], want: [] },
    {
      name: "sorted by cluster; Ready clusters list their load balancer, endpoints do not matter",
      clusters: [placed("bb", { readyEndpoints: undefined }), placed("a", { readyEndpoints: 0 })],
      want: [{ cluster: "a", loadBalancer: lb("10.0.0.1") }, { cluster: "bb", loadBalancer: lb("10.0.0.2") }],
    },
    { name: "NotReady keeps its entry without a load balancer", clusters: [placed("a", { ready: false })], want: [{ cluster: "a" }] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(ingressDnsStatus(c.clusters), c.want));
});
