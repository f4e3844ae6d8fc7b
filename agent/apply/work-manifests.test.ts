import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { manifestsProblem } from "./work-manifests.ts";

describe("manifestsProblem: what a WorkUpsert's manifests must be", () => {
  const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "conf", namespace: "shop" } };
  const cases: { name: string; manifests: unknown[]; want: RegExp | undefined }[] = [
    { name: "one object: a Work", manifests: [cm], want: undefined },
    { name: "a cluster-scoped object: a Work", manifests: [{ apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } }], want: undefined },
    // Issue 37: an empty Work pruned everything the agent had applied for its key.
    { name: "none: refused, nothing pruned", manifests: [], want: /^the hub sent a Work without manifests; nothing is applied or removed$/ },
    { name: "null: refused", manifests: [null], want: /manifest 1 of 1 without an apiVersion, a kind and a name/ },
    { name: "a number: refused", manifests: [cm, 7], want: /manifest 2 of 2/ },
    { name: "no name: refused", manifests: [{ apiVersion: "v1", kind: "ConfigMap", metadata: {} }], want: /manifest 1 of 1/ },
    { name: "an empty kind: refused", manifests: [{ ...cm, kind: "" }], want: /manifest 1 of 1/ },
    { name: "no apiVersion: refused", manifests: [{ kind: "ConfigMap", metadata: { name: "x" } }], want: /manifest 1 of 1/ },
    { name: "metadata not an object: refused", manifests: [{ ...cm, metadata: "conf" }], want: /manifest 1 of 1/ },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = manifestsProblem(c.manifests);
      if (c.want === undefined) assert.equal(got, undefined);
      else assert.match(got ?? "", c.want);
    });
  }
});
