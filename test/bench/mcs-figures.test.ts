import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fullKey, keySize, readyKey } from "./mcs-endpoints.ts";
import { formatRun, resourceOf, summaryLine, writesPerChange } from "./mcs-figures.ts";

describe("the endpoint sets bench:mcs compares", () => {
  const slice = (...eps: [string, boolean | undefined, boolean?][]) => ({ endpoints: eps.map(([a, ready, terminating]) => ({ addresses: [a], conditions: { ...(ready === undefined ? {} : { ready, serving: ready }), ...(terminating ? { terminating } : {}) } })) });
  it("readyKey: ready addresses of every slice, sorted; unset ready counts as ready; a terminating (not ready) one does not", () => {
    assert.equal(readyKey([slice(["10.0.0.3", true], ["10.0.0.1", undefined]), slice(["10.0.0.2", false, true])]), "10.0.0.1,10.0.0.3");
    assert.equal(readyKey([]), "");
    assert.equal(readyKey([{ endpoints: null }]), "");
  });
  it("fullKey: every endpoint with its conditions, so a copy that lags on a terminating endpoint differs", () => {
    const source = [slice(["10.0.0.1", true], ["10.0.0.2", false, true])];
    assert.equal(fullKey(source), "10.0.0.1:rs-,10.0.0.2:--t");
    assert.notEqual(fullKey([slice(["10.0.0.1", true], ["10.0.0.2", true])]), fullKey(source));
    assert.equal(fullKey([slice(["10.0.0.2", false, true]), slice(["10.0.0.1", true])]), fullKey(source));
  });
  it("keySize counts addresses", () => {
    assert.equal(keySize(""), 0);
    assert.equal(keySize("a,b,c"), 3);
  });
});

describe("writes per change", () => {
  it("resourceOf reads the resource of a write key", () => {
    assert.equal(resourceOf("PATCH endpointslices (409)"), "endpointslices");
    assert.equal(resourceOf("APPLY clusters/status"), "clusters/status");
  });
  it("divides by K, leaves Leases and the Clusters' heartbeats out, averages the other members and keeps member1's twin apart", () => {
    const w = (o: Record<string, number>) => new Map(Object.entries(o));
    const exported = new Map([
      ["control", w({ "APPLY memberserviceexports": 20, "APPLY clusters/status": 4, "PUT leases": 100 })],
      ["member1", w({ "PUT endpointslices": 20, "APPLY endpointslices": 20, "PUT leases": 50 })],
      ["member2", w({ "APPLY endpointslices": 20, "APPLY services": 10 })],
      ["member3", w({ "APPLY endpointslices": 30, "APPLY services (409)": 10 })],
    ]);
    const plain = new Map([["member1", w({ "PUT endpointslices": 20, "PUT leases": 50 })]]);
    assert.deepEqual(writesPerChange(exported, plain, 10), {
      control: { total: 2, records: 2 },
      member1: { exported: 4, plain: 2 },
      others: { total: 3.5, slices: 2.5 },
    });
  });
});

describe("the printed table", () => {
  const run = {
    members: 3,
    own: [10, 20, 30],
    slowest: [100, 200, 300],
    perMember: new Map([["member2", [100, 150, 300]], ["member3", [90, 200, 250]]]),
    writes: { control: { total: 2, records: 1.5 }, member1: { exported: 20, plain: 15 }, others: { total: 4, slices: 2 } },
    breakdown: new Map([["control", new Map([["APPLY memberserviceexports", 45]])]]),
  };
  it("p50/p99/max of both, the ratios, p50 per member and the writes", () => {
    const lines = formatRun(run);
    assert.match(lines[0] as string, /^3 members, 3 endpoint changes in member1/);
    assert.match(lines[2] as string, /baseline\)\s+20\s+30\s+30$/);
    assert.match(lines[3] as string, /slowest of 2 other members\s+200\s+300\s+300$/);
    assert.match(lines[4] as string, /ratio import \/ own\s+10\.0\s+10\.0$/);
    assert.equal(lines[5], "  p50 per member: member2 150, member3 200");
    assert.ok(lines.some((l) => /member1\s+20\.00\s+unexported twin 15\.00: Flotilla's 5\.00/.test(l)));
    assert.ok(lines.some((l) => l === "    control: APPLY memberserviceexports 45"));
  });
  it("the summary counts Flotilla's writes: control, every other member, and member1's beyond its twin", () => {
    assert.equal(summaryLine([run]), "bench:mcs: 3 members: import p50/p99 200/300 ms against own slice 20/30 ms (×10.0/×10.0), 15.00 writes per change besides the member's own");
  });
});
