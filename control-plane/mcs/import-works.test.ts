import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ServicePort } from "../../shared/api/mcs.ts";
import { exportOf, sliceOf } from "./exports.fixtures.ts";
import { type ImportWork, importOfWorkKey, importWorkKey, importWorks, sliceWorkKey } from "./import-works.ts";

const NONE = new Set<string>();
const MEMBERS = ["cluster-3", "cluster-1", "cluster-2"];
const kindsOf = (manifests: Buffer[]) => manifests.map((m) => (JSON.parse(String(m)) as { kind: string }).kind);
/** The import's own Work of a member (its first). */
const own = (ws: ImportWork[] | undefined) => ws?.[0];
const hashes = (ws: ImportWork[] | undefined) => (ws ?? []).map((w) => w.hash);

describe("importWorks: every member gets the import, the exporters too", () => {
  const exports = [exportOf("cluster-1", 0), exportOf("cluster-2", 2, { ports: [{ name: "stcp", protocol: "SCTP", port: 142 }] })];

  it("per member: the import's Work, then one Work of each exporting cluster's slices; keyed by the export record, applied under Abort", () => {
    const works = importWorks(exports, MEMBERS, NONE);
    assert.deepEqual([...works.keys()], ["cluster-1", "cluster-2", "cluster-3"]);
    for (const ws of works.values()) {
      assert.deepEqual(ws.map((w) => w.key), ["flotilla.dev/v1alpha1/MemberServiceExport/mcs-test/hello", "flotilla.dev/v1alpha1/MemberServiceExport/mcs-test/hello.cluster-1", "flotilla.dev/v1alpha1/MemberServiceExport/mcs-test/hello.cluster-2"]);
      assert.ok(ws.every((w) => w.conflictResolution === "Abort"));
      assert.deepEqual(ws.map((w) => kindsOf(w.manifests)), [["ServiceImport", "Service"], ["EndpointSlice"], ["EndpointSlice"]]);
    }
  });

  it("an endpoint change in one cluster changes only that cluster's slice Work, the same bytes in every member", () => {
    const before = importWorks(exports, MEMBERS, NONE);
    const moved = importWorks([exports[0]!, exportOf("cluster-2", 2, { ports: [{ name: "stcp", protocol: "SCTP", port: 142 }], endpointSlices: [sliceOf("hello-cluster-2", ["10.244.9.9"])] })], MEMBERS, NONE);
    for (const c of MEMBERS) {
      const [i0, s10, s20] = before.get(c) ?? [];
      const [i1, s11, s21] = moved.get(c) ?? [];
      assert.equal(i1?.hash, i0?.hash, "the import's Work is unchanged");
      assert.equal(s11?.hash, s10?.hash, "cluster-1's slices are unchanged");
      assert.notEqual(s21?.hash, s20?.hash);
      assert.equal(s21?.manifests[0], moved.get("cluster-1")?.[2]?.manifests[0], "one encoding, shared by every member");
    }
  });

  it("exporters' Works differ from a non-exporter's only by their export's conditions", () => {
    const works = importWorks(exports, MEMBERS, NONE);
    const status = (c: string) => JSON.parse((JSON.parse(String(own(works.get(c))?.manifests[0])) as { metadata: { annotations: Record<string, string> } }).metadata.annotations["flotilla.dev/clusterset-status"] ?? "") as { exportConditions?: unknown[] };
    assert.equal(status("cluster-1").exportConditions?.length, 2);
    assert.equal(status("cluster-2").exportConditions?.length, 2);
    assert.equal(status("cluster-3").exportConditions, undefined);
    assert.equal(own(works.get("cluster-1"))?.hash, own(works.get("cluster-2"))?.hash, "the same conditions on every export");
    assert.notEqual(own(works.get("cluster-1"))?.hash, own(works.get("cluster-3"))?.hash);
  });

  it("the same exports in any order give byte-identical Works (every replica serves the same)", () => {
    const a = importWorks(exports, MEMBERS, NONE);
    const b = importWorks([...exports].reverse(), [...MEMBERS].reverse(), new Set());
    for (const c of MEMBERS) {
      assert.deepEqual(hashes(a.get(c)), hashes(b.get(c)));
      assert.deepEqual(a.get(c)?.map((w) => w.manifests), b.get(c)?.map((w) => w.manifests));
    }
  });

  it("a port added changes the import's Work; a cluster not ready changes its slices' Work", () => {
    const before = importWorks(exports, MEMBERS, NONE);
    const added = importWorks([exports[0]!, exportOf("cluster-2", 2, { ports: [{ name: "stcp", protocol: "SCTP", port: 143 } as ServicePort] })], MEMBERS, NONE);
    const lost = importWorks(exports, MEMBERS, new Set(["cluster-2"]));
    for (const c of MEMBERS) {
      assert.notEqual(own(added.get(c))?.hash, own(before.get(c))?.hash);
      assert.notEqual(lost.get(c)?.[2]?.hash, before.get(c)?.[2]?.hash);
      assert.equal(own(lost.get(c))?.hash, own(before.get(c))?.hash);
    }
  });

  it("no export: no Works", () => assert.equal(importWorks([], MEMBERS, NONE).size, 0));
});

describe("importWorkKey: the key parses back to the import; other Works' keys are not an import's", () => {
  const cases: { key: string; want: { namespace: string; name: string; cluster?: string } | undefined }[] = [
    { key: importWorkKey("shop", "cart"), want: { namespace: "shop", name: "cart" } },
    { key: sliceWorkKey("shop", "cart", "member-1"), want: { namespace: "shop", name: "cart", cluster: "member-1" } },
    { key: "core/v1/Service/shop/cart", want: undefined },
    { key: "flotilla.dev/v1alpha1/FederatedResourceQuota/shop/cart", want: undefined },
    { key: "multicluster.x-k8s.io/v1beta1/ServiceImport/shop/cart", want: undefined },
  ];
  for (const c of cases) it(c.key, () => assert.deepEqual(importOfWorkKey(c.key), c.want));
});
