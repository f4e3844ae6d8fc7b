import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster } from "../../shared/api/types.ts";
import { clusterView, writesEntry } from "./cluster-view.ts";

const cluster = (name: string, ready: boolean): Cluster => ({
  apiVersion: "flotilla.dev/v1alpha1",
  kind: "Cluster",
  metadata: { name },
  spec: {},
  status: { conditions: [{ type: "Ready", status: ready ? "True" : "Unknown", reason: "", message: "", lastTransitionTime: "2026-11-23T10:00:00Z" }] },
});

describe("clusterView", () => {
  // m1 Ready and heard here; m2 Ready, heard elsewhere; m3 not Ready, heard by nobody; m4 gone.
  const fleet = new Map([cluster("m1", true), cluster("m2", true), cluster("m3", false)].map((c) => [c.metadata.name ?? "", c]));
  const heard = new Set(["m1"]);
  const cases: { name: string; names: string[]; leader: boolean; want: { existing: string[]; notReady: string[]; owned: string[] } }[] = [
    { name: "a follower writes what it hears", names: ["m1", "m2", "m3", "m4"], leader: false, want: { existing: ["m1", "m2", "m3"], notReady: ["m3"], owned: ["m1"] } },
    { name: "the leader also what nobody hears and is not Ready", names: ["m1", "m2", "m3", "m4"], leader: true, want: { existing: ["m1", "m2", "m3"], notReady: ["m3"], owned: ["m1", "m3"] } },
    { name: "only the names asked for", names: ["m2", "m2"], leader: true, want: { existing: ["m2"], notReady: [], owned: [] } },
    { name: "a gone cluster is nowhere", names: ["m4"], leader: true, want: { existing: [], notReady: [], owned: [] } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const asked: string[] = [];
      const v = clusterView({ names: c.names, clusterNamed: (n) => (asked.push(n), fleet.get(n)), heardHere: (n) => heard.has(n), leader: c.leader });
      assert.deepEqual({ existing: [...v.existing].sort(), notReady: [...v.notReady].sort(), owned: [...v.owned].sort() }, c.want);
      assert.deepEqual(asked.sort(), [...new Set(c.names)].sort(), "each cluster named is looked up once, and no other");
    });
  }
});

describe("writesEntry", () => {
  const cases: { name: string; heard: boolean; leader: boolean; handed: boolean; forwarded: boolean; deleting?: boolean; want: boolean }[] = [
    { name: "a replica writes what it hears", heard: true, leader: false, handed: false, forwarded: false, want: true },
    { name: "but not what a following leader takes from it", heard: true, leader: false, handed: true, forwarded: false, want: false },
    { name: "a leader writes what it hears, whoever says they take it", heard: true, leader: true, handed: true, forwarded: false, want: true },
    { name: "the leader writes what it takes from another replica", heard: false, leader: true, handed: false, forwarded: true, want: true },
    { name: "and what it took and carries since (not leading any more: still, its entries stay)", heard: false, leader: false, handed: false, forwarded: true, want: true },
    { name: "nobody writes what it neither hears nor takes", heard: false, leader: true, handed: false, forwarded: false, want: false },
    { name: "a deleting binding: a replica keeps writing what it hears while a leader takes it (leaving it out would remove the entry the finalizer waits on)", heard: true, leader: false, handed: true, forwarded: false, deleting: true, want: true },
    { name: "a deleting binding still: what it does not hear, it does not write", heard: false, leader: false, handed: true, forwarded: false, deleting: true, want: false },
  ];
  for (const c of cases) it(c.name, () => assert.equal(writesEntry(c), c.want));
});
