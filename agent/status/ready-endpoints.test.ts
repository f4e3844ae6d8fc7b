import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type EndpointSlice, readyEndpointCount, SERVICE_NAME_LABEL, serviceReadyEndpoints, sliceSummary } from "./ready-endpoints.ts";

type Endpoint = NonNullable<EndpointSlice["endpoints"]>[number];
const slice = (name: string, endpoints: Endpoint[] | null | undefined, addressType = "IPv4"): EndpointSlice => ({
  apiVersion: "discovery.k8s.io/v1",
  kind: "EndpointSlice",
  metadata: { name, namespace: "shop", resourceVersion: "7", labels: { [SERVICE_NAME_LABEL]: "web", app: "web" }, uid: "u" },
  addressType,
  endpoints,
});
const ready: Endpoint = { conditions: { ready: true } };
const notReady: Endpoint = { conditions: { ready: false } };

describe("readyEndpointCount", () => {
  const cases: { name: string; endpoints: Endpoint[] | null | undefined; want: number }[] = [
    { name: "no endpoints field (a Service selecting no pod)", endpoints: undefined, want: 0 },
    { name: "endpoints: null", endpoints: null, want: 0 },
    { name: "two ready", endpoints: [ready, ready], want: 2 },
    { name: "ready false is not ready", endpoints: [ready, notReady], want: 1 },
    { name: "ready unset counts as ready (Kubernetes: nil means ready)", endpoints: [{ conditions: {} }, { conditions: { ready: null } }], want: 2 },
    { name: "no conditions counts as ready", endpoints: [{}, { conditions: null }], want: 2 },
    { name: "a terminating endpoint (ready false, serving true) is not ready", endpoints: [{ conditions: { ready: false, serving: true, terminating: true } as Endpoint["conditions"] }], want: 0 },
    { name: "none ready", endpoints: [notReady, notReady], want: 0 },
  ];
  for (const c of cases) {
    it(c.name, () => assert.equal(readyEndpointCount(slice("a", c.endpoints)), c.want));
  }
});

describe("serviceReadyEndpoints", () => {
  const summary = (name: string, endpoints: Endpoint[], family?: string) => sliceSummary(slice(name, endpoints, family));
  const cases: { name: string; slices: EndpointSlice[]; want: number }[] = [
    { name: "no slices", slices: [], want: 0 },
    { name: "one slice", slices: [summary("a", [ready, ready, notReady])], want: 2 },
    { name: "slices of one family add up", slices: [summary("a", [ready, ready]), summary("b", [ready, notReady])], want: 3 },
    { name: "dual stack counts each pod once (the larger family)", slices: [summary("v4", [ready, ready]), summary("v6", [ready, notReady], "IPv6")], want: 2 },
    { name: "a full slice as listed counts too", slices: [slice("a", [ready])], want: 1 },
    { name: "thousands of slices", slices: Array.from({ length: 5000 }, (_, i) => summary(`s${i}`, [ready, ready])), want: 10_000 },
  ];
  for (const c of cases) {
    it(c.name, () => assert.equal(serviceReadyEndpoints(c.slices), c.want));
  }
});

describe("sliceSummary", () => {
  it("keeps only identity, the Service's name, the address type and the ready count", () => {
    assert.deepEqual(sliceSummary(slice("a", [ready, notReady, ready])), {
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      metadata: { name: "a", namespace: "shop", resourceVersion: "7", labels: { [SERVICE_NAME_LABEL]: "web" } },
      addressType: "IPv4",
      readyEndpoints: 2,
    });
  });

  it("is stable when applied to its own output", () => {
    const once = sliceSummary(slice("a", [ready, ready]));
    assert.deepEqual(sliceSummary(once), once);
  });
});
