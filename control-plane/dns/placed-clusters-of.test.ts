import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { API_VERSION, type AggregatedStatusItem, type Cluster, type ResourceBinding } from "../../shared/api/types.ts";
import type { PlacedCluster } from "./placed-cluster.ts";
import { loadBalancerOf, MAX_INGRESS_POINTS, placedClustersOf } from "./placed-clusters-of.ts";

const NOW = "2026-11-23T10:00:00Z";
const cluster = (name: string, ready: boolean, zone?: string, region?: string): Cluster => ({
  apiVersion: API_VERSION,
  kind: "Cluster",
  metadata: { name },
  spec: { ...(zone ? { zone } : {}), ...(region ? { region } : {}) },
  status: { conditions: [{ type: "Ready", status: ready ? "True" : "False", reason: "", message: "", lastTransitionTime: NOW }] },
});
const lb = (ip: string) => ({ loadBalancer: { ingress: [{ ip }] } });
const entry = (clusterName: string, status?: Record<string, unknown>, more: Partial<AggregatedStatusItem> & { readyEndpoints?: number } = {}): AggregatedStatusItem => ({ clusterName, applied: true, ...(status ? { status } : {}), ...more });
const binding = (targets: string[], entries: AggregatedStatusItem[], more: { deleting?: boolean; evictingFrom?: string[] } = {}): ResourceBinding => ({
  apiVersion: API_VERSION,
  kind: "ResourceBinding",
  metadata: { name: "web-service", namespace: "demo", ...(more.deleting ? { deletionTimestamp: NOW } : {}) },
  spec: {
    resource: { apiVersion: "v1", kind: "Service", namespace: "demo", name: "web", uid: "u" },
    clusters: targets.map((name) => ({ name })),
    ...(more.evictingFrom ? { gracefulEvictionTasks: more.evictingFrom.map((fromCluster) => ({ fromCluster, reason: "ClusterNotReady", creationTimestamp: NOW })) } : {}),
  },
  status: { aggregatedStatus: entries },
});

const fleet = new Map([
  ["member1", cluster("member1", true, "eu-1", "eu")],
  ["member2", cluster("member2", true, "us-1", "us")],
  ["member3", cluster("member3", false, "us-2", "us")],
]);
const named = (n: string) => fleet.get(n);

describe("placedClustersOf", () => {
  const cases: { name: string; binding: ResourceBinding | undefined; want: PlacedCluster[] }[] = [
    { name: "no binding: placed nowhere", binding: undefined, want: [] },
    { name: "a binding being deleted: its object is leaving every member", binding: binding(["member1"], [entry("member1", lb("10.1.0.1"), { readyEndpoints: 2 })], { deleting: true }), want: [] },
    {
      name: "two clusters, sorted, with zone, region, load balancer and ready endpoints; one has not reported yet",
      binding: binding(["member2", "member1"], [entry("member1", lb("10.1.0.1"), { readyEndpoints: 2 })]),
      want: [
        { name: "member1", ready: true, zone: "eu-1", region: "eu", loadBalancer: { ingress: [{ ip: "10.1.0.1" }] }, readyEndpoints: 2 },
        { name: "member2", ready: true, zone: "us-1", region: "us" },
      ],
    },
    {
      name: "a NotReady cluster: not ready, its last load balancer passed on (the rules drop it)",
      binding: binding(["member3"], [entry("member3", lb("10.3.0.1"), { readyEndpoints: 1 })]),
      want: [{ name: "member3", ready: false, zone: "us-2", region: "us", loadBalancer: { ingress: [{ ip: "10.3.0.1" }] }, readyEndpoints: 1 }],
    },
    {
      name: "an entry marked ClusterNotReady: not ready, even while the Cluster still says Ready",
      binding: binding(["member1"], [entry("member1", lb("10.1.0.1"), { reason: "ClusterNotReady", readyEndpoints: 2 })]),
      want: [{ name: "member1", ready: false, zone: "eu-1", region: "eu", loadBalancer: { ingress: [{ ip: "10.1.0.1" }] }, readyEndpoints: 2 }],
    },
    {
      name: "a Cluster the cache does not hold (unjoined): kept, not ready, no zone or region",
      binding: binding(["gone"], [entry("gone", lb("10.9.0.1"))]),
      want: [{ name: "gone", ready: false, loadBalancer: { ingress: [{ ip: "10.9.0.1" }] } }],
    },
    {
      name: "a cluster still holding a copy while it is replaced elsewhere counts once",
      binding: binding(["member1"], [], { evictingFrom: ["member3", "member1"] }),
      want: [
        { name: "member1", ready: true, zone: "eu-1", region: "eu" },
        { name: "member3", ready: false, zone: "us-2", region: "us" },
      ],
    },
    {
      name: "a Service with no load balancer yet: an empty one",
      binding: binding(["member1"], [entry("member1", { loadBalancer: {} }, { readyEndpoints: 0 })]),
      want: [{ name: "member1", ready: true, zone: "eu-1", region: "eu", loadBalancer: {}, readyEndpoints: 0 }],
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(placedClustersOf(c.binding, named), c.want));
  }
});

describe("loadBalancerOf", () => {
  const cases: { name: string; status: Record<string, unknown> | undefined; want: ReturnType<typeof loadBalancerOf> }[] = [
    { name: "no status", status: undefined, want: undefined },
    { name: "a status without loadBalancer (a ClusterIP Service)", status: { conditions: [] }, want: undefined },
    { name: "ip and hostname kept, ports and the rest dropped", status: { loadBalancer: { ingress: [{ ip: "10.0.0.1", ports: [{ port: 80 }], ipMode: "VIP" }, { hostname: "lb.example.net" }] } }, want: { ingress: [{ ip: "10.0.0.1" }, { hostname: "lb.example.net" }] } },
    { name: "points that are not objects or name nothing are dropped", status: { loadBalancer: { ingress: [null, 5, { ip: 7 }, { ip: "" }, { ip: "10.0.0.2" }] } }, want: { ingress: [{ ip: "10.0.0.2" }] } },
    { name: "an ingress that is not a list", status: { loadBalancer: { ingress: "10.0.0.1" } }, want: {} },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(loadBalancerOf(c.status), c.want));

  it(`reads at most ${MAX_INGRESS_POINTS} points`, () => {
    const ingress = Array.from({ length: 100 }, (_, i) => ({ ip: `10.0.0.${i}` }));
    assert.equal(loadBalancerOf({ loadBalancer: { ingress } })?.ingress?.length, MAX_INGRESS_POINTS);
  });
});
