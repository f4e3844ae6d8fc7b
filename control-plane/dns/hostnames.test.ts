import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadBalancerAddresses, loadBalancerHostnames, sortedUnique } from "./hostnames.ts";

describe("loadBalancerHostnames", () => {
  it("hostnames only, sorted, without duplicates, across entries", () => {
    const entries = [
      { loadBalancer: { ingress: [{ hostname: "b.elb.example" }, { ip: "10.0.0.1" }] } },
      {},
      { loadBalancer: { ingress: [{ hostname: "a.elb.example", ip: "10.0.0.2" }, { hostname: "b.elb.example" }] } },
      { loadBalancer: {} },
    ];
    assert.deepEqual(loadBalancerHostnames(entries), ["a.elb.example", "b.elb.example"]);
  });
  it("none: empty", () => assert.deepEqual(loadBalancerHostnames([]), []));
});

describe("loadBalancerAddresses", () => {
  const resolve = (h: string) => ({ "lb.example": ["10.0.0.3", "10.0.0.1"], "v6.example": ["fd00::1"] })[h];
  const cases: { name: string; lbs: Parameters<typeof loadBalancerAddresses>[0]; want: string[] }[] = [
    { name: "nothing", lbs: [undefined, {}, { ingress: [] }], want: [] },
    { name: "IPs and resolved hostnames, sorted and deduplicated", lbs: [{ ingress: [{ ip: "10.0.0.2" }, { hostname: "lb.example" }] }, { ingress: [{ ip: "10.0.0.1" }] }], want: ["10.0.0.1", "10.0.0.2", "10.0.0.3"] },
    { name: "a hostname that does not resolve gives nothing", lbs: [{ ingress: [{ hostname: "gone.example" }] }], want: [] },
    { name: "IPv6 is left out (A records only)", lbs: [{ ingress: [{ ip: "fd00::2" }, { hostname: "v6.example" }, { ip: "10.0.0.9" }] }], want: ["10.0.0.9"] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(loadBalancerAddresses(c.lbs, resolve), c.want));
});

describe("sortedUnique", () => {
  it("sorts by code unit, not by locale", () => assert.deepEqual(sortedUnique(["b", "B", "a", "b"]), ["B", "a", "b"]));
});
