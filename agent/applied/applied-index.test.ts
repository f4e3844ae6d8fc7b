import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AppliedRecord } from "../judge/applied-record.ts";
import { AppliedIndex } from "./applied-index.ts";

const cr = (version: string) => ({ apiVersion: `example.com/${version}`, kind: "Widget", namespace: "default", name: "w" });
const rec = (key: string, ...resources: AppliedRecord["resources"]): AppliedRecord => ({ key, hash: "h", resources });

describe("AppliedIndex", () => {
  it("finds another Work naming the same object at any version, never the asking Work", () => {
    const index = new AppliedIndex();
    const a = rec("example.com/v1/Widget/default/w", cr("v1"));
    const b = rec("example.com/v2/Widget/default/w", cr("v2"));
    index.put(a, undefined);
    assert.equal(index.otherNaming(a.key, cr("v1")), undefined, "only its own record names it");
    index.put(b, undefined);
    assert.equal(index.otherNaming(a.key, cr("v1")), b.key);
    assert.equal(index.otherNaming(b.key, cr("v2")), a.key);
    assert.equal(index.otherNaming(a.key, { ...cr("v1"), namespace: "other" }), undefined);
  });
  it("follows records replaced and removed", () => {
    const index = new AppliedIndex();
    const a = rec("a", cr("v1"));
    const b = rec("b", cr("v1"));
    index.put(a, undefined);
    index.put(b, undefined);
    index.put(rec("b"), b);
    assert.equal(index.otherNaming("a", cr("v1")), undefined, "b no longer names it");
    index.put(b, rec("b"));
    index.remove(b);
    assert.equal(index.otherNaming("a", cr("v1")), undefined);
  });
});
