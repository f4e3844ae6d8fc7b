import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster } from "./api/types.ts";
import { judgedLeaving, unjoinOf } from "./cluster-unjoin.ts";

describe("unjoinOf", () => {
  const cluster = (deleting: boolean, annotations?: Record<string, string>): Cluster => ({
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "Cluster",
    metadata: { name: "member1", ...(deleting ? { deletionTimestamp: "2026-11-30T10:00:00Z" } : {}), ...(annotations ? { annotations } : {}) },
    spec: {},
  });
  const cases: { name: string; c: Cluster; want: string }[] = [
    { name: "a Cluster not being deleted", c: cluster(false), want: "member" },
    { name: "flotillactl unjoin: its agent removes what Flotilla applied", c: cluster(true), want: "unjoining" },
    { name: "flotillactl unjoin --force: the member keeps what Flotilla applied", c: cluster(true, { "flotilla.dev/unjoin-force": "true" }), want: "forced" },
    { name: "the force annotation on a Cluster not being deleted changes nothing", c: cluster(false, { "flotilla.dev/unjoin-force": "true" }), want: "member" },
    { name: "any other value is no force", c: cluster(true, { "flotilla.dev/unjoin-force": "yes" }), want: "unjoining" },
  ];
  for (const c of cases) it(c.name, () => assert.equal(unjoinOf(c.c), c.want));
});

describe("judgedLeaving", () => {
  const cluster = (deleting: boolean, force = false): Cluster => ({
    apiVersion: "flotilla.dev/v1alpha1",
    kind: "Cluster",
    metadata: { name: "member1", ...(deleting ? { deletionTimestamp: "2026-11-30T10:00:00Z" } : {}), ...(force ? { annotations: { "flotilla.dev/unjoin-force": "true" } } : {}) },
    spec: {},
  });
  it("a member's absences are judged as a member's, an unjoin's as its unjoin", () => {
    assert.equal(judgedLeaving(cluster(false)), false);
    assert.equal(judgedLeaving(cluster(true)), true);
  });
  // Faults that must not remove anything: before issue 37 both read as ClusterUnjoined.
  it("a Cluster the cache lacks, or one unjoined by force, is judged for nothing", () => {
    assert.equal(judgedLeaving(undefined), undefined);
    assert.equal(judgedLeaving(cluster(true, true)), undefined);
  });
});
