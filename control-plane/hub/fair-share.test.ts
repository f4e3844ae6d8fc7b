import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { knownReplicas, overShare } from "./fair-share.ts";

describe("overShare", () => {
  const cases: { name: string; connectedHere: number; clusters: number; replicas: number; alreadyHere?: boolean; want: boolean }[] = [
    { name: "one replica takes everyone", connectedHere: 10_000, clusters: 10_000, replicas: 1, want: false },
    { name: "3 replicas, 10,000 clusters: within the share (3,668 with 10% slack)", connectedHere: 3_667, clusters: 10_000, replicas: 3, want: false },
    { name: "3 replicas, 10,000 clusters: at the share, a new agent goes elsewhere", connectedHere: 3_668, clusters: 10_000, replicas: 3, want: true },
    { name: "a replacing stream of an agent already here stays", connectedHere: 9_000, clusters: 10_000, replicas: 3, alreadyHere: true, want: false },
    { name: "a tiny fleet is never refused below its share plus one", connectedHere: 1, clusters: 2, replicas: 2, want: false },
  ];
  for (const c of cases) {
    it(c.name, () => assert.equal(overShare({ connectedHere: c.connectedHere, clusters: c.clusters, replicas: c.replicas, alreadyHere: c.alreadyHere ?? false }), c.want));
  }
});

describe("knownReplicas", () => {
  const cases: { name: string; holders: string[]; want: number }[] = [
    { name: "no lease yet: itself", holders: [], want: 1 },
    { name: "itself and two others, each holding many", holders: ["me", "b", "c", "b", "me"], want: 3 },
    { name: "a released lease (no holder) counts nobody", holders: ["", "b"], want: 2 },
  ];
  for (const c of cases) it(c.name, () => assert.equal(knownReplicas(c.holders, "me"), c.want));
});
