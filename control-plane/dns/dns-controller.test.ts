// The DNS controller through its real handlers and reconcile, with stand-in informers and a REST
// client that records writes: what it writes, what it leaves alone, and what each event costs.
import assert from "node:assert/strict";
import { beforeEach, describe, it } from "node:test";
import { KubeConfig } from "@kubernetes/client-node";
import { DNS_API_VERSION, type DNSEndpoint, type Domain, type IngressDNSRecord, type ServiceDNSRecord } from "../../shared/api/dns.ts";
import { API_VERSION, type AggregatedStatusItem, type Cluster, type ResourceBinding } from "../../shared/api/types.ts";
import { KubeError, type KubeRest } from "../../shared/kube-rest.ts";
import { silentLogger } from "../../shared/logger.ts";
import { Caches } from "../caches/caches.ts";
import { type FakeInformer, fakeInformers } from "../caches/fake-informer.fixtures.ts";
import { DnsController } from "./dns-controller.ts";
import { watchDnsInputs } from "./dns-triggers.ts";
import { recordKey } from "./record-keys.ts";
import { HostnameResolver } from "./resolver.ts";

const NOW = "2026-11-23T10:00:00Z";
const cluster = (name: string, ready: boolean, zone: string, region: string, heartbeat = NOW): Cluster => ({
  apiVersion: API_VERSION,
  kind: "Cluster",
  metadata: { name },
  spec: { zone, region },
  status: { lastHeartbeatTime: heartbeat, conditions: [{ type: "Ready", status: ready ? "True" : "False", reason: "", message: "", lastTransitionTime: NOW }] },
});
const entry = (clusterName: string, ip: string): AggregatedStatusItem => ({ clusterName, applied: true, status: { loadBalancer: { ingress: [{ ip }] } }, readyEndpoints: 2 });
const binding = (kind: "Service" | "Ingress", name: string, clusters: string[]): ResourceBinding => ({
  apiVersion: API_VERSION,
  kind: "ResourceBinding",
  metadata: { name: `${name}-${kind.toLowerCase()}`, namespace: "demo", generation: 1 },
  spec: {
    resource: { apiVersion: kind === "Service" ? "v1" : "networking.k8s.io/v1", kind, namespace: "demo", name, uid: `t-${name}` },
    clusters: clusters.map((c) => ({ name: c })),
  },
  status: { aggregatedStatus: clusters.map((c, i) => entry(c, `10.${i + 1}.0.1`)) },
});
const serviceRecord = (name: string, domainRef: string, generation = 1): ServiceDNSRecord => ({
  apiVersion: DNS_API_VERSION,
  kind: "ServiceDNSRecord",
  metadata: { name, namespace: "demo", uid: `r-${name}`, generation },
  spec: { domainRef },
});
const ingressRecord = (name: string): IngressDNSRecord => ({
  apiVersion: DNS_API_VERSION,
  kind: "IngressDNSRecord",
  metadata: { name, namespace: "demo", uid: `i-${name}`, generation: 1 },
  spec: { hosts: ["shop.example.com"] },
});
const domain: Domain = { apiVersion: DNS_API_VERSION, kind: "Domain", metadata: { name: "example" }, domain: "example.com" };

interface Write {
  verb: string;
  path: string;
  body?: unknown;
}

describe("DnsController", () => {
  let writes: Write[];
  let refuse: string | undefined;
  let inf: ReturnType<typeof fakeInformers>;
  let ctl: DnsController;
  let enqueued: string[];
  const of = <T extends { metadata: object }>(plural: string) => inf.of(plural) as unknown as FakeInformer<T & { apiVersion: string; kind: string; metadata: { name?: string } }>;
  const svcKey = recordKey("ServiceDNSRecord", "demo", "web");
  const endpointWrites = () => writes.filter((w) => w.path.includes("/dnsendpoints/"));
  const statusWrites = () => writes.filter((w) => w.path.endsWith("/status"));
  const lastStatus = () => (statusWrites().at(-1)?.body as ServiceDNSRecord | undefined)?.status;

  beforeEach(() => {
    writes = [];
    refuse = undefined;
    inf = fakeInformers();
    const rest = {
      apply: async (path: string, body: unknown) => {
        if (refuse !== undefined && path.includes("/dnsendpoints/")) throw new KubeError(422, "Invalid", refuse);
        writes.push({ verb: "apply", path, body });
        return body;
      },
      mergePatch: async (path: string, body: unknown) => (writes.push({ verb: "merge", path, body }), body),
      request: async (verb: string, path: string) => (writes.push({ verb, path }), {}),
      delete: async (path: string) => (writes.push({ verb: "delete", path }), {}),
    } as unknown as KubeRest;
    const caches = new Caches(new KubeConfig(), rest, silentLogger(), inf.make);
    ctl = new DnsController({ caches, rest, log: silentLogger(), resolver: new HostnameResolver({ lookup: async () => [] }), now: () => NOW });
    enqueued = [];
    watchDnsInputs(caches, { now: (k) => enqueued.push(k), later: (k) => enqueued.push(k) });
    for (const c of [cluster("member1", true, "eu-1", "eu"), cluster("member2", true, "us-1", "us")]) of<Cluster>("clusters").put(c);
    of<ResourceBinding>("resourcebindings").put(binding("Service", "web", ["member1", "member2"]));
  });

  it("publishes a DNSEndpoint owned by the record, writes the status, and writes neither again while nothing changes", async () => {
    of<Domain>("domains").put(domain);
    of<ServiceDNSRecord>("servicednsrecords").put(serviceRecord("web", "example"));
    await ctl.controller.process(svcKey);

    const [published, ...more] = endpointWrites();
    assert.equal(more.length, 0);
    assert.equal(published?.path, "/apis/multiclusterdns.flotilla.dev/v1alpha1/namespaces/demo/dnsendpoints/web");
    const e = published?.body as DNSEndpoint;
    assert.deepEqual(e.metadata.ownerReferences?.map((o) => [o.kind, o.name, o.uid, o.controller]), [["ServiceDNSRecord", "web", "r-web", true]]);
    const global = e.spec.endpoints?.find((x) => x.dnsName === "web.demo.example.svc.example.com");
    assert.deepEqual(global?.targets, ["10.1.0.1", "10.2.0.1"]);
    assert.deepEqual(
      lastStatus()?.dns?.map((d) => [d.cluster, d.zone, d.region, d.loadBalancer?.ingress?.[0]?.ip]),
      [
        ["member1", "eu-1", "eu", "10.1.0.1"],
        ["member2", "us-1", "us", "10.2.0.1"],
      ],
    );
    assert.equal(lastStatus()?.domain, "example.com");
    assert.deepEqual(lastStatus()?.conditions?.map((c) => [c.type, c.status, c.reason]), [["Ready", "True", "RecordsPublished"]]);

    // The caches catch up with both writes: nothing to write.
    of<DNSEndpoint>("dnsendpoints").put(e);
    of<ServiceDNSRecord>("servicednsrecords").put({ ...serviceRecord("web", "example"), status: lastStatus() });
    const before = writes.length;
    await ctl.controller.process(svcKey);
    assert.equal(writes.length, before);
  });

  it("a domainRef that names no Domain: a condition naming it, and the DNSEndpoint is left as it is; the Domain appearing publishes", async () => {
    of<ServiceDNSRecord>("servicednsrecords").put(serviceRecord("web", "example"));
    await ctl.controller.process(svcKey);
    assert.equal(endpointWrites().length, 0);
    const [cond] = lastStatus()?.conditions ?? [];
    assert.deepEqual([cond?.status, cond?.reason], ["False", "DomainNotFound"]);
    assert.match(cond?.message ?? "", /Domain "example" not found/);
    assert.equal(lastStatus()?.dns?.length, 2, "where the Service is placed is still shown");

    enqueued = [];
    of<Domain>("domains").put(domain);
    assert.deepEqual(enqueued, [svcKey], "the Domain's records, and only them");
    await ctl.controller.process(svcKey);
    assert.equal(endpointWrites().length, 1);
    assert.equal(lastStatus()?.conditions?.[0]?.reason, "RecordsPublished");
  });

  it("a DNSEndpoint the apiserver refuses: the record says why", async () => {
    of<Domain>("domains").put(domain);
    of<ServiceDNSRecord>("servicednsrecords").put(serviceRecord("web", "example"));
    refuse = 'DNSEndpoint.multiclusterdns.flotilla.dev "web" is invalid: spec.endpoints[0].dnsName: Invalid value';
    await ctl.controller.process(svcKey);
    const [cond] = lastStatus()?.conditions ?? [];
    assert.deepEqual([cond?.status, cond?.reason], ["False", "DNSEndpointRejected"]);
    assert.match(cond?.message ?? "", /spec\.endpoints\[0\]\.dnsName: Invalid value/);
  });

  it("another kind's DNSEndpoint of the same name is not taken over", async () => {
    of<Domain>("domains").put(domain);
    of<ServiceDNSRecord>("servicednsrecords").put(serviceRecord("web", "example"));
    of<DNSEndpoint>("dnsendpoints").put({
      apiVersion: DNS_API_VERSION,
      kind: "DNSEndpoint",
      metadata: { name: "web", namespace: "demo", ownerReferences: [{ apiVersion: DNS_API_VERSION, kind: "IngressDNSRecord", name: "web", uid: "i-web", controller: true }] },
      spec: { endpoints: [] },
    });
    await ctl.controller.process(svcKey);
    assert.equal(endpointWrites().length, 0);
    assert.equal(lastStatus()?.conditions?.[0]?.reason, "DNSEndpointConflict");
  });

  it("no binding (the Service is placed nowhere): an empty status.dns and a DNSEndpoint without names", async () => {
    of<Domain>("domains").put(domain);
    of<ServiceDNSRecord>("servicednsrecords").put(serviceRecord("api", "example"));
    await ctl.controller.process(recordKey("ServiceDNSRecord", "demo", "api"));
    assert.deepEqual(lastStatus()?.dns, []);
    assert.deepEqual((endpointWrites()[0]?.body as DNSEndpoint).spec.endpoints, []);
  });

  it("an IngressDNSRecord: one A record per host with every cluster's address", async () => {
    of<ResourceBinding>("resourcebindings").put(binding("Ingress", "shop", ["member1", "member2"]));
    of<IngressDNSRecord>("ingressdnsrecords").put(ingressRecord("shop"));
    await ctl.controller.process(recordKey("IngressDNSRecord", "demo", "shop"));
    const e = endpointWrites()[0]?.body as DNSEndpoint;
    assert.deepEqual(e.spec.endpoints, [{ dnsName: "shop.example.com", recordType: "A", targets: ["10.1.0.1", "10.2.0.1"], recordTTL: 180 }]);
    assert.equal(e.metadata.ownerReferences?.[0]?.kind, "IngressDNSRecord");
  });

  it("a cache that has not listed yet (bindings): nothing is written, not even an empty DNSEndpoint; looked at again soon", async () => {
    of<Domain>("domains").put(domain);
    of<ServiceDNSRecord>("servicednsrecords").put(serviceRecord("web", "example"));
    Object.defineProperty(inf.of("resourcebindings"), "synced", { value: false });
    const requeued: number[] = [];
    const addAfter = ctl.controller.queue.addAfter.bind(ctl.controller.queue);
    ctl.controller.queue.addAfter = (k, ms) => (requeued.push(ms), addAfter(k, ms));
    await ctl.controller.process(svcKey);
    assert.deepEqual(writes, []);
    assert.equal(requeued.length, 1);
  });

  it("a deleted record is never cleaned up by the controller: the garbage collector does it through the owner reference", async () => {
    of<Domain>("domains").put(domain);
    const r = serviceRecord("web", "example");
    of<ServiceDNSRecord>("servicednsrecords").put(r);
    await ctl.controller.process(svcKey);
    of<ServiceDNSRecord>("servicednsrecords").remove(r);
    of<ResourceBinding>("resourcebindings").remove(binding("Service", "web", []));
    const before = writes.length;
    await ctl.controller.process(svcKey);
    assert.equal(writes.length, before);
    assert.equal(
      writes.some((w) => w.verb === "delete" || w.verb === "DELETE"),
      false,
    );
  });

  describe("what events enqueue", () => {
    beforeEach(() => {
      of<Domain>("domains").put(domain);
      of<ServiceDNSRecord>("servicednsrecords").put(serviceRecord("web", "example"));
      // Bindings without records, on the same clusters: they must cost nothing here.
      for (let i = 0; i < 50; i++) of<ResourceBinding>("resourcebindings").put(binding("Service", `other${i}`, ["member1", "member2"]));
      of<ResourceBinding>("resourcebindings").put(binding("Service", "elsewhere", ["member3"]));
      enqueued = [];
    });

    it("the record's binding status changing: that record", () => {
      const b = binding("Service", "web", ["member1", "member2"]);
      of<ResourceBinding>("resourcebindings").put({ ...b, status: { aggregatedStatus: [entry("member1", "10.9.9.9")] } });
      assert.deepEqual(enqueued, [svcKey]);
    });

    it("a Cluster going NotReady: the records whose binding involves it; a heartbeat alone: nothing", () => {
      of<Cluster>("clusters").put(cluster("member2", true, "us-1", "us", "2026-11-23T10:00:05Z"));
      assert.deepEqual(enqueued, []);
      of<Cluster>("clusters").put(cluster("member2", false, "us-1", "us"));
      assert.deepEqual(enqueued, [svcKey]);
      enqueued = [];
      of<Cluster>("clusters").put(cluster("member3", false, "us-2", "us"));
      assert.deepEqual(enqueued, [], "no record's binding involves member3");
    });

    it("the record's own status write coming back: nothing; a spec change: the record", () => {
      of<ServiceDNSRecord>("servicednsrecords").put({ ...serviceRecord("web", "example"), status: { dns: [] } });
      assert.deepEqual(enqueued, []);
      of<ServiceDNSRecord>("servicednsrecords").put(serviceRecord("web", "example", 2));
      assert.deepEqual(enqueued, [svcKey]);
    });

    it("another Domain changing: nothing", () => {
      of<Domain>("domains").put({ ...domain, metadata: { name: "other" }, domain: "other.org" });
      assert.deepEqual(enqueued, []);
    });
  });
});
