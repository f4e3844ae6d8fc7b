// The test env's cloud load balancers: which objects get an address, and, in a real member, that
// addresses come from the member's block, stay, move on reassign and are freed.
import assert from "node:assert/strict";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { CoreV1Api, NetworkingV1Api, type V1Service } from "@kubernetes/client-node";
import { type Cluster, startCluster } from "./cluster.ts";
import { type LoadBalanced, type LoadBalancers, reportedAddresses, wantsAddress } from "./load-balancers.ts";
import { waitFor } from "./wait.ts";

describe("wantsAddress", () => {
  const cases: { name: string; kind: "Service" | "Ingress"; obj: LoadBalanced; want: boolean }[] = [
    { name: "a LoadBalancer Service", kind: "Service", obj: { spec: { type: "LoadBalancer" } }, want: true },
    { name: "a ClusterIP Service", kind: "Service", obj: { spec: { type: "ClusterIP" } }, want: false },
    { name: "a Service without a type", kind: "Service", obj: { spec: {} }, want: false },
    { name: "a Service another implementation serves", kind: "Service", obj: { spec: { type: "LoadBalancer", loadBalancerClass: "example.com/lb" } }, want: false },
    { name: "a LoadBalancer Service being deleted", kind: "Service", obj: { metadata: { deletionTimestamp: "2026-01-01T00:00:00Z" }, spec: { type: "LoadBalancer" } }, want: false },
    { name: "an Ingress", kind: "Ingress", obj: {}, want: true },
  ];
  for (const c of cases) it(`${c.want ? "gives" : "does not give"} ${c.name} an address`, () => assert.equal(wantsAddress(c.kind, c.obj), c.want));
});

describe("reportedAddresses", () => {
  it("lists ips and hostnames in status order", () => {
    assert.deepEqual(reportedAddresses({ status: { loadBalancer: { ingress: [{ ip: "127.0.101.1" }, { hostname: "lb.example.com" }] } } }), ["127.0.101.1", "lb.example.com"]);
    assert.deepEqual(reportedAddresses({}), []);
  });
});

describe("test/env load balancers in a member", () => {
  let member: Cluster;
  let lb: LoadBalancers;
  let core: CoreV1Api;
  let net: NetworkingV1Api;
  const NS = "default";

  before(async () => {
    member = await startCluster({ name: "member2", role: "member", dir: join(tmpdir(), `flotilla-lb-${process.pid}`), nodes: 1 });
    lb = member.loadBalancers as LoadBalancers;
    core = member.kubeConfig().makeApiClient(CoreV1Api);
    net = member.kubeConfig().makeApiClient(NetworkingV1Api);
  });
  after(async () => {
    await member?.stop();
  });

  const service = (name: string, spec: V1Service["spec"]): V1Service => ({
    metadata: { name },
    spec: { ports: [{ port: 80 }], selector: { app: name }, ...spec },
  });
  const statusOf = async (name: string) => reportedAddresses((await core.readNamespacedServiceStatus({ name, namespace: NS })) as LoadBalanced);
  const serviceAddress = (name: string, what: string, want?: (ips: string[]) => boolean) =>
    waitFor(
      async () => {
        const ips = await statusOf(name);
        return (want ?? ((x) => x.length === 1))(ips) ? ips : undefined;
      },
      { what, timeoutMs: 20_000, intervalMs: 100 },
    );

  it("gives a LoadBalancer Service and an Ingress an address from the member's block, and nothing else", async () => {
    assert.equal(lb.cidr, "127.0.102.0/24");
    await core.createNamespacedService({ namespace: NS, body: service("plain", { type: "ClusterIP" }) });
    await core.createNamespacedService({ namespace: NS, body: service("other-cloud", { type: "LoadBalancer", loadBalancerClass: "example.com/lb" }) });
    await core.createNamespacedService({ namespace: NS, body: service("web", { type: "LoadBalancer" }) });
    const [web] = await serviceAddress("web", "web's load-balancer address");
    assert.match(web ?? "", /^127\.0\.102\.\d+$/);
    assert.equal(lb.addressOf(NS, "web"), web);
    // One worker takes keys in order: plain and other-cloud were decided before web.
    assert.deepEqual(await statusOf("plain"), []);
    assert.deepEqual(await statusOf("other-cloud"), []);

    await net.createNamespacedIngress({
      namespace: NS,
      body: { metadata: { name: "site" }, spec: { defaultBackend: { service: { name: "web", port: { number: 80 } } } } },
    });
    const ingressIp = await waitFor(
      async () => (await net.readNamespacedIngressStatus({ name: "site", namespace: NS })).status?.loadBalancer?.ingress?.[0]?.ip,
      { what: "the Ingress's address", timeoutMs: 20_000, intervalMs: 100 },
    );
    assert.match(ingressIp, /^127\.0\.102\.\d+$/);
    assert.notEqual(ingressIp, web);
    assert.equal(lb.addressOf(NS, "site", "Ingress"), ingressIp);
  });

  it("keeps an address while the Service changes, moves it on reassign, and frees it when the Service stops being a load balancer", async () => {
    const [before] = await statusOf("web");
    await core.patchNamespacedService({ name: "web", namespace: NS, body: [{ op: "add", path: "/metadata/labels", value: { touched: "yes" } }] });
    // A later object's address shows the controller processed the update.
    await core.createNamespacedService({ namespace: NS, body: service("marker", { type: "LoadBalancer" }) });
    await serviceAddress("marker", "marker's address");
    assert.deepEqual(await statusOf("web"), [before], "an update keeps the address");

    const moved = await lb.reassign(NS, "web");
    assert.notEqual(moved, before);
    assert.deepEqual(await statusOf("web"), [moved], "reassign resolves once the status says so");
    assert.equal(lb.addressOf(NS, "web"), moved);
    await assert.rejects(lb.reassign(NS, "plain"), /Service\/default\/plain holds no load-balancer address/);

    await core.patchNamespacedService({ name: "web", namespace: NS, body: [{ op: "replace", path: "/spec/type", value: "ClusterIP" }] });
    await serviceAddress("web", "web's address taken back", (ips) => ips.length === 0);
    assert.equal(lb.addressOf(NS, "web"), undefined);

    // Another implementation's address (its loadBalancerClass) is left alone, whatever it says.
    await core.patchNamespacedServiceStatus({ name: "other-cloud", namespace: NS, body: [{ op: "add", path: "/status/loadBalancer", value: { ingress: [{ ip: "192.0.2.7" }] } }] });
    // One worker takes keys in order: a later Service's address shows other-cloud's update was decided.
    await core.createNamespacedService({ namespace: NS, body: service("marker2", { type: "LoadBalancer" }) });
    await serviceAddress("marker2", "marker2's address");
    assert.deepEqual(await statusOf("other-cloud"), ["192.0.2.7"], "another class's address stays");

    await core.deleteNamespacedService({ name: "marker", namespace: NS });
    await waitFor(async () => lb.addressOf(NS, "marker") === undefined, { what: "marker's address freed on delete", timeoutMs: 20_000 });
  });
});
