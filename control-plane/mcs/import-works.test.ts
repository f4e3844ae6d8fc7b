import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ServicePort } from "../../shared/api/mcs.ts";
import { exportOf } from "./exports.fixtures.ts";
import { importOfWorkKey, importWorkKey, importWorks } from "./import-works.ts";

const NONE = new Set<string>();
const MEMBERS = ["cluster-3", "cluster-1", "cluster-2"];
const kindsOf = (manifests: Buffer[]) => manifests.map((m) => (JSON.parse(String(m)) as { kind: string }).kind);

describe("importWorks: every member gets the import, the exporters too", () => {
  const exports = [exportOf("cluster-1", 0), exportOf("cluster-2", 2, { ports: [{ name: "stcp", protocol: "SCTP", port: 142 }] })];

  it("one Work per member, keyed by the export record, applied under Abort", () => {
    const works = importWorks(exports, MEMBERS, NONE);
    assert.deepEqual([...works.keys()], ["cluster-1", "cluster-2", "cluster-3"]);
    for (const w of works.values()) {
      assert.equal(w.key, "flotilla.dev/v1alpha1/MemberServiceExport/mcs-test/hello");
      assert.equal(w.conflictResolution, "Abort");
      assert.deepEqual(kindsOf(w.manifests), ["ServiceImport", "Service", "EndpointSlice", "EndpointSlice"]);
    }
  });

  it("exporters' Works differ from a non-exporter's only by their export's conditions", () => {
    const works = importWorks(exports, MEMBERS, NONE);
    const status = (c: string) => JSON.parse((JSON.parse(String(works.get(c)?.manifests[0])) as { metadata: { annotations: Record<string, string> } }).metadata.annotations["flotilla.dev/clusterset-status"] ?? "") as { exportConditions?: unknown[] };
    assert.equal(status("cluster-1").exportConditions?.length, 2);
    assert.equal(status("cluster-2").exportConditions?.length, 2);
    assert.equal(status("cluster-3").exportConditions, undefined);
    assert.equal(works.get("cluster-1")?.hash, works.get("cluster-2")?.hash, "the same conditions on every export");
    assert.notEqual(works.get("cluster-1")?.hash, works.get("cluster-3")?.hash);
  });

  it("the same exports in any order give byte-identical Works (every replica serves the same)", () => {
    const a = importWorks(exports, MEMBERS, NONE);
    const b = importWorks([...exports].reverse(), [...MEMBERS].reverse(), new Set());
    for (const c of MEMBERS) {
      assert.equal(a.get(c)?.hash, b.get(c)?.hash);
      assert.deepEqual(a.get(c)?.manifests, b.get(c)?.manifests);
    }
  });

  it("a change that reaches the members changes every hash: a port added, a cluster not ready", () => {
    const before = importWorks(exports, MEMBERS, NONE);
    const added = importWorks([exports[0]!, exportOf("cluster-2", 2, { ports: [{ name: "stcp", protocol: "SCTP", port: 143 } as ServicePort] })], MEMBERS, NONE);
    const lost = importWorks(exports, MEMBERS, new Set(["cluster-2"]));
    for (const c of MEMBERS) {
      assert.notEqual(added.get(c)?.hash, before.get(c)?.hash);
      assert.notEqual(lost.get(c)?.hash, before.get(c)?.hash);
    }
  });

  it("no export: no Works", () => assert.equal(importWorks([], MEMBERS, NONE).size, 0));
});

describe("importWorkKey: the key parses back to the import; other Works' keys are not an import's", () => {
  const cases: { key: string; want: { namespace: string; name: string } | undefined }[] = [
    { key: importWorkKey("shop", "cart"), want: { namespace: "shop", name: "cart" } },
    { key: "core/v1/Service/shop/cart", want: undefined },
    { key: "flotilla.dev/v1alpha1/FederatedResourceQuota/shop/cart", want: undefined },
    { key: "multicluster.x-k8s.io/v1beta1/ServiceImport/shop/cart", want: undefined },
  ];
  for (const c of cases) it(c.key, () => assert.deepEqual(importOfWorkKey(c.key), c.want));
});
