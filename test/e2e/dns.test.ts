// End to end: multi-cluster DNS (DESIGN §12), with real ExternalDNS and CoreDNS (test/env/dns.ts)
// and members whose load balancers give addresses (test/env/load-balancers.ts). A LoadBalancer
// Service placed on two members and its ServiceDNSRecord → the record's status, the DNSEndpoint
// the control plane writes, and what a DNS client is told; the names follow a member whose
// Service loses its endpoints or whose agent goes quiet; an IngressDNSRecord's host answers with
// every member's Ingress address; a record naming no Domain says so; deleting the record removes
// its names (the garbage collector deletes its DNSEndpoint, ExternalDNS the names).
import assert from "node:assert/strict";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, it } from "node:test";
import type { ClusterDNS, DNSEndpoint, Endpoint, ServiceDNSRecord } from "../../shared/api/dns.ts";
import type { Cluster } from "../env/cluster.ts";
import { resolveAt } from "../env/dns-client.ts";
import { type DnsServer, startDns } from "../env/dns.ts";
import { type Fleet, startFleet } from "../env/fleet.ts";
import { type Flotilla, startFlotilla } from "../env/flotilla.ts";
import { waitFor } from "../env/wait.ts";
import { apply, deploymentJson, eventually, getJson, kubectl } from "./helpers.ts";

const NS = "demo";
const GLOBAL = "web.demo.example.svc.example.com";
const REGION = { member1: "web.demo.example.svc.eu.example.com", member2: "web.demo.example.svc.us.example.com" };
const ZONE = { member1: "web.demo.example.svc.eu-1.eu.example.com", member2: "web.demo.example.svc.us-1.us.example.com" };

const domain = (name: string, zone: string) => JSON.stringify({ apiVersion: "multiclusterdns.flotilla.dev/v1alpha1", kind: "Domain", metadata: { name }, domain: zone });
const record = (name: string, domainRef: string) => JSON.stringify({ apiVersion: "multiclusterdns.flotilla.dev/v1alpha1", kind: "ServiceDNSRecord", metadata: { name, namespace: NS }, spec: { domainRef } });
const service = JSON.stringify({ apiVersion: "v1", kind: "Service", metadata: { name: "web", namespace: NS }, spec: { type: "LoadBalancer", selector: { app: "web" }, ports: [{ port: 80, targetPort: 80 }] } });
const policy = JSON.stringify({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "PropagationPolicy",
  metadata: { name: "web", namespace: NS },
  spec: {
    resourceSelectors: [
      { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
      { apiVersion: "v1", kind: "Service", name: "web" },
      { apiVersion: "networking.k8s.io/v1", kind: "Ingress", name: "shop" },
    ],
    placement: { clusterAffinity: { clusterNames: ["member1", "member2"] } },
  },
});
const ingress = JSON.stringify({
  apiVersion: "networking.k8s.io/v1",
  kind: "Ingress",
  metadata: { name: "shop", namespace: NS },
  spec: { rules: [{ host: "shop.example.com", http: { paths: [{ path: "/", pathType: "Prefix", backend: { service: { name: "web", port: { number: 80 } } } }] } }] },
});
const scaleToZero = JSON.stringify({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "OverridePolicy",
  metadata: { name: "web-member2-zero", namespace: NS },
  spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "web" }], overrideRules: [{ targetCluster: { clusterNames: ["member2"] }, overriders: { plaintext: [{ path: "/spec/replicas", operator: "replace", value: 0 }] } }] },
});

/** A Service or an Ingress, as far as its load balancer goes. */
interface LoadBalanced {
  status?: { loadBalancer?: { ingress?: { ip?: string }[] } };
}

describe("multi-cluster DNS end to end", () => {
  let fleet: Fleet;
  let flotilla: Flotilla;
  let control: Cluster;
  /** Real ExternalDNS publishing the DNSEndpoints into CoreDNS. */
  let dns: DnsServer;
  /** Each member's load-balancer address for Service web. */
  const address: Record<string, string> = {};

  const recordJson = (name = "web") => getJson<ServiceDNSRecord>(control, ["servicednsrecords.multiclusterdns.flotilla.dev", "-n", NS, name]);
  const endpointJson = () => getJson<DNSEndpoint>(control, ["dnsendpoints.multiclusterdns.flotilla.dev", "-n", NS, "web"]);
  const endpointNamed = (e: DNSEndpoint, dnsName: string): Endpoint | undefined => e.spec.endpoints?.find((x) => x.dnsName === dnsName);
  const entryOf = (r: ServiceDNSRecord, cluster: string): ClusterDNS | undefined => r.status?.dns?.find((d) => d.cluster === cluster);
  const listed = (r: ServiceDNSRecord, cluster: string) => (entryOf(r, cluster)?.loadBalancer?.ingress ?? []).length > 0;

  /** The names when both members serve: A records per scope. */
  const bothServing = (e: DNSEndpoint) =>
    endpointNamed(e, GLOBAL)?.targets.join(",") === [address.member1, address.member2].sort().join(",") &&
    endpointNamed(e, ZONE.member2)?.recordType === "A" &&
    endpointNamed(e, REGION.member2)?.recordType === "A";
  /** The names when member2 does not serve: its zone and region point up, the global name has member1 only. */
  const member2Out = (e: DNSEndpoint) =>
    endpointNamed(e, GLOBAL)?.targets.join(",") === address.member1 &&
    endpointNamed(e, ZONE.member2)?.recordType === "CNAME" &&
    endpointNamed(e, ZONE.member2)?.targets[0] === REGION.member2 &&
    endpointNamed(e, REGION.member2)?.recordType === "CNAME" &&
    endpointNamed(e, REGION.member2)?.targets[0] === GLOBAL;

  /** What CoreDNS answers for a name: its addresses (following CNAMEs), or its CNAME target; [] for none. */
  const answer = (name: string, type: "A" | "CNAME" = "A") => resolveAt(dns.server, name, type);
  /** Waits until CoreDNS answers each name with exactly the given addresses (ExternalDNS syncs every second). */
  const resolvesTo = async (want: Record<string, string[]>, type: "A" | "CNAME" = "A") => {
    for (const [name, targets] of Object.entries(want)) {
      const expected = [...targets].sort().join(",");
      await eventually(`${name} ${type} → [${expected}] at CoreDNS`, () => answer(name, type), (got) => got.join(",") === expected, 30_000);
    }
  };

  /** The address the member's load-balancer controller (test/env/load-balancers.ts) gave a Service or an Ingress. */
  const loadBalancerAddress = async (m: Cluster, resource: "service" | "ingress", name: string): Promise<string> => {
    const given = await eventually(`${resource} ${name} has a load-balancer address in ${m.name}`, () => getJson<LoadBalanced>(m, [resource, "-n", NS, name]), (s) => (s.status?.loadBalancer?.ingress ?? []).length > 0);
    return given.status?.loadBalancer?.ingress?.[0]?.ip ?? "";
  };

  /** member2's zone name is a CNAME to its region's, which chains to the global name: member1's address only. */
  const member2OutInDns = async () => {
    await resolvesTo({ [ZONE.member2]: [REGION.member2] }, "CNAME");
    await resolvesTo({ [REGION.member2]: [GLOBAL] }, "CNAME");
    await resolvesTo({ [GLOBAL]: [address.member1 ?? ""], [ZONE.member2]: [address.member1 ?? ""], [ZONE.member1]: [address.member1 ?? ""] });
  };

  before(async () => {
    fleet = await startFleet({ members: 2 });
    // Members' regions and zones are test/env's defaults: member1 eu/eu-1, member2 us/us-1.
    flotilla = await startFlotilla(fleet, { clusterFailureThreshold: "4s" });
    control = fleet.control;
    dns = await startDns({ dir: join(fleet.root, "dns"), controlKubeconfigPath: control.kubeconfigPath });
    await kubectl(control, ["create", "namespace", NS]);
    await apply(control, domain("example", "example.com"));
    await apply(control, deploymentJson("web", NS, 2));
    await apply(control, service);
    await apply(control, policy);
    await apply(control, record("web", "example"));
    for (const m of fleet.members) address[m.name] = await loadBalancerAddress(m, "service", "web");
  });
  after(async () => {
    await dns?.stop();
    await flotilla?.stop();
    await fleet?.stop();
  });

  it("the record's status lists both clusters with zone, region and load balancer; the DNSEndpoint holds A records per scope; CoreDNS answers the global, region and zone names", async () => {
    const r = await eventually("both clusters listed with their load balancer", () => recordJson(), (x) => listed(x, "member1") && listed(x, "member2"), 60_000);
    assert.equal(r.status?.domain, "example.com");
    assert.deepEqual(
      r.status?.dns?.map((d) => [d.cluster, d.region, d.zone, d.loadBalancer?.ingress?.map((i) => i.ip)]),
      [
        ["member1", "eu", "eu-1", [address.member1]],
        ["member2", "us", "us-1", [address.member2]],
      ],
    );
    assert.deepEqual(r.status?.conditions?.map((c) => [c.type, c.status, c.reason]), [["Ready", "True", "RecordsPublished"]]);

    const e = await eventually("the DNSEndpoint names both clusters", endpointJson, bothServing);
    assert.deepEqual(
      e.spec.endpoints?.map((x) => [x.dnsName, x.recordType, x.targets.join(","), x.recordTTL]),
      [
        [GLOBAL, "A", [address.member1, address.member2].sort().join(","), 180],
        [REGION.member1, "A", address.member1, 180],
        [ZONE.member1, "A", address.member1, 180],
        [REGION.member2, "A", address.member2, 180],
        [ZONE.member2, "A", address.member2, 180],
      ].sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1)),
    );
    const owner = e.metadata.ownerReferences?.find((o) => o.controller === true);
    assert.deepEqual([owner?.kind, owner?.name, owner?.uid], ["ServiceDNSRecord", "web", r.metadata.uid]);

    await resolvesTo({
      [GLOBAL]: [address.member1 ?? "", address.member2 ?? ""],
      [REGION.member1]: [address.member1 ?? ""],
      [ZONE.member1]: [address.member1 ?? ""],
      [REGION.member2]: [address.member2 ?? ""],
      [ZONE.member2]: [address.member2 ?? ""],
    });

    // Heartbeats and the agents' status reports keep coming; the content does not change, so nothing is written.
    const writes = async () => (await flotilla.controlPlaneMetrics())["flotilla_dns_endpoint_writes_total"];
    const before = await writes();
    await sleep(3000);
    assert.equal(await writes(), before, "no DNSEndpoint write while its content holds");
  });

  it("member2's copy scaled to 0 through an OverridePolicy: its zone name becomes a CNAME chain up and its address leaves the global answer; back at 2, back in", async () => {
    await apply(control, scaleToZero);
    await eventually("member2 dropped its load balancer", () => recordJson(), (x) => listed(x, "member1") && !listed(x, "member2") && entryOf(x, "member2") !== undefined);
    await eventually("the DNSEndpoint points member2's names up", endpointJson, member2Out);
    await member2OutInDns();
    await kubectl(control, ["delete", "overridepolicy", "-n", NS, "web-member2-zero"]);
    await eventually("member2 serves again", endpointJson, bothServing);
    await resolvesTo({ [GLOBAL]: [address.member1 ?? "", address.member2 ?? ""], [ZONE.member2]: [address.member2 ?? ""] });
  });

  it("member2's agent stopped past the failure threshold: the same; its agent back, back in", async () => {
    await flotilla.stopAgent("member2");
    await eventually("member2 NotReady: its entry stays, without a load balancer", () => recordJson(), (x) => entryOf(x, "member2") !== undefined && !listed(x, "member2"), 60_000);
    await eventually("the DNSEndpoint points member2's names up", endpointJson, member2Out);
    await member2OutInDns();
    await flotilla.startAgent("member2");
    await eventually("member2 serves again", endpointJson, bothServing, 60_000);
    await resolvesTo({ [GLOBAL]: [address.member1 ?? "", address.member2 ?? ""], [ZONE.member2]: [address.member2 ?? ""] });
  });

  it("an IngressDNSRecord: its host answers with the Ingress's load-balancer addresses in both members", async () => {
    await apply(control, ingress);
    await apply(control, JSON.stringify({ apiVersion: "multiclusterdns.flotilla.dev/v1alpha1", kind: "IngressDNSRecord", metadata: { name: "shop", namespace: NS }, spec: { hosts: ["shop.example.com"], recordTTL: 60 } }));
    const shop: Record<string, string> = {};
    for (const m of fleet.members) shop[m.name] = await loadBalancerAddress(m, "ingress", "shop");
    const e = await eventually("DNSEndpoint shop", () => getJson<DNSEndpoint>(control, ["dnsendpoints.multiclusterdns.flotilla.dev", "-n", NS, "shop"]), (x) => (x.spec.endpoints?.[0]?.targets.length ?? 0) === 2);
    assert.deepEqual(e.spec.endpoints, [{ dnsName: "shop.example.com", recordType: "A", targets: [shop.member1, shop.member2].sort(), recordTTL: 60 }]);
    assert.equal(e.metadata.ownerReferences?.[0]?.kind, "IngressDNSRecord");
    await resolvesTo({ "shop.example.com": [shop.member1 ?? "", shop.member2 ?? ""] });
  });

  it("a record whose domainRef names no Domain says so, and becomes Ready when the Domain appears", async () => {
    await apply(control, record("lost", "nowhere"));
    const r = await eventually("DomainNotFound", () => recordJson("lost"), (x) => x.status?.conditions?.some((c) => c.reason === "DomainNotFound") === true);
    const cond = r.status?.conditions?.find((c) => c.type === "Ready");
    assert.equal(cond?.status, "False");
    assert.match(cond?.message ?? "", /Domain "nowhere" not found/);
    assert.equal(await getJson(control, ["dnsendpoints.multiclusterdns.flotilla.dev", "-n", NS, "lost"]), undefined, "nothing published");
    assert.deepEqual(r.status?.dns, [], "no Service lost is placed nowhere: an empty status.dns");

    await apply(control, domain("nowhere", "nowhere.example"));
    await eventually("Ready once the Domain exists", () => recordJson("lost"), (x) => x.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true);
  });

  it("deleting the record removes its DNSEndpoint (the garbage collector, through the owner reference) and its names from DNS", async () => {
    assert.ok(await endpointJson(), "published before");
    await kubectl(control, ["delete", "servicednsrecords.multiclusterdns.flotilla.dev", "-n", NS, "web"]);
    await waitFor(async () => ((await endpointJson()) === undefined ? true : undefined), { what: "DNSEndpoint web gone", timeoutMs: 60_000 });
    await resolvesTo({ [GLOBAL]: [], [REGION.member1]: [], [ZONE.member1]: [], [REGION.member2]: [], [ZONE.member2]: [] });
  });
});
