import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { MemberServiceExport } from "../../shared/api/mcs.ts";
import type { KubeRest } from "../../shared/kube-rest.ts";
import { exportOf } from "../mcs/exports.fixtures.ts";
import { mcsCaches, recordOf, silent, unsynced } from "./mcs.fixtures.ts";
import { MAX_EXPORT_BYTES_PER_CLUSTER, MAX_EXPORTS_PER_CLUSTER, recordWriter } from "./record-writer.ts";

type Call = { verb: "apply" | "delete"; path: string; body: unknown };

function setup() {
  const { caches, records } = mcsCaches();
  const calls: Call[] = [];
  const rest = {
    apply: async (path: string, body: unknown) => {
      calls.push({ verb: "apply", path, body });
      return { ...(body as object), metadata: { ...(body as { metadata: object }).metadata, uid: "uid-written", resourceVersion: "7" } };
    },
    delete: async (path: string, body: unknown) => void calls.push({ verb: "delete", path, body }),
  } as unknown as KubeRest;
  const writer = recordWriter({ caches, rest, log: silent });
  const drain = async () => {
    while (writer.controller.queue.length > 0) {
      const key = await writer.controller.queue.get();
      if (key === undefined) break;
      await writer.controller.process(key);
      writer.controller.queue.done(key);
    }
  };
  return { records, calls, writer, drain };
}
const report = (cluster: string, name = "hello", withdrawn = false) => {
  const { cluster: _, namespace, name: __, ...rest } = exportOf(cluster, 0);
  return { namespace, name, export: withdrawn ? Buffer.alloc(0) : Buffer.from(JSON.stringify(rest)), withdrawn };
};

describe("recordWriter: an agent's reports → its records in the control cluster (issue 40)", () => {
  it("a report is applied as the record of the stream's cluster; the same report again writes nothing", async () => {
    const { records, calls, writer, drain } = setup();
    writer.report("member1", report("member1"));
    await drain();
    assert.equal(calls.length, 1);
    assert.equal(calls[0]?.verb, "apply");
    assert.match(calls[0]?.path ?? "", /memberserviceexports\/member1\.mcs-test\.hello$/);
    assert.deepEqual((calls[0]?.body as MemberServiceExport).spec, exportOf("member1", 0));
    records.put(recordOf(exportOf("member1", 0)));
    writer.report("member1", report("member1"));
    await drain();
    assert.equal(calls.length, 1, "hash before write");
  });
  it("a withdrawal deletes the record, with its uid as precondition; a withdrawal of nothing deletes nothing", async () => {
    const { records, calls, writer, drain } = setup();
    records.put(recordOf(exportOf("member1", 0)));
    writer.report("member1", report("member1", "hello", true));
    writer.report("member1", report("member1", "other", true));
    await drain();
    assert.deepEqual(calls.map((c) => c.verb), ["delete"]);
    assert.deepEqual((calls[0]?.body as { preconditions: unknown }).preconditions, { uid: "uid-member1.mcs-test.hello", resourceVersion: "1" });
  });
  it("a withdrawal deletes only the version it was said of: one made again since (through another replica) stays", async () => {
    const { records, calls, writer, drain } = setup();
    records.put(recordOf(exportOf("member1", 0)));
    writer.report("member1", report("member1", "hello", true));
    // Written again through another replica before this one's delete runs.
    records.put({ ...recordOf(exportOf("member1", 0)), metadata: { ...recordOf(exportOf("member1", 0)).metadata, resourceVersion: "2" } });
    await drain();
    assert.deepEqual((calls[0]?.body as { preconditions: unknown }).preconditions, { uid: "uid-member1.mcs-test.hello", resourceVersion: "1" }, "the apiserver refuses it (409): the newer record stays");
  });
  it("withdrawn before the informer saw this writer's own write: that write is deleted, not left behind", async () => {
    const { calls, writer, drain } = setup();
    writer.report("member1", report("member1"));
    await drain();
    writer.report("member1", report("member1", "hello", true));
    await drain();
    assert.deepEqual(calls.map((c) => c.verb), ["apply", "delete"]);
    assert.deepEqual((calls[1]?.body as { preconditions: unknown }).preconditions, { uid: "uid-written", resourceVersion: "7" });
  });
  it("the full list after a sync: this cluster's records it lacks are withdrawn, other clusters' untouched", async () => {
    const { records, calls, writer, drain } = setup();
    records.put(recordOf(exportOf("member1", 0)));
    records.put(recordOf({ ...exportOf("member1", 0), name: "kept" }));
    records.put(recordOf(exportOf("member2", 0)));
    writer.synced("member1", ["mcs-test/kept"]);
    await drain();
    assert.deepEqual(calls.map((c) => [c.verb, c.path.split("/").pop()]), [["delete", "member1.mcs-test.hello"]]);
  });
  it("a malformed report writes nothing, and the record kept stays", async () => {
    const { records, calls, writer, drain } = setup();
    records.put(recordOf(exportOf("member1", 0)));
    writer.report("member1", { namespace: "mcs-test", name: "hello", export: Buffer.from("{not json"), withdrawn: false });
    await drain();
    assert.deepEqual(calls, []);
  });
  it("records not listed yet: a report waits for the list; nothing is written or deleted before it", async () => {
    const { records, calls, writer } = setup();
    unsynced(records);
    let listed: () => void = () => undefined;
    records.whenSynced = () => new Promise<void>((r) => (listed = r));
    writer.report("member1", report("member1", "hello", true));
    writer.report("member1", report("member1", "web"));
    assert.equal(writer.controller.queue.length, 0);
    assert.deepEqual(calls, []);
    listed();
    await new Promise((r) => setImmediate(r));
    assert.equal(writer.controller.queue.length, 1, "the report, taken once listed; the withdrawal of an unknown export is nothing");
  });
  it(`a hostile agent: at most ${MAX_EXPORTS_PER_CLUSTER} exports per cluster, another cluster unaffected`, async () => {
    const { calls, writer } = setup();
    for (let i = 0; i <= MAX_EXPORTS_PER_CLUSTER; i++) writer.report("member1", report("member1", `s${i}`));
    writer.report("member2", report("member2", "s0"));
    assert.equal(writer.controller.queue.length, MAX_EXPORTS_PER_CLUSTER + 1);
    assert.deepEqual(calls, []);
  });
});

describe("recordWriter: the byte budget of one cluster", () => {
  it(`refuses a report that would take a cluster's records over ${MAX_EXPORT_BYTES_PER_CLUSTER} bytes; another cluster unaffected`, () => {
    const { writer } = setup();
    const annotations = Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`a${i}`, "x".repeat(4000)]));
    const big = (name: string) => {
      const { cluster: _, namespace, name: __, ...spec } = exportOf("member1", 0, { exportedAnnotations: annotations });
      return { namespace, name, export: Buffer.from(JSON.stringify(spec)), withdrawn: false };
    };
    const each = big("b").export.byteLength;
    const fits = Math.floor(MAX_EXPORT_BYTES_PER_CLUSTER / each);
    for (let i = 0; i < fits + 5; i++) writer.report("member1", big(`b${i}`));
    assert.equal(writer.controller.queue.length, fits);
    writer.report("member1", big("b0"));
    assert.equal(writer.controller.queue.length, fits, "a report replacing one held is measured against its own size");
    writer.report("member2", report("member2", "s0"));
    assert.equal(writer.controller.queue.length, fits + 1);
  });
});

describe("recordWriter: a cluster gone from the control cluster (unjoined)", () => {
  it("withdraws that cluster's records only, each at the version held", async () => {
    const { records, calls, writer, drain } = setup();
    records.put(recordOf(exportOf("member1", 0)));
    records.put(recordOf({ ...exportOf("member1", 0), name: "other" }));
    records.put(recordOf(exportOf("member2", 0)));
    writer.clusterGone("member1");
    await drain();
    assert.deepEqual(calls.map((c) => [c.verb, c.path.split("/").pop()]).sort(), [["delete", "member1.mcs-test.hello"], ["delete", "member1.mcs-test.other"]]);
    assert.ok(calls.every((c) => (c.body as { preconditions: { resourceVersion?: string } }).preconditions.resourceVersion === "1"));
  });
  it("a cluster with no records: nothing is deleted", async () => {
    const { records, calls, writer, drain } = setup();
    records.put(recordOf(exportOf("member2", 0)));
    writer.clusterGone("member1");
    await drain();
    assert.deepEqual(calls, []);
  });
});
