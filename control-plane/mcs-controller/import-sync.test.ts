import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { exportOf } from "../mcs/exports.fixtures.ts";
import { importWorkKey, sliceWorkKey } from "../mcs/index.ts";
import { WorkStore } from "../works/work-store.ts";
import { syncImportWorks } from "./import-sync.ts";
import { clusterOf, mcsCaches, recordOf, unsynced } from "./mcs.fixtures.ts";

const KEY = importWorkKey("mcs-test", "hello");
const SLICES_1 = sliceWorkKey("mcs-test", "hello", "member1");

/** Renders are coalesced to the next turn of the event loop. */
const tick = () => new Promise((r) => setImmediate(r));

function setup(clusters = [clusterOf("member1"), clusterOf("member2")], requireAcceptance = false) {
  const { caches, clusters: cl, records } = mcsCaches();
  for (const c of clusters) cl.put(c);
  const works = new WorkStore();
  syncImportWorks(caches, works, { requireAcceptance });
  const intent = (cluster: string, key = KEY) => works.sourceOf(key)?.absenceIntent(cluster, key);
  return { caches, cl, records, works, intent };
}
const manifests = (works: WorkStore, cluster: string, key = KEY) => (works.get(cluster, key)?.manifests ?? []).map((b) => JSON.parse(String(b)) as { kind: string; endpoints?: { conditions?: { ready?: boolean } }[] });

describe("syncImportWorks: every record → the import's Work in every joined member (issue 40)", () => {
  it("one export: a Work in each member, exporter included, sent only to agents that declare mcs", async () => {
    const { records, works } = setup();
    records.put(recordOf(exportOf("member1", 0)));
    await tick();
    assert.ok(works.get("member1", KEY));
    assert.ok(works.get("member2", KEY));
    assert.equal(works.sourceOf(KEY)?.feature, "mcs");
    assert.deepEqual(manifests(works, "member2").map((m) => m.kind), ["ServiceImport", "Service"]);
    assert.deepEqual(manifests(works, "member2", SLICES_1).map((m) => m.kind), ["EndpointSlice"]);
    assert.equal(works.sourceOf(SLICES_1)?.feature, "mcs");
    assert.equal(works.brakeKey(SLICES_1), KEY, "an import's slices count with it in the deletion brake");
    assert.equal(works.brakeKey("apps/v1/Deployment/shop/web"), "apps/v1/Deployment/shop/web");
  });
  it("an exporting cluster not Ready: its endpoints are kept, marked not ready; nothing is removed", async () => {
    const { cl, records, works, intent } = setup();
    records.put(recordOf(exportOf("member1", 0)));
    cl.put(clusterOf("member1", { ready: false }));
    await tick();
    const slice = manifests(works, "member2", SLICES_1).find((m) => m.kind === "EndpointSlice");
    assert.equal(slice?.endpoints?.length, 1);
    assert.equal(slice?.endpoints?.[0]?.conditions?.ready, false);
    assert.equal(intent("member2"), undefined);
    assert.equal(intent("member2", SLICES_1), undefined);
  });
  it("the last export withdrawn (its record deleted on the listed informer): each member may remove the import", async () => {
    const { records, works, intent } = setup();
    const r = recordOf(exportOf("member1", 0));
    records.put(r);
    records.remove(r);
    await tick();
    assert.equal(works.get("member2", KEY), undefined);
    assert.deepEqual(intent("member2"), { reason: "ExportsWithdrawn", preserve: false });
  });
  it("one of two exports withdrawn: the import stays everywhere; only that cluster's slices may go", async () => {
    const { records, works, intent } = setup();
    const r1 = recordOf(exportOf("member1", 0));
    records.put(r1);
    records.put(recordOf(exportOf("member2", 1)));
    await tick();
    assert.ok(works.get("member2", SLICES_1));
    records.remove(r1);
    await tick();
    assert.ok(works.get("member1", KEY));
    assert.equal(intent("member1"), undefined);
    assert.equal(works.get("member2", SLICES_1), undefined);
    assert.deepEqual(intent("member2", SLICES_1), { reason: "ExportsWithdrawn", preserve: false });
    assert.equal(intent("member2", sliceWorkKey("mcs-test", "hello", "member2")), undefined, "member2's own slices stay");
  });
  it("records not listed yet (a control plane starting): no removal, whatever the store lacks", async () => {
    const { records, intent } = setup();
    unsynced(records);
    assert.equal(intent("member2"), undefined);
  });
  it("a member being unjoined gets no Work and removes its import (ClusterUnjoined); one unjoined by force removes nothing", async () => {
    const { cl, records, works, intent } = setup();
    records.put(recordOf(exportOf("member1", 0)));
    cl.put(clusterOf("member2", { unjoining: true }));
    await tick();
    assert.equal(works.get("member2", KEY), undefined);
    assert.deepEqual(intent("member2"), { reason: "ClusterUnjoined", preserve: false });
    const forced = clusterOf("member2", { unjoining: true });
    forced.metadata.annotations = { "flotilla.dev/unjoin-force": "true" };
    cl.put(forced);
    await tick();
    assert.equal(intent("member2"), undefined);
    assert.equal(intent("member9"), undefined, "a cluster the cache lacks is no intent");
  });
  it("records not listed yet: nothing is rendered, not even from the records listed so far (a partial import would prune the others' endpoints)", async () => {
    const { records, works } = setup();
    unsynced(records);
    records.put(recordOf(exportOf("member1", 0)));
    await tick();
    assert.equal(works.get("member1", KEY), undefined);
  });
  it("--require-acceptance: a cluster no admin accepted neither imports nor exports", async () => {
    const accepted = (name: string) => {
      const c = clusterOf(name);
      (c.spec as { hubAcceptsClient?: boolean }).hubAcceptsClient = true;
      return c;
    };
    const { records, works } = setup([accepted("member1"), clusterOf("member2"), accepted("member3")], true);
    records.put(recordOf(exportOf("member2", 0)));
    await tick();
    assert.equal(works.get("member1", KEY), undefined, "member2's export does not count");
    records.put(recordOf(exportOf("member1", 1)));
    await tick();
    assert.ok(works.get("member3", KEY));
    assert.equal(works.get("member2", KEY), undefined, "member2 gets no import");
  });
  it("a record of a cluster that left the fleet no longer counts as an export", async () => {
    const { records, works } = setup([clusterOf("member2")]);
    records.put(recordOf(exportOf("member1", 0)));
    await tick();
    assert.equal(works.get("member2", KEY), undefined);
  });
});
